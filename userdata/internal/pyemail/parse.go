package pyemail

import (
	"strings"
)

// Dialect is the Python release whose email parser is followed.
type Dialect uint8

const (
	// Python3 is CPython 3 (cloud-init 22.x and later; AL2023's 22.2.2).
	Python3 Dialect = iota
	// Python2 is CPython 2.7, whose headerRE needs at least one character
	// before the ':' of a header (Lib/email/feedparser.py L35 in 2.7,
	// "[\041-\071\073-\176]{1,}:", against 3's "*:").
	Python2
)

// Field is one header as Python keeps it: the name as written and the
// value as compat32's header_source_parse leaves it (leading spaces and
// tabs of the first line removed, continuation lines kept, trailing line
// ends removed).
type Field struct {
	Name, Value string
	Line        int // 1-based line of the field's first line
}

// Message is one message or part.
type Message struct {
	Fields []Field
	// Parts are the subparts of a multipart, or the one nested message of
	// a message/* part (Python's list payload).
	Parts []*Message
	// Text is the text payload of any other message, line ends as written.
	Text string
	// TextLine is the 1-based line Text starts on; 0 when Text is empty.
	TextLine int
	// Defects are what the parser noted, by Python's defect class name.
	Defects []string
	// Unmodelled says what of this message the package does not follow
	// (an RFC 2231 boundary); "" when it follows everything.
	Unmodelled string
	// list says the payload is a list (Parts), as is_multipart() does.
	list        bool
	defaultType string
}

// IsMultipart is Python's is_multipart: the payload is a list of parts.
func (m *Message) IsMultipart() bool { return m.list }

// Walk returns the message and every part beneath it, depth first, as
// Message.walk does.
func (m *Message) Walk() []*Message {
	out := []*Message{m}
	for _, p := range m.Parts {
		out = append(out, p.Walk()...)
	}
	return out
}

// line is one line of input with its line end.
type line struct {
	text string
	n    int // 1-based line number, counting "\n" only, as editors do
}

// splitLines cuts text after every "\r\n", "\r" and "\n"
// (StringIO(newline=”).readlines in BufferedSubFile.push).
func splitLines(text string) []line {
	var out []line
	n := 1
	for len(text) > 0 {
		end := strings.IndexAny(text, "\r\n")
		switch {
		case end < 0:
			end = len(text)
		case text[end] == '\r' && end+1 < len(text) && text[end+1] == '\n':
			end += 2
		default:
			end++
		}
		out = append(out, line{text: text[:end], n: n})
		n += strings.Count(text[:end], "\n")
		text = text[end:]
	}
	return out
}

// input is BufferedSubFile: lines read in order, lines pushed back, and a
// stack of predicates at whose line reading stops (a false end of file).
type input struct {
	lines []line
	next  int
	back  []line // pushed back, last first
	eof   []func(string) bool
}

// readline returns the next line, or false at the end of the input or
// when a predicate, innermost first, matches the line (which stays).
func (in *input) readline() (line, bool) {
	var l line
	switch {
	case len(in.back) > 0:
		l = in.back[len(in.back)-1]
		in.back = in.back[:len(in.back)-1]
	case in.next < len(in.lines):
		l = in.lines[in.next]
		in.next++
	default:
		return line{}, false
	}
	for i := len(in.eof) - 1; i >= 0; i-- {
		if in.eof[i](l.text) {
			in.back = append(in.back, l)
			return line{}, false
		}
	}
	return l, true
}

func (in *input) unread(l line) { in.back = append(in.back, l) }

// rest reads every line up to the (false) end of the input.
func (in *input) rest() []line {
	var out []line
	for {
		l, ok := in.readline()
		if !ok {
			return out
		}
		out = append(out, l)
	}
}

// Parse reads text as email.message_from_string does in the dialect's
// Python.
func Parse(text string, d Dialect) *Message {
	p := &parser{in: &input{lines: splitLines(text)}, d: d}
	m := p.newMessage("text/plain")
	p.parse(m)
	return m
}

type parser struct {
	in *input
	d  Dialect
	// last is the message created last (FeedParser._last), whose text
	// loses the line end before the next delimiter.
	last *Message
}

// newMessage is FeedParser._new_message.
func (p *parser) newMessage(defaultType string) *Message {
	m := &Message{defaultType: defaultType}
	p.last = m
	return m
}

// isHeaderLine is headerRE.match.
func (p *parser) isHeaderLine(s string) bool {
	if strings.HasPrefix(s, "From ") || strings.HasPrefix(s, " ") || strings.HasPrefix(s, "\t") {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i > 0 || p.d == Python3
		case c < 041 || c > 0176:
			return false
		}
	}
	return false
}

// isBlank is NLCRE.match: the line starts with a line end.
func isBlank(s string) bool { return s != "" && (s[0] == '\r' || s[0] == '\n') }

// parse is FeedParser._parsegen for message m.
func (p *parser) parse(m *Message) {
	var headers []line
	for {
		l, ok := p.in.readline()
		if !ok {
			break
		}
		if !p.isHeaderLine(l.text) {
			if !isBlank(l.text) {
				m.Defects = append(m.Defects, "MissingHeaderBodySeparatorDefect")
				p.in.unread(l)
			}
			break
		}
		headers = append(headers, l)
	}
	p.parseHeaders(m, headers)
	switch ct := m.ContentType(); {
	case ct == "message/delivery-status":
		p.deliveryStatus(m)
	case strings.HasPrefix(ct, "message/"):
		sub := p.newMessage("text/plain")
		m.Parts, m.list = []*Message{sub}, true
		p.parse(sub)
	case strings.HasPrefix(ct, "multipart/"):
		p.multipart(m)
	default:
		m.setText(p.in.rest())
	}
}

