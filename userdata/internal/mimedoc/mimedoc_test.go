package mimedoc

import (
	"bytes"
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
