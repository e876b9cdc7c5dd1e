package quantity

import (
	"errors"
	"strconv"
	"strings"
)

// Quantity is a parsed Kubernetes quantity: its exact value, kept as
// significant digits and powers of ten and two, so that nothing is rounded
// until [Quantity.Scaled] is asked for a unit. The zero value is zero.
// Quantities are comparable values, safe to copy and share.
type Quantity struct {
	neg    bool
	digits string // significant digits, no leading or trailing zeros; "" for zero
	exp10  int64  // the value is digits × 10^exp10 × 2^exp2
	exp2   int64
}

// The errors [Parse] returns. Their texts are resource.ParseQuantity's
// (k8s.io/apimachinery v0.35.3 pkg/api/resource/quantity.go lines
// 155-157), except that a suffix error is a [*SuffixError] naming the
// suffix.
var (
	ErrFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	ErrSuffix  = errors.New("unable to parse quantity's suffix")
	ErrNumeric = errors.New("unable to parse quantity's numeric value")
)

// SuffixError is the error [Parse] returns for a suffix
// resource.ParseQuantity does not know ("1mi", "1e"). Its text is
// [ErrSuffix]'s, and errors.Is(err, ErrSuffix) holds.
type SuffixError struct {
	Suffix string
}

func (e *SuffixError) Error() string        { return ErrSuffix.Error() }
func (e *SuffixError) Is(target error) bool { return target == ErrSuffix }

// Parse reads s as k8s.io/apimachinery's resource.ParseQuantity reads it,
// accepting exactly what it accepts. That is more than its documented
// grammar ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$: a sign or a
// suffix with no digits ("+", "Ki", ".", "e5") is zero and "1.G" is a
// gigabyte, because ParseQuantity's int64 fast path reads only the
// digits; where it falls back to arbitrary precision (a scale below nano,
// more than 18 digits, a binary suffix with a fraction or above Ti), it
// needs a digit ([ErrNumeric]). An "e" exponent is kept as an int32, as
// ParseQuantity keeps it, so "1e4294967296" is 1.
func Parse(s string) (Quantity, error) {
	if s == "" {
		return Quantity{}, ErrFormat
	}
	sc, err := scan(s)
	if err != nil {
		return Quantity{}, err
	}
	sf, ok := interpret(sc.suffix)
	if !ok {
		return Quantity{}, &SuffixError{Suffix: sc.suffix}
	}
	if !sc.hasDigit && !fastPath(sc, sf) {
		// The fallback hands the numeric text to inf.Dec, which wants a digit.
		return Quantity{}, ErrNumeric
	}
	return sc.quantity(sf), nil
}

// scanned is a quantity string cut as ParseQuantity's scanner
// (parseQuantityString, quantity.go lines 160-275) cuts it.
type scanned struct {
	neg      bool
	num      string // integer digits, leading zeros stripped; "0" when none are left
	denom    string // fraction digits
	hasDigit bool   // the numeric part holds a digit, leading zeros included
	suffix   string
}

// scan splits s into a sign, integer and fraction digits and a suffix of
// letters from "eEinumkKMGTP", an optional sign and digits.
func scan(s string) (scanned, error) {
	var sc scanned
	pos := 0
	if s[0] == '-' || s[0] == '+' {
		sc.neg = s[0] == '-'
		pos++
	}
	start := pos
	for pos < len(s) && s[pos] == '0' {
		pos++
	}
	if pos == len(s) {
		// Only a sign and zeros: the scanner stops and calls it zero.
		sc.num, sc.hasDigit = "0", pos > start
		return sc, nil
	}
	numStart := pos
	pos = skipDigits(s, pos)
	sc.num, sc.hasDigit = s[numStart:pos], pos > start
	if pos < len(s) && s[pos] == '.' {
		denomStart := pos + 1
		pos = skipDigits(s, denomStart)
		sc.denom = s[denomStart:pos]
		sc.hasDigit = sc.hasDigit || pos > denomStart
	}
	if sc.num == "" {
		sc.num = "0"
	}
	sc.suffix = s[pos:]
	i := pos
	for i < len(s) && strings.IndexByte("eEinumkKMGTP", s[i]) >= 0 {
		i++
	}
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	if skipDigits(s, i) < len(s) {
		return sc, ErrFormat
	}
	return sc, nil
}

func skipDigits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// fastPath reports whether ParseQuantity takes its int64 fast path
// (quantity.go lines 296-346), which reads only the digits, rather than
// falling back to arbitrary precision, which reads the numeric text. Its
// strconv.ParseInt cannot fail there: the fast path sees at most 18
// digits. A product that overflows int64 also falls back, but such a
// value has digits, so the fallback accepts it too.
func fastPath(sc scanned, sf suffix) bool {
	const maxInt64Factors = 18 // quantity.go: maxInt64Factors
	if sf.binary {
		return sc.denom == "" && 15-int64(len(sc.num))-int64(float32(sf.exp)*3/10)-1 >= 0
	}
	digits := int64(len(sc.num) + len(sc.denom))
	return maxInt64Factors-digits >= 0 && sf.exp-int64(len(sc.denom)) >= -9
}

// quantity is the exact value sc and its suffix spell.
func (sc scanned) quantity(sf suffix) Quantity {
	digits := strings.TrimLeft(sc.num+sc.denom, "0")
	if digits == "" {
		return Quantity{}
	}
	q := Quantity{neg: sc.neg, exp10: -int64(len(sc.denom))}
	if sf.binary {
		q.exp2 = sf.exp
	} else {
		q.exp10 += sf.exp
	}
	trimmed := strings.TrimRight(digits, "0")
	q.exp10 += int64(len(digits) - len(trimmed))
	q.digits = trimmed
	return q
}

// Sign returns -1, 0 or +1. "-0" is zero.
func (q Quantity) Sign() int {
	switch {
	case q.digits == "":
		return 0
	case q.neg:
		return -1
	}
	return 1
}

// suffix is what a quantity suffix means: a power of ten, or of two when
// binary.
type suffix struct {
	text   string
	binary bool
	exp    int64
}

// suffixes are resource.ParseQuantity's named suffixes (suffix.go,
// newSuffixer), decimal ones from small to large, then binary ones.
var suffixes = [...]suffix{
	{"n", false, -9}, {"u", false, -6}, {"m", false, -3}, {"", false, 0},
	{"k", false, 3}, {"M", false, 6}, {"G", false, 9}, {"T", false, 12}, {"P", false, 15}, {"E", false, 18},
	{"Ki", true, 10}, {"Mi", true, 20}, {"Gi", true, 30}, {"Ti", true, 40}, {"Pi", true, 50}, {"Ei", true, 60},
}

// interpret looks a suffix up (suffix.go lines 180-198): a named one, or
// "e"/"E" and a decimal exponent, truncated to an int32.
func interpret(text string) (suffix, bool) {
	for _, sf := range suffixes {
		if sf.text == text {
			return sf, true
		}
	}
	if len(text) > 1 && (text[0] == 'e' || text[0] == 'E') {
		n, err := strconv.ParseInt(text[1:], 10, 64)
		if err != nil {
			return suffix{}, false
		}
		return suffix{text: text, exp: int64(int32(n))}, true
	}
	return suffix{}, false
}
