package mimedoc

import (
	"bytes"
	"testing"
)

// FuzzParse checks that Parse never panics, that every part's line lies
// inside the input, and that a document Write produces from the parts
// parses back to the same bodies.
func FuzzParse(f *testing.F) {
	f.Add([]byte("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n--//--\n"))
	f.Add([]byte("Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: multipart/mixed; boundary=c\n\n--c\n\nx\n--c--\n--b\n"))
	f.Add([]byte("Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := Parse(data, 1)
		if err != nil {
			return
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		raws := make([][]byte, 0, len(parts))
		for _, p := range parts {
			if p.Line < 0 || p.Line > lines+1 {
				t.Fatalf("part line %d outside the %d-line input", p.Line, lines)
			}
			if bytes.ContainsAny(p.Body, "\r") || p.MediaType == "" {
				return // Write's parts must be LF text with a type
			}
			raws = append(raws, append([]byte("Content-Type: "+p.MediaType+"\n\n"), p.Body...))
		}
		if len(raws) == 0 {
			return // a document of no parts is not one Write produces
		}
		out, err := Write(raws)
		if err != nil {
			t.Fatalf("Write: %v", err)
		}
		again, err := Parse(out, 1)
		if err != nil || len(again) != len(raws) {
			t.Fatalf("Write's output parses as %d parts (%v); want %d", len(again), err, len(raws))
		}
		for i := range again {
			if !bytes.Equal(again[i].Body, parts[i].Body) {
				t.Fatalf("part %d body %q; want %q", i, again[i].Body, parts[i].Body)
			}
		}
	})
}