func (m *Message) setText(lines []line) {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
	}
	m.Text = b.String()
	if len(lines) > 0 {
		m.TextLine = lines[0].n
	}
}

// parseHeaders is FeedParser._parse_headers with compat32's
// header_source_parse.
func (p *parser) parseHeaders(m *Message, lines []line) {
	var cur []line
	flush := func() {
		if len(cur) == 0 {
			return
		}
		name, value, _ := strings.Cut(cur[0].text, ":")
		value = strings.TrimLeft(value, " \t")
		for _, c := range cur[1:] {
			value += c.text
		}
		m.Fields = append(m.Fields, Field{Name: name, Value: strings.TrimRight(value, "\r\n"), Line: cur[0].n})
		cur = nil
	}
	for i, l := range lines {
		if l.text[0] == ' ' || l.text[0] == '\t' {
			if len(cur) == 0 {
				m.Defects = append(m.Defects, "FirstHeaderLineIsContinuationDefect")
				continue
			}
			cur = append(cur, l)
			continue
		}
		flush()
		if strings.HasPrefix(l.text, "From ") {
			switch i {
			case 0: // the unix-from line
			case len(lines) - 1:
				p.in.unread(l) // the first line of the body
				return
			default:
				m.Defects = append(m.Defects, "MisplacedEnvelopeHeaderDefect")
			}
			continue
		}
		if strings.HasPrefix(l.text, ":") {
			m.Defects = append(m.Defects, "InvalidHeaderDefect")
			continue
		}
		cur = []line{l}
	}
	flush()
}

// deliveryStatus reads blocks of headers separated by blank lines, each a
// nested message without a body.
func (p *parser) deliveryStatus(m *Message) {
	m.list = true
	for {
		p.in.eof = append(p.in.eof, isBlank)
		sub := p.newMessage("text/plain")
		m.Parts = append(m.Parts, sub)
		p.parse(sub)
		p.in.eof = p.in.eof[:len(p.in.eof)-1]
		p.in.readline()
		l, ok := p.in.readline()
		if !ok {
			return
		}
		p.in.unread(l)
	}
}

// delimiter matches the boundaryre of a multipart: "--" and the boundary,
// optionally "--", then spaces or tabs, then at most a line end. It
// reports whether the line is a delimiter and whether it closes.
func delimiter(sep string) func(string) (bool, bool) {
	return func(s string) (bool, bool) {
		if !strings.HasPrefix(s, sep) {
			return false, false
		}
		rest := s[len(sep):]
		end := strings.HasPrefix(rest, "--")
		if end {
			rest = rest[2:]
		}
		switch strings.TrimLeft(rest, " \t") {
		case "", "\r\n", "\r", "\n":
			return true, end
		}
		return false, false
	}
}

// multipart reads a multipart body: the preamble, then each part up to
// the next delimiter, then the epilogue after the closing one
// (FeedParser._parsegen, the multipart branch).
func (p *parser) multipart(m *Message) {
	if _, _, un := m.Param("content-type", "boundary"); un {
		m.Unmodelled = "an RFC 2231 encoded boundary parameter"
	}
	boundary, ok := m.Boundary()
	if !ok {
		m.Defects = append(m.Defects, "NoBoundaryInMultipartDefect")
		m.setText(p.in.rest())
		return
	}
	match := delimiter("--" + boundary)
	isDelim := func(s string) bool { ok, _ := match(s); return ok }
	var preamble []line
	started, closed := false, false
	for {
		l, ok := p.in.readline()
		if !ok {
			break
		}
		delim, end := match(l.text)
		if !delim {
			preamble = append(preamble, l) // only the preamble reaches here
			continue
		}
		if end {
			closed = true
			break
		}
		started = true
		m.list = true
		for { // consecutive delimiters make no empty part
			next, ok := p.in.readline()
			if !ok || !isDelim(next.text) {
				if ok {
					p.in.unread(next)
				}
				break
			}
		}
		defaultType := "text/plain"
		if m.ContentType() == "multipart/digest" {
			defaultType = "message/rfc822"
		}
		sub := p.newMessage(defaultType)
		m.Parts = append(m.Parts, sub)
		p.in.eof = append(p.in.eof, isDelim)
		p.parse(sub)
		p.in.eof = p.in.eof[:len(p.in.eof)-1]
		p.last.trimLineEnd() // the line end before a delimiter belongs to it
		p.last = m
	}
	switch {
	case !started:
		m.Defects = append(m.Defects, "StartBoundaryNotFoundDefect")
		m.list, m.Parts = false, nil
		m.setText(preamble)
		p.in.rest()
	case !closed:
		m.Defects = append(m.Defects, "CloseBoundaryNotFoundDefect")
	default:
		p.in.rest() // the epilogue
	}
}

// trimLineEnd removes the line end that precedes the next delimiter from
// a text payload; a multipart's is in its epilogue, which is not kept.
// (Python applies it to the message created last, which, after a nested
// message/* part, is the nested message.)
func (m *Message) trimLineEnd() {
	if m.list || strings.HasPrefix(m.ContentType(), "multipart/") {
		return
	}
	switch {
	case strings.HasSuffix(m.Text, "\r\n"):
		m.Text = m.Text[:len(m.Text)-2]
	case strings.HasSuffix(m.Text, "\n"), strings.HasSuffix(m.Text, "\r"):
		m.Text = m.Text[:len(m.Text)-1]
	}
	if m.Text == "" {
		m.TextLine = 0
	}
}
