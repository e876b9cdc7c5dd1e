package cloudinit

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// python is a Python process running testdata/walk.py: it reads MIME
// userData the way cloud-init does and lists the parts cloud-init hands to
// its handlers.
type python struct {
	in     *json.Encoder
	out    *bufio.Scanner
	reader string // "cloud-init" or "email"
}

// startPython starts walk.py under the first interpreter that can import
// cloud-init (Debian's cloud-init package installs it for /usr/bin/python3),
// else any python3; it skips the test when there is none.
func startPython(t testing.TB) *python {
	t.Helper()
	var bin string
	for _, candidate := range []string{"/usr/bin/python3", "python3"} {
		if err := exec.Command(candidate, "-c", "import cloudinit").Run(); err == nil {
			bin = candidate
			break
		}
	}
	if bin == "" {
		path, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not installed: cannot compare the MIME reading with Python's email parser (apt-get install -y python3 cloud-init)")
		}
		bin = path
	}
	cmd := exec.Command(bin, "testdata/walk.py")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	p := &python{in: json.NewEncoder(stdin), out: bufio.NewScanner(stdout)}
	p.out.Buffer(make([]byte, 1<<20), 1<<24)
	var hello struct{ Reader string }
	p.next(t, &hello)
	p.reader = hello.Reader
	if p.reader != "cloud-init" {
		t.Logf("cloud-init is not importable by %s: comparing with email.message_from_string, which cloud-init's convert_string calls", bin)
	}
	return p
}

// fataler is what the helpers need of *testing.T and *rapid.T.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func (p *python) next(t fataler, v any) {
	t.Helper()
	if !p.out.Scan() {
		t.Fatalf("walk.py stopped: %v", p.out.Err())
	}
	if err := json.Unmarshal(p.out.Bytes(), v); err != nil {
		t.Fatalf("walk.py: %v: %s", err, p.out.Bytes())
	}
}

// pyPart is one part as walk.py lists it.
type pyPart struct {
	Type       string  `json:"type"`
	Filename   string  `json:"filename"`
	Body       *string `json:"body"`
	Unwritable bool    `json:"unwritable"`
}

func (p *python) parts(t fataler, doc string) []pyPart {
	t.Helper()
	if err := p.in.Encode(map[string]string{"doc": doc}); err != nil {
		t.Fatal(err)
	}
	var got struct{ Parts []pyPart }
	p.next(t, &got)
	return got.Parts
}

// asPython lists our reading as walk.py does: a part whose payload the
// model says cloud-init cannot write is "unwritable"; one it does not
// model otherwise is left out of the comparison by the caller.
func asPython(parts []Part) []pyPart {
	out := make([]pyPart, 0, len(parts))
	for _, p := range parts {
		q := pyPart{Type: p.Type, Filename: p.Filename}
		switch {
		case strings.Contains(p.Unmodelled, "cannot write"):
			q.Unwritable = true
		case p.Body != nil:
			b := base64.StdEncoding.EncodeToString(p.Body)
			q.Body = &b
		}
		out = append(out, q)
	}
	return out
}

// TestPartsAgreeWithPython: on MIME userData of many header and boundary
// layouts (blank line or none after the headers, folded and oddly spaced
// headers, quoted and bare boundaries, delimiters with trailing blanks,
// doubled, missing or unclosed, parts without headers or whose header runs
// straight into the script, nested multiparts, CRLF and bare CR), Parts
// finds the parts cloud-init's Python finds, with the same types, file
// names and payloads (issue 43: Lint reads AL2's MIME as cloud-init does).
func TestPartsAgreeWithPython(t *testing.T) {
	py := startPython(t)
	rapid.Check(t, func(t *rapid.T) {
		doc := genLayout().Draw(t, "doc")
		want := py.parts(t, doc)
		got, _, err := Parts([]byte(doc))
		if err != nil {
			if len(want) != 0 {
				t.Fatalf("Parts: %v; Python finds %d parts", err, len(want))
			}
			return
		}
		mine := asPython(got)
		for i := range got {
			if got[i].Unmodelled != "" && !mine[i].Unwritable && i < len(want) {
				mine[i].Body, mine[i].Unwritable = want[i].Body, want[i].Unwritable // not modelled: not compared
			}
		}
		if diff := cmp.Diff(want, mine); diff != "" {
			t.Fatalf("parts (-Python +Parts):\n%s\ndoc:\n%q", diff, doc)
		}
	})
}

// genLayout draws a MIME document from the layouts people and tools write.
func genLayout() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		nl := rapid.SampledFrom([]string{"\n", "\n", "\r\n", "\r"}).Draw(t, "nl")
		boundary := rapid.SampledFrom([]string{"b", "==BOUNDARY==", "//", "MIMEBOUNDARY", "a b", "x:y", "b-1.2_3+4/5=6?"}).Draw(t, "boundary")
		var b strings.Builder
		b.WriteString(header(t, "top", boundary, nl))
		b.WriteString(body(t, boundary, nl, 0))
		return b.String()
	})
}

