package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// internalNames are names that are ec2select's own and mean nothing to
// the person who wrote the manifests: the values preflight fills in to
// render userData (the cluster's endpoint and certificate), Render's
// sentinel taint and its reserved .invalid domain, Go package prefixes of
// the library's errors, and the library's own field and option names.
var internalNames = []string{
	"preflight.example.eks.amazonaws.com", "MIIBKzCB3qADAgECAgEB", ".invalid/", "ec2select.invalid",
	"amiselect: ", "userdata: ", "compat: ", "weighting: ", "ec2nodeclass: ", "capacity: ", "offerings: ", "schema: ",
	"Config.", "AllowUnresolved", "RenderWithReport", "LintOption", "Render ", "Render's",
}

// TestMessagesNameNoInternals scans every string preflight reports on the
// corpus, and on its own test manifests, for internal names: a message
// names what the reader wrote (spec.userData, karpenter.sh/unregistered),
// never what preflight or the library made up on the way (issue 43: a
// finding once asked for the taint render.ec2select.invalid/custom-part-check).
func TestMessagesNameNoInternals(t *testing.T) {
	t.Parallel()
	n := 0
	for _, args := range [][]string{
		{"-o", "json", "testdata/corpus"},
		{"-o", "json", "-k8s", "1.32", "testdata"},
		{"-o", "json", "-pod", "cpu=500,memory=1Gi", "-strict-userdata", "-region", "us-east-1", "-min-age", "168h", "-nodes", "ami-0b315b27118709bc2=4,ami-0000000000000dead=1", "testdata"},
	} {
		out, err := runArgs(t, "", args...)
		var report any
		if jerr := json.Unmarshal([]byte(out), &report); jerr != nil {
			t.Fatalf("run(%q) = %v; output is not JSON: %v", args, err, jerr)
		}
		walkStrings(report, func(s string) {
			n++
			for _, name := range internalNames {
				if strings.Contains(s, name) {
					t.Errorf("run(%q): a message shows the internal name %q: %s", args, name, s)
				}
			}
		})
	}
	if n < 1000 {
		t.Errorf("scanned %d strings; the corpus and testdata give more: are they read?", n)
	}
}

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, e := range v {
			walkStrings(e, f)
		}
	}
}
