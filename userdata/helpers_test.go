package userdata

import (
	"encoding/base64"
	"flag"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"pgregory.net/rapid"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testCA is a syntactically valid CABundle: base64 of a PEM certificate
// block (the DER inside is not a real certificate; Render does not parse it).
func testCA() string {
	return base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUEc2lMA==\n-----END CERTIFICATE-----\n"))
}

func baseConfig() Config {
	return Config{
		ClusterName:       "my-cluster",
		APIServerEndpoint: "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com",
		CABundle:          testCA(),
		ClusterCIDR:       "10.100.0.0/16",
	}
}

func mustLint(t *testing.T, f compat.AMIFamily, data []byte, required []Taint) Report {
	t.Helper()
	r, err := Lint(f, data, required)
	if err != nil {
		t.Fatalf("Lint(%v) error: %v", f, err)
	}
	return r
}

func codes(r Report) []Code {
	var out []Code
	for _, p := range r.Problems {
		out = append(out, p.Code)
	}
	return out
}

// nastyString draws strings rich in characters that mean something to
// bash, systemd, PowerShell, YAML, TOML or MIME.
func nastyString() *rapid.Generator[string] {
	pieces := []string{"'", `"`, `\`, "`", "$", "$(id)", "${x}", "\n", "\r", "\t", " ", ";", "&", "|", "<", ">", "%", "%%", "#", "!",
		"*", "?", "[", "]", "{", "}", "(", ")", "~", "=", ",", ":", "--", "\u2018", "\u2019", "\u201c", "\u201d", "\u2013",
		"'@", "@'", "\"@", "</powershell>", "<#", "#>", "\x00", "\x1b", "é", "--register-with-taints=x:NoExecute"}
	return rapid.OneOf(
		rapid.String(),
		rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(pieces), rapid.StringMatching(`[a-z0-9.-]{0,6}`)), 0, 8).Draw(t, "parts")
			return strings.Join(parts, "")
		}),
	)
}
