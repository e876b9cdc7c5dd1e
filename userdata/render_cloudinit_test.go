package userdata

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/google/go-cmp/cmp"
)

// TestRenderMIMEWithGoParsers reads Render's multipart output with the
// parser nodeadm uses (net/mail and mime/multipart) and checks that the
// custom part comes back byte for byte, before Render's part.
func TestRenderMIMEWithGoParsers(t *testing.T) {
	t.Parallel()
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023} {
		cfg := goldenConfig(f)
		out, err := Render(f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mail.ReadMessage(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/mixed" || params["boundary"] == "//" {
			t.Fatalf("%v: Content-Type %q, %v", f, msg.Header.Get("Content-Type"), err)
		}
		mr := multipart.NewReader(msg.Body, params["boundary"])
		var types []string
		var bodies [][]byte
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%v: %v", f, err)
			}
			b, _ := io.ReadAll(p)
			types = append(types, p.Header.Get("Content-Type"))
			bodies = append(bodies, b)
		}
		wantLast := `text/x-shellscript; charset="us-ascii"`
		if f == compat.AL2023 {
			wantLast = nodeadm.MediaType
		}
		if len(bodies) != 2 || types[1] != wantLast {
			t.Fatalf("%v: parts %q; want the custom part then %q", f, types, wantLast)
		}
		if !bytes.Equal(bodies[0], cfg.CustomUserData) {
			t.Errorf("%v: custom part = %q; want %q", f, bodies[0], cfg.CustomUserData)
		}
	}
}

func TestRenderCustomMIMECopied(t *testing.T) {
	t.Parallel()
	custom := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/cloud-config\n\n#cloud-config\npackages: [jq]\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho --// not a delimiter here\n--//--\n"
	cfg := baseConfig()
	cfg.CustomUserData = []byte(custom)
	out, err := Render(compat.AL2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := mimedoc.Parse(out, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range parts {
		got = append(got, p.MediaType+"|"+string(p.Body))
	}
	want := []string{
		"text/cloud-config|#cloud-config\npackages: [jq]",
		"text/x-shellscript|#!/bin/bash\necho --// not a delimiter here",
		"text/x-shellscript|" + string(parts[2].Body),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if r := mustLint(t, compat.AL2, out, nil); len(r.Problems) > 0 {
		t.Errorf("problems:\n%s", r)
	}
}
