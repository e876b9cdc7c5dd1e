package ec2fake

import (
	"encoding/base64"
	"encoding/binary"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Pages follow the sorted order of image IDs (or instance type names), and a
// NextToken records the last key returned — keyset pagination. A page can
// therefore never start at a position that does not exist, and every item
// present for the whole walk is returned exactly once, whatever MaxResults
// each page asks for and whatever is added or deleted in between.
//
// A token is bound to the operation and to the request that produced it
// (filters, owners, IDs, flags; not MaxResults): presenting it with a
// different request, or presenting anything that is not such a token, fails
// with InvalidParameterValue, as EC2 does. The checksum only catches damage
// and guessing; it is not a secret.

const tokenVersion = 1

const (
	tokenOpImages byte = 'i'
	tokenOpTypes  byte = 't'
)

func encodeToken(op byte, fingerprint uint64, after string) string {
	buf := make([]byte, 0, 2+8+len(after)+8)
	buf = append(buf, tokenVersion, op)
	buf = binary.BigEndian.AppendUint64(buf, fingerprint)
	buf = append(buf, after...)
	buf = binary.BigEndian.AppendUint64(buf, checksum(buf))
	return base64.RawURLEncoding.EncodeToString(buf)
}

// decodeToken returns the key to continue after, or false when token is not
// a token this request may use.
func decodeToken(token string, op byte, fingerprint uint64, validKey func(string) bool) (string, bool) {
	if len(token) > 1024 {
		return "", false
	}
	buf, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(buf) < 2+8+1+8 {
		return "", false
	}
	body, sum := buf[:len(buf)-8], binary.BigEndian.Uint64(buf[len(buf)-8:])
	if checksum(body) != sum || body[0] != tokenVersion || body[1] != op {
		return "", false
	}
	if binary.BigEndian.Uint64(body[2:10]) != fingerprint {
		return "", false
	}
	after := string(body[10:])
	if !validKey(after) {
		return "", false
	}
	return after, true
}

func checksum(b []byte) uint64 {
	h := fnv.New64a()
	h.Write([]byte("ec2fake-page-token"))
	h.Write(b)
	return h.Sum64()
}

// fingerprinter hashes a request's page-independent parameters in a
// canonical form, so that equivalent requests (nil vs empty lists, filters
// in another order) share tokens.
type fingerprinter struct{ h uint64 }

func newFingerprinter(op byte) *fingerprinter {
	f := &fingerprinter{h: 14695981039346656037}
	f.bytes([]byte{op})
	return f
}

func (f *fingerprinter) bytes(b []byte) {
	for _, c := range b {
		f.h ^= uint64(c)
		f.h *= 1099511628211
	}
}

func (f *fingerprinter) str(s string) {
	f.bytes([]byte(strconv.Itoa(len(s))))
	f.bytes([]byte{':'})
	f.bytes([]byte(s))
}

func (f *fingerprinter) strs(label string, ss []string) {
	f.str(label)
	f.str(strconv.Itoa(len(ss)))
	for _, s := range ss {
		f.str(s)
	}
}

func (f *fingerprinter) flag(label string, b *bool) {
	f.str(label)
	if b != nil && *b {
		f.str("1")
	} else {
		f.str("0")
	}
}

func (f *fingerprinter) filters(filters []ec2types.Filter) {
	keys := make([]string, 0, len(filters))
	for _, flt := range filters {
		var b strings.Builder
		name := "\x00null"
		if flt.Name != nil {
			name = *flt.Name
		}
		b.WriteString(strconv.Itoa(len(name)))
		b.WriteString(":")
		b.WriteString(name)
		for _, v := range flt.Values {
			b.WriteString(strconv.Itoa(len(v)))
			b.WriteString(":")
			b.WriteString(v)
		}
		keys = append(keys, b.String())
	}
	slices.Sort(keys)
	f.strs("filters", keys)
}

func sortedUnique(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return slices.Compact(out)
}
