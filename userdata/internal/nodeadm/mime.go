package nodeadm

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
)

// A Part is one NodeConfig part of multipart userData as nodeadm reads it.
type Part struct {
	Body []byte // decoded as nodeadm decodes it (base64, then gzip)
	// Line is the 1-based line of the part's body in the userData; 0 when
	// nodeadm decoded it (quoted-printable, base64, gzip) or it is empty.
	Line int
}

// multipartReader is nodeadm's getMultipartReader
// (nodeadm/internal/configprovider/mime.go L76-89): the userData as a mail
// message (net/mail.ReadMessage: its header block, up to the first empty
// line, must parse), whose Content-Type must parse and be multipart/*.
func multipartReader(text []byte) (*multipart.Reader, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(text))
	if err != nil {
		return nil, err
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		return nil, errors.New("MIME type is not multipart")
	}
	return multipart.NewReader(msg.Body, params["boundary"]), nil
}

// IsMultipart applies nodeadm's rule (configprovider/mime.go L19): the
// userData is read as multipart when [MultipartError] is nil; otherwise
// nodeadm decodes the whole userData as one NodeConfig.
func IsMultipart(text []byte) bool { return MultipartError(text) == nil }

// MultipartError says why nodeadm does not read the userData as
// multipart: the error of Go's net/mail or mime reading, nil when it does.
func MultipartError(text []byte) error {
	_, err := multipartReader(text)
	return err
}

// Parts are the NodeConfig parts nodeadm reads from multipart userData
// (configprovider/mime.go ParseMultipart, L34-74): Go's
// multipart.Reader.NextPart over the top level only, so a nested multipart
// is one part of its own media type; a part with a Content-Type that does
// not parse, a part or delimiter Go's reader refuses (a header line that is
// not "Name: value", no closing delimiter) or a NodeConfig part that
// cannot be read fails the whole userData, as it fails nodeadm; parts of
// other media types are skipped; each NodeConfig part is base64-decoded
// when it decodes (decodeIfBase64) and then gunzipped (decompressIfGZIP).
func Parts(text []byte) ([]Part, error) {
	r, err := multipartReader(text)
	if err != nil {
		return nil, err
	}
	var out []Part
	cursor := 0
	for {
		part, err := r.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		ct := part.Header.Get("Content-Type")
		if ct == "" {
			continue
		}
		mediaType, _, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, fmt.Errorf("a part's Content-Type %q: %v", ct, err)
		}
		if mediaType != MediaType {
			continue
		}
		raw, err := io.ReadAll(part)
		if err != nil {
			return nil, err
		}
		p := Part{Body: decodeIfBase64(raw)}
		if p.Body, err = decompressIfGZIP(p.Body); err != nil {
			return nil, err
		}
		if i := bytes.Index(text[cursor:], raw); i >= 0 && len(raw) > 0 {
			cursor += i
			if bytes.Equal(p.Body, raw) {
				p.Line = 1 + bytes.Count(text[:cursor], []byte("\n"))
			}
			cursor += len(raw)
		}
		out = append(out, p)
	}
}

// decodeIfBase64 is configprovider/encoding.go L11-20: the whole part as
// standard base64 (Go's decoder skips CR and LF), or the part unchanged
// when it does not decode.
func decodeIfBase64(data []byte) []byte {
	out := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
	n, err := base64.StdEncoding.Decode(out, data)
	if err != nil {
		return data
	}
	return out[:n]
}

// decompressIfGZIP is configprovider/encoding.go L25-42.
func decompressIfGZIP(data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return data, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("failed to create GZIP reader: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxGunzipped+1))
	if err != nil {
		return nil, fmt.Errorf("failed to read from GZIP reader: %v", err)
	}
	if len(out) > maxGunzipped {
		return nil, fmt.Errorf("a gzip part expands beyond %d bytes", maxGunzipped)
	}
	return out, nil
}

// maxGunzipped bounds a gzip part, so that a small input cannot expand
// without limit (nodeadm has no bound; real userData is at most 16 KB).
const maxGunzipped = 1 << 20
