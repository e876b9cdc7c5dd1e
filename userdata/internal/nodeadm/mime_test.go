package nodeadm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIsMultipart: nodeadm reads the userData as multipart when its
// header's Content-Type is multipart/* (configprovider/userdata.go).
func TestIsMultipart(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b--\n": true,
		"Content-Type: text/plain\n\nx\n":                                         false,
		"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n":                   false,
		"Content-Type: multipart/mixed; boundary=b\n bad\n":                       false,
	} {
		if got := IsMultipart([]byte(text)); got != want {
			t.Errorf("IsMultipart(%q) = %v; want %v", text, got, want)
		}
	}
}

// TestParts: the NodeConfig parts of the top level only, transfer-decoded
// (configprovider/mime.go: one multipart.Reader; other media types and a
// nested multipart skipped).
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
	if diff := cmp.Diff([]part{{11, "kind: NodeConfig"}, {0, "kind: NodeConfig"}}, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	for _, bad := range []string{
		"Content-Type: multipart/mixed; boundary=b\n\nno delimiter\n",
		"Content-Type: multipart/mixed; boundary=b\n\n--b\n bad header\n\n--b--\n",
		"Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: application/node.eks.aws\nContent-Transfer-Encoding: base64\n\n!!!\n--b--\n",
	} {
		if _, err := Parts([]byte(bad)); err == nil {
			t.Errorf("Parts(%q): no error", bad)
		}
	}
}