// header draws the top-level header block of a multipart message.
func header(t *rapid.T, label, boundary, nl string) string {
	mime := "MIME-Version: 1.0" + nl
	name := rapid.SampledFrom([]string{"Content-Type", "content-type", "CONTENT-TYPE"}).Draw(t, label+"-name")
	colon := rapid.SampledFrom([]string{": ", ":", ":\t", ":  "}).Draw(t, label+"-colon")
	param := rapid.SampledFrom([]string{
		`boundary="` + boundary + `"`, "boundary=" + boundary, "BOUNDARY=" + boundary, ` boundary = "` + boundary + `" `,
		`charset="us-ascii"; boundary="` + boundary + `"`, "boundary='" + boundary + "'",
	}).Draw(t, label+"-param")
	ctype := name + colon + "multipart/mixed;" + rapid.SampledFrom([]string{" ", "", nl + " ", nl + "\t"}).Draw(t, label+"-fold") + param + nl
	head := rapid.SampledFrom([]string{mime + ctype, ctype + mime, mime + "X-Other: 1" + nl + ctype, "From nobody" + nl + mime + ctype}).Draw(t, label+"-order")
	if rapid.Bool().Draw(t, label+"-bad") {
		head += rapid.SampledFrom([]string{":no-name" + nl, "Number-Attachments: 2" + nl}).Draw(t, label+"-extra")
	}
	sep := rapid.SampledFrom([]string{nl, nl, "", "  " + nl, "preamble text" + nl, nl + "preamble" + nl + nl}).Draw(t, label+"-sep")
	return head + sep
}

// body draws the parts and delimiters of a multipart body.
func body(t *rapid.T, boundary, nl string, depth int) string {
	delim := "--" + boundary
	var b strings.Builder
	n := rapid.IntRange(0, 3).Draw(t, "parts")
	for i := range n {
		b.WriteString(delim + rapid.SampledFrom([]string{"", "", " ", "\t", "  "}).Draw(t, "ws") + nl)
		if rapid.IntRange(0, 9).Draw(t, "double") == 0 {
			b.WriteString(delim + nl)
		}
		if depth == 0 && rapid.IntRange(0, 5).Draw(t, "nested") == 0 {
			inner := boundary + "x"
			b.WriteString("Content-Type: multipart/mixed; boundary=\"" + inner + "\"" + nl + nl)
			b.WriteString(body(t, inner, nl, depth+1))
			continue
		}
		b.WriteString(part(t, i, nl))
	}
	switch rapid.IntRange(0, 5).Draw(t, "close") {
	case 0: // unclosed
	case 1:
		b.WriteString(delim + "--")
	case 2:
		b.WriteString(delim + "-- " + nl + "epilogue" + nl)
	case 3:
		b.WriteString(delim + nl) // an opening delimiter at the end
	default:
		b.WriteString(delim + "--" + nl)
	}
	return b.String()
}

// part draws one part: its headers, the separator and a script.
func part(t *rapid.T, i int, nl string) string {
	var h []string
	if rapid.IntRange(0, 5).Draw(t, "typed") > 0 {
		ctype := rapid.SampledFrom([]string{"text/x-shellscript", "text/cloud-boothook", "text/plain", "Text/X-ShellScript", "text/x-shellscript; charset=\"us-ascii\"", "x-shellscript", "message/rfc822"}).Draw(t, "ctype")
		h = append(h, rapid.SampledFrom([]string{"Content-Type: ", "Content-Type:", "content-type:  "}).Draw(t, "ct")+ctype)
	}
	if rapid.IntRange(0, 3).Draw(t, "named") == 0 {
		h = append(h, rapid.SampledFrom([]string{`Content-Disposition: attachment; filename="a.sh"`, "Content-Disposition: attachment; filename=z.sh",
			`Content-Disposition: attachment; filename="x;y.sh"`, `Content-Type: text/x-shellscript; name="n.sh"`}).Draw(t, "disp"))
	}
	encoded := rapid.IntRange(0, 5).Draw(t, "encoded") == 0
	if encoded {
		h = append(h, rapid.SampledFrom([]string{"Content-Transfer-Encoding: base64", "Content-Transfer-Encoding: BASE64", "Content-Transfer-Encoding:  base64 "}).Draw(t, "cte"))
	}
	script := rapid.SampledFrom([]string{
		"#!/bin/bash" + nl + "echo " + string(rune('a'+i)),
		"#!/bin/bash" + nl + "echo: looks like a header" + nl + "/etc/eks/bootstrap.sh c",
		"#cloud-boothook" + nl + "echo hook",
		"#!/bin/sh" + nl + "echo café —",
		"",
	}).Draw(t, "script")
	if encoded {
		script = base64.StdEncoding.EncodeToString([]byte(script))
	}
	sep := rapid.SampledFrom([]string{nl, nl, ""}).Draw(t, "part-sep")
	var b strings.Builder
	for _, l := range h {
		b.WriteString(l + nl)
	}
	b.WriteString(sep + script + rapid.SampledFrom([]string{nl, nl + nl, ""}).Draw(t, "end") + "")
	if !strings.HasSuffix(b.String(), nl) {
		b.WriteString(nl)
	}
	return b.String()
}
