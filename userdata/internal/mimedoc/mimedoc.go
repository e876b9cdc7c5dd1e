package mimedoc

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/textproto"
	"strings"
)

// MaxDepth bounds nested multipart documents.
const MaxDepth = 8

// Part is one leaf part of a MIME document.
type Part struct {
	Header    textproto.MIMEHeader
	MediaType string // lower case; text/plain when the part has none
	Raw       []byte // the whole part as written: headers, blank line, body
	Body      []byte // the body, transfer-decoded
	Line      int    // 1-based line of the body's first byte in the document; 0 if the body was transfer-encoded
}

// LooksMIME applies cloud-init's rule: userData is a MIME message when
// "mime-version:" appears, in any case, in its first 4096 bytes.
func LooksMIME(b []byte) bool {
	head := b
	if len(head) > 4096 {
		head = head[:4096]
	}
	return bytes.Contains(bytes.ToLower(head), []byte("mime-version:"))
}

// StartsWithHeader is Karpenter's rule for custom userData: it starts
// with a MIME-Version or Content-Type header.
func StartsWithHeader(b []byte) bool {
	l := bytes.ToLower(b[:min(len(b), 32)])
	return bytes.HasPrefix(l, []byte("mime-version:")) || bytes.HasPrefix(l, []byte("content-type:"))
}

// Parse reads a MIME message and returns its leaf parts in document
// order. line is the 1-based line of data's first byte.
func Parse(data []byte, line int) ([]Part, error) {
	return parseMessage(data, line, 0)
}

func parseMessage(data []byte, line, depth int) ([]Part, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("MIME parts are nested more than %d deep", MaxDepth)
	}
	header, body, bodyLine, err := SplitHeader(data, line)
	if err != nil {
		return nil, err
	}
	mediaType := "text/plain"
	var params map[string]string
	if ct := header.Get("Content-Type"); ct != "" {
		mediaType, params, err = mime.ParseMediaType(ct)
		if err != nil {
			return nil, fmt.Errorf("line %d: Content-Type %q: %v", line, ct, err)
		}
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		decoded, err := transferDecode(header.Get("Content-Transfer-Encoding"), body)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if !bytes.Equal(decoded, body) {
			bodyLine = 0
		}
		return []Part{{Header: header, MediaType: mediaType, Raw: data, Body: decoded, Line: bodyLine}}, nil
	}
	boundary := params["boundary"]
	if boundary == "" {
		return nil, fmt.Errorf("line %d: %s has no boundary parameter", line, mediaType)
	}
	raws, err := splitMultipart(body, bodyLine, boundary)
	if err != nil {
		return nil, err
	}
	var parts []Part
	for _, r := range raws {
		leaves, err := parseMessage(r.Data, r.Line, depth+1)
		if err != nil {
			return nil, err
		}
		parts = append(parts, leaves...)
	}
	return parts, nil
}

// TopLevelParts splits a multipart message into its parts as written,
// without descending into nested multiparts; a message that is not
// multipart is its own single part.
func TopLevelParts(data []byte) ([]RawPart, error) {
	header, body, bodyLine, err := SplitHeader(data, 1)
	if err != nil {
		return nil, err
	}
	ct := header.Get("Content-Type")
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, fmt.Errorf("Content-Type %q: %v", ct, err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		var b bytes.Buffer
		fmt.Fprintf(&b, "Content-Type: %s\n", ct)
		if cte := header.Get("Content-Transfer-Encoding"); cte != "" {
			fmt.Fprintf(&b, "Content-Transfer-Encoding: %s\n", cte)
		}
		b.WriteByte('\n')
		b.Write(body)
		return []RawPart{{Data: b.Bytes(), Line: 1}}, nil
	}
	if params["boundary"] == "" {
		return nil, fmt.Errorf("%s has no boundary parameter", mediaType)
	}
	return splitMultipart(body, bodyLine, params["boundary"])
}

// RawPart is one part of a multipart body as written.
type RawPart struct {
	Data []byte
	Line int // 1-based line of Data's first byte
}

