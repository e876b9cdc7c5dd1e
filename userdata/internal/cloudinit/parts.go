package cloudinit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/pyemail"
)

// Part is one part cloud-init hands to its handlers
// (cloudinit/handlers/__init__.py walk, user_data.py _process_msg): every
// message of the MIME document but the multipart containers, in document
// order.
type Part struct {
	// Type is Message.get_content_type: text/plain when the part has no
	// Content-Type; text/x-not-multipart for userData that is not MIME.
	Type string
	// Filename is Message.get_filename, "" when the part names none.
	Filename string
	Body     []byte // get_payload(decode=True) as cloud-init writes it
	// Line is the 1-based line of the body's first line in the userData;
	// 0 when the body is empty or transfer-encoded.
	Line int
	// Unmodelled says why what cloud-init makes of the part is not known
	// ("" when it is).
	Unmodelled string
}

// Parts reads userData as cloud-init does (user_data.py convert_string):
// MIME when "mime-version:" appears, in any case, in its first 4096
// bytes, read with Python's email parser; otherwise one
// text/x-not-multipart part. differs is set when Python 2.7's parser
// reads the document into other parts than Python 3's.
func Parts(userData []byte) (parts []Part, differs string, err error) {
	if !mimedoc.LooksMIME(userData) {
		return []Part{{Type: "text/x-not-multipart", Body: userData, Line: 1}}, "", nil
	}
	msg := pyemail.Parse(string(userData), pyemail.Python3)
	if err := noParts(msg); err != nil {
		return nil, "", err
	}
	parts = leaves(msg)
	if !slices.EqualFunc(parts, leaves(pyemail.Parse(string(userData), pyemail.Python2)), equalParts) {
		differs = "Python 2.7's email parser, which cloud-init builds before 20.x run on, and Python 3's read this MIME document into different parts (a header line starting with ':')"
	}
	return parts, differs, nil
}

// noParts says why a multipart document holds no part cloud-init handles:
// a multipart without a boundary, or without a delimiter line, keeps its
// text as its payload, and cloud-init skips multipart containers.
func noParts(msg *pyemail.Message) error {
	if !strings.HasPrefix(msg.ContentType(), "multipart/") || msg.IsMultipart() {
		return nil
	}
	if msg.Unmodelled != "" {
		return nil // reported as the part's
	}
	if _, ok := msg.Boundary(); !ok {
		return fmt.Errorf("its Content-Type is %s without a boundary parameter, so Python's email parser finds no parts and cloud-init runs nothing", msg.ContentType())
	}
	b, _ := msg.Boundary()
	return fmt.Errorf("no line is the delimiter --%s, so Python's email parser finds no parts and cloud-init runs nothing", b)
}

// leaves are the parts of msg cloud-init handles.
func leaves(msg *pyemail.Message) []Part {
	var out []Part
	for _, m := range msg.Walk() {
		if strings.HasPrefix(m.ContentType(), "multipart/") && m.Unmodelled == "" {
			continue
		}
		p := Part{Type: m.ContentType(), Line: m.TextLine, Unmodelled: m.Unmodelled}
		name, unmodelled := m.Filename()
		if unmodelled && p.Unmodelled == "" {
			p.Unmodelled = "an RFC 2231 encoded file name"
		}
		p.Filename = name
		if !m.IsMultipart() && p.Unmodelled == "" {
			body, why := m.Payload()
			p.Body, p.Unmodelled = body, why
			if string(body) != m.Text {
				p.Line = 0
			}
		}
		out = append(out, p)
	}
	return out
}

func equalParts(a, b Part) bool {
	return a.Type == b.Type && a.Filename == b.Filename && string(a.Body) == string(b.Body) && a.Line == b.Line && a.Unmodelled == b.Unmodelled
}
