// Package quantity decides whether a string is a Kubernetes resource
// quantity ("500Mi", "1.5", "100m", "2e3") exactly as
// k8s.io/apimachinery's resource.ParseQuantity does, without depending on
// it, and says whether the value is negative or zero.
//
// The grammar ParseQuantity implements is looser than the one it
// documents: a sign or a suffix with no digits ("+", "Ki", ".", "e5") is
// zero, "1.G" is a gigabyte, and only a handful of shapes fail. This
// package follows the code, not the documentation, and a differential test
// in examples/karpenter checks it against the real function.
package quantity

import (
	"errors"
	"strconv"
	"strings"
)

// Quantity is what validation needs to know of a parsed quantity.
type Quantity struct {
	// Sign is -1, 0 or +1.
	Sign int
}

// The errors Parse returns; their texts are resource.ParseQuantity's.
var (
	ErrFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrSuffix  = errors.New("unable to parse quantity's suffix")
	ErrNumeric = errors.New("unable to parse quantity's numeric value")
)

// scanned is a quantity string cut into its parts, as ParseQuantity's
// scanner cuts it.
type scanned struct {
	negative bool
	num      string // integer digits, leading zeros stripped
	denom    string // fraction digits
	digits   bool   // the numeric part holds at least one digit
	suffix   string
}

// Parse reports whether s is a quantity, and its sign.
func Parse(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, ErrFormat
	}
	sc, err := scan(s)
	if err != nil {
		return Quantity{}, err
	}
	fast, err := path(sc)
	if err != nil {
		return Quantity{}, err
	}
	if !fast && !sc.digits {
		// The slow path hands the numeric part to inf.Dec, which wants a digit.
		return Quantity{}, ErrNumeric
	}
	return Quantity{Sign: sign(sc)}, nil
}

// scan splits s into sign, integer and fraction digits and suffix.
func scan(s string) (scanned, error) {
	var sc scanned
	pos := 0
	if s[0] == '-' || s[0] == '+' {
		sc.negative = s[0] == '-'
		pos++
	}
	start := pos
	for pos < len(s) && s[pos] == '0' {
		pos++
	}
	if pos == len(s) {
		// Only a sign and zeros: the scanner stops here and calls it zero.
		sc.num, sc.digits = "0", pos > start
		return sc, nil
	}
	numStart := pos
	for pos < len(s) && isDigit(s[pos]) {
		pos++
	}
	sc.num = s[numStart:pos]
	sc.digits = pos > start
	if pos < len(s) && s[pos] == '.' {
		pos++
		denomStart := pos
		for pos < len(s) && isDigit(s[pos]) {
			pos++
		}
		sc.denom = s[denomStart:pos]
		sc.digits = sc.digits || pos > denomStart
	}
	if sc.num == "" {
		sc.num = "0"
	}
	suffix, err := scanSuffix(s[pos:])
	sc.suffix = suffix
	return sc, err
}

// scanSuffix accepts letters of "eEinumkKMGTP", an optional sign, then
// digits to the end.
func scanSuffix(rest string) (string, error) {
	i := 0
	for i < len(rest) && strings.IndexByte("eEinumkKMGTP", rest[i]) >= 0 {
		i++
	}
	if i < len(rest) && (rest[i] == '-' || rest[i] == '+') {
		i++
	}
	for i < len(rest) && isDigit(rest[i]) {
		i++
	}
	if i < len(rest) {
		return "", ErrFormat
	}
	return rest, nil
}

// path interprets the suffix and reports whether ParseQuantity would take
// its int64 fast path, which reads only the digits, or fall back to
// arbitrary precision, which reads the numeric text.
func path(sc scanned) (fast bool, err error) {
	exponent, binary, ok := interpret(sc.suffix)
	if !ok {
		return false, ErrSuffix
	}
	const maxInt64Factors = 18
	var precision, scale int64
	switch {
	case !binary:
		scale = exponent
		precision = maxInt64Factors - int64(len(sc.num)+len(sc.denom))
	case sc.denom == "":
		precision = 15 - int64(len(sc.num)) - int64(float32(exponent)*3/10) - 1
	default:
		precision = -1
	}
	if precision < 0 {
		return false, nil
	}
	scale -= int64(len(sc.denom))
	if scale < -9 {
		return false, nil
	}
	if _, err := strconv.ParseInt(sc.num+sc.denom, 10, 64); err != nil {
		return false, ErrNumeric
	}
	// A product that overflows int64 also falls back, but every such value
	// has digits, so the fallback accepts it too.
	return true, nil
}

// interpret returns a suffix's power (of 10, or of 2 when binary).
func interpret(suffix string) (exponent int64, binary, ok bool) {
	switch suffix {
	case "n":
		return -9, false, true
	case "u":
		return -6, false, true
	case "m":
		return -3, false, true
	case "":
		return 0, false, true
	case "k":
		return 3, false, true
	case "M":
		return 6, false, true
	case "G":
		return 9, false, true
	case "T":
		return 12, false, true
	case "P":
		return 15, false, true
	case "E":
		return 18, false, true
	case "Ki":
		return 10, true, true
	case "Mi":
		return 20, true, true
	case "Gi":
		return 30, true, true
	case "Ti":
		return 40, true, true
	case "Pi":
		return 50, true, true
	case "Ei":
		return 60, true, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		n, err := strconv.ParseInt(suffix[1:], 10, 64)
		if err != nil {
			return 0, false, false
		}
		// ParseQuantity keeps the exponent as an int32.
		return int64(int32(n)), false, true
	}
	return 0, false, false
}

// sign is the value's sign: zero when every digit is zero.
func sign(sc scanned) int {
	if strings.Trim(sc.num, "0") == "" && strings.Trim(sc.denom, "0") == "" {
		return 0
	}
	if sc.negative {
		return -1
	}
	return 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
