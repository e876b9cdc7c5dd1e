package quantity

import (
	"errors"
	"math/big"
	"regexp"
	"strconv"
	"testing"
)

// plain matches the quantities whose value the fuzz target can work out
// on its own: digits, a fraction, then no suffix or an exponent.
var plain = regexp.MustCompile(`^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]{1,4}))?$`)

// FuzzParse: Parse never panics; what it accepts has a sign that agrees
// with its value at every unit, floor ≤ ceil ≤ floor+1, a value a
// plain spelling would give when it has one, and a formatted floor that
// reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"500Mi", "1.5", "-1Gi", "e5", ".", "1e-10", "1.G", "12345678901234567890", "Pi", "0.9999999999", "-8Ei", "1e2147483648"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			return
		}
		for _, scale := range []int{-9, -3, 0, 3} {
			floor, ceil, err := q.Scaled(scale)
			if err != nil {
				if !errors.Is(err, ErrRange) {
					t.Fatalf("%q at 10^%d: %v", s, scale, err)
				}
				continue
			}
			if floor > ceil || ceil-floor > 1 || (q.Sign() > 0 && ceil < 1) || (q.Sign() < 0 && floor > -1) || (q.Sign() == 0 && ceil != 0) {
				t.Fatalf("%q (sign %d) at 10^%d = [%d, %d]", s, q.Sign(), scale, floor, ceil)
			}
			if m := plain.FindStringSubmatch(s); m != nil && m[2]+m[3] != "" {
				v, _ := new(big.Rat).SetString(m[1] + m[2] + "." + m[3] + "0")
				e, _ := strconv.Atoi(m[4]) // "" is 0
				p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs(int64(e))), nil))
				if e < 0 {
					p.Inv(p)
				}
				v.Mul(v, p)
				if wf, wc, ok := reference(v, scale); !ok || wf != floor || wc != ceil {
					t.Fatalf("%q at 10^%d = [%d, %d]; the plain value gives [%d, %d] (%v)", s, scale, floor, ceil, wf, wc, ok)
				}
			}
			back, err := Parse(FormatDecimal(floor, scale))
			if err != nil {
				t.Fatalf("%q: FormatDecimal(%d, %d) = %q: %v", s, floor, scale, FormatDecimal(floor, scale), err)
			}
			if f2, c2, err := back.Scaled(scale); err != nil || f2 != floor || c2 != floor {
				t.Fatalf("%q: %d at 10^%d → %q → %d, %d, %v", s, floor, scale, FormatDecimal(floor, scale), f2, c2, err)
			}
		}
	})
}