// SplitHeader separates a message's header block from its body at the
// first empty line. A message whose first line is empty has no headers.
func SplitHeader(data []byte, line int) (textproto.MIMEHeader, []byte, int, error) {
	end, bodyStart, n := -1, len(data), 0
	for off := 0; off < len(data); {
		nl := bytes.IndexByte(data[off:], '\n')
		l := data[off:]
		next := len(data)
		if nl >= 0 {
			l = data[off : off+nl]
			next = off + nl + 1
		}
		n++
		if len(bytes.TrimSuffix(l, []byte("\r"))) == 0 {
			end, bodyStart = off, next
			break
		}
		off = next
	}
	if end < 0 {
		// No blank Line: all headers, and an empty body on the last line.
		end, n = len(data), max(n-1, 0)
	}
	block := data[:end]
	hdr := textproto.MIMEHeader{}
	if len(bytes.TrimSpace(block)) > 0 {
		r := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(block), strings.NewReader("\n"))))
		h, err := r.ReadMIMEHeader()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, 0, fmt.Errorf("line %d: malformed MIME Header: %v", line, err)
		}
		hdr = h
	}
	return hdr, data[bodyStart:], line + n, nil
}

// splitMultipart cuts a multipart body at its delimiter lines ("--" and the
// boundary, optionally followed by "--" to close, then optional blanks).
// The newline before a delimiter belongs to the delimiter, so a part's data
// is exactly what was between the two delimiter lines.
func splitMultipart(body []byte, line int, boundary string) ([]RawPart, error) {
	delim := []byte("--" + boundary)
	var parts []RawPart
	start, startLine := -1, 0
	closed := false
	for off, n := 0, line; off < len(body); n++ {
		nl := bytes.IndexByte(body[off:], '\n')
		l, next := body[off:], len(body)
		if nl >= 0 {
			l, next = body[off:off+nl], off+nl+1
		}
		t := bytes.TrimRight(l, " \t\r")
		if bytes.HasPrefix(t, delim) && (len(t) == len(delim) || string(t[len(delim):]) == "--") {
			if start >= 0 {
				end := off
				if end > start && body[end-1] == '\n' {
					end--
					if end > start && body[end-1] == '\r' {
						end--
					}
				}
				parts = append(parts, RawPart{Data: body[start:end], Line: startLine})
			}
			if len(t) > len(delim) {
				closed = true
				break
			}
			start, startLine = next, n+1
		}
		off = next
	}
	if start < 0 {
		return nil, fmt.Errorf("line %d: multipart body has no %q delimiter", line, string(delim))
	}
	if !closed && len(bytes.TrimSpace(body[start:])) > 0 {
		// A missing close delimiter: the last part runs to the end, as
		// both Go's and Python's parsers read it. A document that ends
		// right after a delimiter line has no part there, not an empty
		// one.
		parts = append(parts, RawPart{Data: body[start:], Line: startLine})
	}
	return parts, nil
}

func transferDecode(cte string, body []byte) ([]byte, error) {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "", "7bit", "8bit", "binary":
		return body, nil
	case "base64":
		clean := bytes.Map(func(r rune) rune {
			if r == '\r' || r == '\n' || r == ' ' || r == '\t' {
				return -1
			}
			return r
		}, body)
		out := make([]byte, base64.StdEncoding.DecodedLen(len(clean)))
		n, err := base64.StdEncoding.Decode(out, clean)
		if err != nil {
			return nil, fmt.Errorf("base64 part: %v", err)
		}
		return out[:n], nil
	case "quoted-printable":
		out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body)))
		if err != nil {
			return nil, fmt.Errorf("quoted-printable part: %v", err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unknown Content-Transfer-Encoding %q", cte)
	}
}

// Write writes parts (each: headers, blank line, body) as one
// multipart/mixed message with LF line endings. The boundary is derived
// from a hash of the parts, so the output is deterministic, and is checked
// not to occur anywhere in any part.
func Write(parts [][]byte) ([]byte, error) {
	boundary, err := pickBoundary(parts)
	if err != nil {
		return nil, err
	}
	size := 128
	for _, p := range parts {
		size += len(p) + len(boundary) + 4
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString("MIME-Version: 1.0\n")
	b.WriteString("Content-Type: " + mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": boundary}) + "\n\n")
	for _, p := range parts {
		b.WriteString("--" + boundary + "\n")
		b.Write(p)
		b.WriteByte('\n')
	}
	b.WriteString("--" + boundary + "--\n")
	return b.Bytes(), nil
}

func pickBoundary(parts [][]byte) (string, error) {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	sum := h.Sum(nil)
	for attempt := 0; attempt < 64; attempt++ {
		candidate := "ec2select-" + hex.EncodeToString(sum[:16])
		clash := false
		for _, p := range parts {
			if bytes.Contains(p, []byte(candidate)) {
				clash = true
				break
			}
		}
		if !clash {
			return candidate, nil
		}
		next := sha256.Sum256(sum)
		sum = next[:]
	}
	return "", errors.New("mimedoc: could not find a MIME boundary that occurs in no part")
}
