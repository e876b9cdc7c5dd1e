package pyemail

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// leaf is a non-multipart message as a test sees it.
type leaf struct {
	Type, Filename, Text string
	Line                 int
}

func leavesOf(m *Message) []leaf {
	var out []leaf
	for _, p := range m.Walk() {
		if p.IsMultipart() {
			continue
		}
		name, _ := p.Filename()
		out = append(out, leaf{p.ContentType(), name, p.Text, p.TextLine})
	}
	return out
}

// TestParse pins the rules of CPython's Lib/email/feedparser.py (3.11)
// and message.py that cloud-init's reading of userData turns on.
func TestParse(t *testing.T) {
	t.Parallel()
	const head = "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n"
	tests := []struct {
		name, doc string
		want      []leaf
	}{
		{"closed", head + "\n--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n--b--\n",
			[]leaf{{"text/x-shellscript", "", "#!/bin/bash", 7}}},
		// _parsegen: a line that is not a header ends the header block
		// and is the body's first line (MissingHeaderBodySeparatorDefect).
		{"no empty line before the first delimiter", head + "--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\n--b--\n",
			[]leaf{{"text/x-shellscript", "", "#!/bin/bash", 6}}},
		{"a header runs into the script", head + "\n--b\nContent-Type: text/x-shellscript\n#!/bin/bash\n--b--\n",
			[]leaf{{"text/x-shellscript", "", "#!/bin/bash", 6}}},
		// "echo: x" matches headerRE: it is a header, and the body starts
		// after the empty line.
		{"a body line that looks like a header", head + "\n--b\necho: x\n\nbody\n--b--\n",
			[]leaf{{"text/plain", "", "body", 7}}},
		// boundaryre: trailing spaces allowed; a longer line is not one.
		{"delimiters with blanks, and a longer line", head + "\n--b  \n\nx\n--bb\n--b--\t\n",
			[]leaf{{"text/plain", "", "x\n--bb", 6}}},
		{"doubled delimiters make no empty part", head + "\n--b\n--b\n\nx\n--b--\n",
			[]leaf{{"text/plain", "", "x", 7}}},
		// The line end before EOF goes too: the part's text loses its
		// last line end whatever ended it.
		{"unclosed: the last part runs to the end", head + "\n--b\n\nx\n",
			[]leaf{{"text/plain", "", "x", 6}}},
		{"CRLF", "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\nx\r\n--b--\r\n",
			[]leaf{{"text/plain", "", "x", 6}}},
		// get_param: names lower-cased, values unquoted; get_filename from
		// Content-Disposition, else Content-Type's name.
		{"parameters", "MIME-Version: 1.0\nContent-Type: multipart/mixed;\n BOUNDARY = \"b\" \n\n--b\nContent-Disposition: attachment; filename=\"x;y.sh\"\n\na\n--b\nContent-Type: text/plain; name=n.sh\n\nc\n--b--\n",
			[]leaf{{"text/plain", "x;y.sh", "a", 8}, {"text/plain", "n.sh", "c", 12}}},
		// get_content_type: a value that is not type/subtype is text/plain.
		{"a malformed Content-Type", "MIME-Version: 1.0\nContent-Type: x-shellscript\n\n#!/bin/bash\n",
			[]leaf{{"text/plain", "", "#!/bin/bash\n", 4}}},
		// An inner part ends at the outer delimiter (RFC 2046 §5.1.2).
		{"nested, unclosed inside", head + "\n--b\nContent-Type: multipart/mixed; boundary=c\n\n--c\n\ninner\n--b\n\nouter\n--b--\n",
			[]leaf{{"text/plain", "", "inner", 9}, {"text/plain", "", "outer", 12}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, leavesOf(Parse(tc.doc, Python3))); diff != "" {
				t.Errorf("leaves (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoParts: without a boundary, or without a delimiter, a multipart
// keeps its text as its payload and has no parts.
func TestNoParts(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		"MIME-Version: 1.0\nContent-Type: multipart/mixed\n\n--b\n\nx\n--b--\n",
		"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=c\n\n--b\n\nx\n--b--\n",
	} {
		if m := Parse(doc, Python3); m.IsMultipart() || len(m.Parts) != 0 {
			t.Errorf("Parse(%q): %d parts; want none", doc, len(m.Parts))
		}
	}
}

// TestDialects: Python 2.7's headerRE needs a name before ':'.
func TestDialects(t *testing.T) {
	t.Parallel()
	doc := "MIME-Version: 1.0\nContent-Type: text/x-shellscript\n:x\n\n#!/bin/bash\n"
	if got := Parse(doc, Python3).Text; got != "#!/bin/bash\n" {
		t.Errorf("Python 3 body %q", got)
	}
	if got := Parse(doc, Python2).Text; got != ":x\n\n#!/bin/bash\n" {
		t.Errorf("Python 2.7 body %q", got)
	}
}

// TestPayload: get_payload(decode=True) and fully_decoded_payload. ran:
// Debian 12's python3 (3.11.2) with cloud-init 22.4.2 on each case.
func TestPayload(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
		unmodelled      bool
	}{
		{"base64", "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGk=\n", "hi", false},
		{"base64 without padding", "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGk\n", "hi", false},
		// cte is compared as written but for case: " base64" with a
		// trailing space is no encoding Python knows.
		{"a trailing space in the encoding", "Content-Type: text/plain\nContent-Transfer-Encoding: base64 \n\naGk=\n", "aGk=\n", false},
		{"not strict base64", "Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGk=!\n", "", true},
		// raw-unicode-escape: U+2014 becomes the text \u2014.
		{"a character after U+00FF", "Content-Type: text/plain\n\na — b\n", `a \u2014 b` + "\n", false},
		// U+00E9 becomes the byte 0xE9, which is not UTF-8: write_file
		// refuses the surrogate.
		{"a character up to U+00FF", "Content-Type: text/plain\n\ncafé\n", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Parse(tc.doc, Python3).Payload()
			if (why != "") != tc.unmodelled || string(got) != tc.want {
				t.Errorf("Payload() = %q, %q; want %q, unmodelled %v", got, why, tc.want, tc.unmodelled)
			}
		})
	}
}
