package nodeadm

import (
	"mime"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
)

// IsMultipart applies nodeadm's rule: the userData is multipart when its
// header block parses and its Content-Type is multipart/*.
func IsMultipart(text []byte) bool {
	h, _, _, err := mimedoc.SplitHeader(text, 1)
	if err != nil {
		return false
	}
	mt, _, err := mime.ParseMediaType(h.Get("Content-Type"))
	return err == nil && strings.HasPrefix(mt, "multipart/")
}

// Parts are the NodeConfig parts nodeadm reads: the top level of the
// multipart document only, each transfer-decoded; a nested multipart is
// one part that is not a NodeConfig, and is skipped whole
// (nodeadm/internal/configprovider/mime.go: one multipart.Reader over the
// top level, parts of other media types skipped).
func Parts(text []byte) ([]mimedoc.Part, error) {
	raws, err := mimedoc.TopLevelParts(text)
	if err != nil {
		return nil, err
	}
	var out []mimedoc.Part
	for _, r := range raws {
		h, _, _, err := mimedoc.SplitHeader(r.Data, r.Line)
		if err != nil {
			return nil, err
		}
		if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err != nil || mt != MediaType {
			continue
		}
		leaves, err := mimedoc.Parse(r.Data, r.Line)
		if err != nil {
			return nil, err
		}
		out = append(out, leaves...)
	}
	return out, nil
}
