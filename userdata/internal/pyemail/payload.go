package pyemail

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime/quotedprintable"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Payload is what cloud-init gets from a non-multipart part:
// get_payload(decode=True) (Lib/email/message.py, Python 3), then
// util.fully_decoded_payload, encoded as cloud-init writes it. The text is
// made bytes as Python 3 does: ASCII as is, anything else through
// raw-unicode-escape (a character up to U+00FF becomes that one byte, a
// later one the six characters \uXXXX); then the Content-Transfer-Encoding,
// compared as written but for case (" base64" is not base64), decodes
// quoted-printable and base64; any other is left as is. For a text/* part
// the bytes are decoded as UTF-8 with surrogateescape, so a byte that is
// not UTF-8 becomes a surrogate that cloud-init's write_file cannot encode.
// unmodelled says why the payload is not known: a base64 text Python
// decodes leniently, a uuencoded part, quoted-printable Go's reader
// refuses, or a text part cloud-init cannot write.
func (m *Message) Payload() (payload []byte, unmodelled string) {
	b := rawUnicodeEscape(m.Text)
	cte, _ := m.Get("content-transfer-encoding")
	switch strings.ToLower(cte) {
	case "quoted-printable":
		out, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(b)))
		if err != nil {
			return nil, fmt.Sprintf("quoted-printable text Python decodes leniently (%v)", err)
		}
		b = out
	case "base64":
		out, ok := decodeB(b)
		if !ok {
			return nil, "base64 text that is not strict base64, which Python decodes leniently"
		}
		b = out
	case "x-uuencode", "uuencode", "uue", "x-uue":
		return nil, "a uuencoded part"
	}
	if strings.HasPrefix(m.ContentType(), "text/") && !utf8.Valid(b) {
		return nil, "text that is not UTF-8 once Python has made it bytes (a character from U+0080 to U+00FF becomes one byte), which cloud-init's Python 3 builds cannot write (write_file: surrogates not allowed)"
	}
	return b, ""
}

// rawUnicodeEscape is str.encode('ascii'), falling back to
// 'raw-unicode-escape' for text that is not ASCII.
func rawUnicodeEscape(s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return []byte(s)
	}
	var b bytes.Buffer
	for _, r := range s {
		switch {
		case r < 0x100:
			b.WriteByte(byte(r))
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.Bytes()
}

// strictBase64 is the text b64decode(validate=True) accepts.
var strictBase64 = regexp.MustCompile(`^[A-Za-z0-9+/]*={0,2}$`)

// decodeB is decode_b's first attempt (Lib/email/_encoded_words.py): the
// lines joined, padding added as the length needs, decoded when the
// result is strict base64. Its lenient fallbacks are not followed.
func decodeB(b []byte) ([]byte, bool) {
	joined := strings.NewReplacer("\r\n", "", "\r", "", "\n", "").Replace(string(b))
	if pad := len(joined) % 4; pad != 0 {
		joined += "==="[:4-pad]
	}
	if !strictBase64.MatchString(joined) {
		return nil, false
	}
	out, err := base64.StdEncoding.DecodeString(joined)
	return out, err == nil
}
