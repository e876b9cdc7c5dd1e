package pyemail

import (
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, every text payload is a piece of the
// input starting on the line it reports, and both dialects finish.
func FuzzParse(f *testing.F) {
	f.Add("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n--b--\n")
	f.Add("Content-Type: multipart/mixed; boundary=b\n--b\nContent-Type: message/rfc822\n\nContent-Type: multipart/digest; boundary=c\n\n--c\n\nx\n--b--\n")
	f.Add("Content-Type: message/delivery-status\n\nA: 1\n\nB: 2\n")
	f.Fuzz(func(t *testing.T, doc string) {
		for _, d := range []Dialect{Python3, Python2} {
			for _, m := range Parse(doc, d).Walk() {
				if m.Text == "" {
					continue
				}
				if !strings.Contains(doc, m.Text) {
					t.Fatalf("payload %q is not in the input", m.Text)
				}
				if m.TextLine < 1 || m.TextLine > strings.Count(doc, "\n")+1 {
					t.Fatalf("payload line %d outside the input", m.TextLine)
				}
				_, _ = m.Payload()
				_, _ = m.Filename()
			}
		}
	})
}
