package nodeadm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIsMultipart: nodeadm reads the userData as multipart when Go's
// net/mail reads its header block and its Content-Type is multipart/*
// (awslabs/amazon-eks-ami@81fec2e8 nodeadm/internal/configprovider/mime.go
// L76-89); a header block that runs into the first delimiter without an
// empty line is not one (issue 43: cloud-init reads that document, nodeadm
// does not).
func TestIsMultipart(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b--\n":                                true,
		"Content-Type: text/plain\n\nx\n":                                                                        false,
		"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n":                                                  false,
		"Content-Type: multipart/mixed; boundary=b\n bad\n":                                                      false,
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n--b\nContent-Type: text/plain\n\n--b--\n": false,
		"Content-Type multipart/mixed; boundary=b\n\n--b--\n":                                                    false,
	} {
		if got := IsMultipart([]byte(text)); got != want {
			t.Errorf("IsMultipart(%q) = %v; want %v", text, got, want)
		}
	}
}

// TestParts: the NodeConfig parts of the top level only, decoded as
// nodeadm decodes them (configprovider/mime.go L34-74: one
// multipart.Reader; other media types and a nested multipart skipped;
// encoding.go decodeIfBase64 whatever the part's headers say).
func TestParts(t *testing.T) {
	t.Parallel()
	doc := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n" +
		"--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n" +
		"--b\nContent-Type: application/node.eks.aws\n\nkind: NodeConfig\n" +
		"--b\nContent-Type: multipart/mixed; boundary=c\n\n--c\nContent-Type: application/node.eks.aws\n\nnested\n--c--\n" +
		"--b\nContent-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\na2luZDogTm9kZUNvbmZpZw==\n" +
		"--b--\n"
	parts, err := Parts([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	type part struct {
		Line int
		Body string
	}
	var got []part
	for _, p := range parts {
		got = append(got, part{p.Line, string(p.Body)})
	}
	if undecodable, err := Parts([]byte("Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\n!!!\n--b--\n")); err != nil || string(undecodable[0].Body) != "!!!" {
		t.Errorf("a part that is not base64 is kept as written (decodeIfBase64); got %+v, %v", undecodable, err)
	}
	if diff := cmp.Diff([]part{{11, "kind: NodeConfig"}, {0, "kind: NodeConfig"}}, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"Content-Type: multipart/mixed; boundary=b\n\nno delimiter\n",
		"Content-Type: multipart/mixed; boundary=b\n\n--b\n bad header\n\n--b--\n",
		// A part whose Content-Type line runs into the script: Go's
		// textproto refuses "#!/bin/bash" as a header line.
		"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/x-shellscript\n#!/bin/bash\n--b--\n",
		// Any part's Content-Type must parse, not only NodeConfigs' (L44-48).
		"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/\n\nx\n--b--\n",
		// No closing delimiter: NextPart's EOF is wrapped, not io.EOF.
		"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: application/node.eks.aws\n\nkind: NodeConfig\n",
	} {
		if _, err := Parts([]byte(bad)); err == nil {
			t.Errorf("Parts(%q): no error", bad)
		}
	}
}
