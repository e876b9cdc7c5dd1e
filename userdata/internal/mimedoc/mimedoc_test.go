package mimedoc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPickBoundaryAvoidsCollision(t *testing.T) {
	t.Parallel()
	parts := [][]byte{[]byte("Content-Type: text/plain\n\nhello\n")}
	first, err := pickBoundary(parts)
	if err != nil {
		t.Fatal(err)
	}
	parts = append(parts, []byte("Content-Type: text/plain\n\n--"+first+"\n"))
	second, err := pickBoundary(parts)
	if err != nil {
		t.Fatal(err)
	}
	// The first candidate for the new parts may differ anyway; what matters
	// is that the chosen one occurs in no part.
	for _, p := range parts {
		if bytes.Contains(p, []byte(second)) {
			t.Fatalf("boundary %q occurs in part %q", second, p)
		}
	}
	// Force the first candidate into a part: the next one must be chosen.
	candidate, _ := pickBoundary([][]byte{[]byte("x")})
	forced := [][]byte{[]byte("x")}
	_ = candidate
	for i := 0; i < 3; i++ {
		b, err := pickBoundary(forced)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range forced {
			if bytes.Contains(p, []byte(b)) {
				t.Fatalf("boundary %q occurs in a part", b)
			}
		}
		forced[0] = append(forced[0], []byte(b)...)
	}
}

func TestParseParts(t *testing.T) {
	t.Parallel()
	head := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n"
	part := "--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n"
	tests := []struct {
		name, doc string
		want      []string // each leaf: media type and body
	}{
		{"closed", head + part + "--b--\n", []string{"text/x-shellscript|#!/bin/bash\necho hi"}},
		{"unterminated: the last part runs to the end", head + part, []string{"text/x-shellscript|#!/bin/bash\necho hi\n"}},
		// A trailing opening delimiter with nothing after it is not a part.
		{"unterminated boundary at the end", head + part + "--b\n", []string{"text/x-shellscript|#!/bin/bash\necho hi"}},
		{"nested", head + "--b\nContent-Type: multipart/mixed; boundary=c\n\n--c\nContent-Type: text/plain\n\nx\n--c--\n--b--\n", []string{"text/plain|x"}},
		{"base64 body", head + "--b\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGk=\n--b--\n", []string{"text/plain|hi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := Parse([]byte(tt.doc), 1)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range parts {
				got = append(got, p.MediaType+"|"+string(p.Body))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLooksMIME pins cloud-init's test (user_data.py convert_string:
// "mime-version:" in the first 4096 bytes, any case) and Karpenter's
// (mergeCustomUserData: the data starts with a MIME-Version or
// Content-Type header).
func TestLooksMIME(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in          string
		mime, start bool
	}{
		{"MIME-Version: 1.0\n", true, true},
		{"Content-Type: multipart/mixed\n", false, true},
		{"#!/bin/bash\n# mime-version: in a comment\n", true, false},
		{"#!/bin/bash\n" + strings.Repeat("#", 4096) + "\nMIME-Version: 1.0\n", false, false},
		{"#!/bin/bash\n", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		if got := LooksMIME([]byte(tt.in)); got != tt.mime {
			t.Errorf("LooksMIME(%.40q) = %v; want %v", tt.in, got, tt.mime)
		}
		if got := StartsWithHeader([]byte(tt.in)); got != tt.start {
			t.Errorf("StartsWithHeader(%.40q) = %v; want %v", tt.in, got, tt.start)
		}
	}
}

// TestTopLevelParts: the parts as written, a nested multipart kept whole,
// each with the line it starts on; a message that is not multipart is
// its own part.
func TestTopLevelParts(t *testing.T) {
	t.Parallel()
	doc := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nx\n--b\n" +
		"Content-Type: multipart/mixed; boundary=c\n\n--c\nContent-Type: text/plain\n\ny\n--c--\n--b--\n"
	parts, err := TopLevelParts([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range parts {
		got = append(got, fmt.Sprintf("%d|%s", p.Line, p.Data))
	}
	want := []string{"5|Content-Type: text/plain\n\nx", "9|Content-Type: multipart/mixed; boundary=c\n\n--c\nContent-Type: text/plain\n\ny\n--c--"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	single, err := TopLevelParts([]byte("Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGk=\n"))
	if err != nil || len(single) != 1 || string(single[0].Data) != "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGk=\n" {
		t.Errorf("TopLevelParts(single) = %+v, %v", single, err)
	}
	for _, bad := range []string{
		"Content-Type: multipart/mixed\n\n--b\n",                         // no boundary
		"Content-Type: text/plain; charset\n\nx\n",                       // a parameter without a value
		"Content-Type: multipart/mixed; boundary=b\n\nno delimiter\n",    // no delimiter line
		"Content-Type: multipart/mixed; boundary=b\n bad continuation\n", // a header starting with a continuation
	} {
		if _, err := TopLevelParts([]byte(bad)); err == nil {
			t.Errorf("TopLevelParts(%q): no error", bad)
		}
	}
}

// TestParseErrors: what Go's and Python's MIME readers refuse is an error
// naming the line.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	deep := "x"
	for i := 0; i <= MaxDepth+1; i++ {
		deep = fmt.Sprintf("Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n%s\n--b%d--\n", i, i, deep, i)
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"nested too deep", deep, "nested more than"},
		{"bad Content-Type", "Content-Type: text/plain; =x\n\nbody\n", "line 1: Content-Type"},
		{"no boundary", "Content-Type: multipart/mixed\n\nbody\n", "no boundary parameter"},
		{"bad base64", "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\n!!!!\n", "base64 part"},
		{"bad quoted-printable", "Content-Type: text/plain\nContent-Transfer-Encoding: quoted-printable\n\na\x01b\n", "quoted-printable part"},
		{"unknown encoding", "Content-Type: text/plain\nContent-Transfer-Encoding: x-uuencode\n\nbody\n", "unknown Content-Transfer-Encoding"},
	} {
		if _, err := Parse([]byte(tt.doc), 1); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Parse error = %v; want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestTransferDecode: the encodings cloud-init's email parser decodes.
func TestTransferDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ cte, body, want string }{
		{"", "as is", "as is"},
		{"7BIT", "as is", "as is"},
		{" binary ", "as is", "as is"},
		{"base64", "aG\r\nk=", "hi"},
		{"Quoted-Printable", "a=3Db=\nc", "a=bc"},
	} {
		got, err := transferDecode(tt.cte, []byte(tt.body))
		if err != nil || string(got) != tt.want {
			t.Errorf("transferDecode(%q, %q) = %q, %v; want %q", tt.cte, tt.body, got, err, tt.want)
		}
	}
}

// TestWriteParses: what Write writes, Parse reads back part for part.
func TestWriteParses(t *testing.T) {
	t.Parallel()
	in := [][]byte{[]byte("Content-Type: text/x-shellscript\n\n#!/bin/bash\necho 1"), []byte("Content-Type: text/cloud-config\n\n#cloud-config\n")}
	doc, err := Write(in)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := Parse(doc, 1)
	if err != nil || len(parts) != 2 {
		t.Fatalf("Parse(Write) = %d parts, %v", len(parts), err)
	}
	for i, p := range parts {
		if !bytes.Equal(p.Raw, in[i]) {
			t.Errorf("part %d = %q; want %q", i, p.Raw, in[i])
		}
	}
}
