package quantity

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// spelled is a quantity drawn part by part, with the exact value those
// parts mean computed here, not by the parser.
type spelled struct {
	text  string
	value *big.Rat
}

// genQuantity draws valid quantities with at least one digit: a sign,
// integer and fraction digits (leading and trailing zeros included), and
// a named suffix or a small exponent, so that both the 128-bit and the
// arbitrary-precision paths and both range bounds are reached.
func genQuantity() *rapid.Generator[spelled] {
	return rapid.Custom(func(t *rapid.T) spelled {
		sign := rapid.SampledFrom([]string{"", "+", "-"}).Draw(t, "sign")
		intPart := rapid.StringMatching(`[0-9]{0,24}`).Draw(t, "int")
		frac, dot := "", rapid.Bool().Draw(t, "dot")
		if dot {
			frac = rapid.StringMatching(`[0-9]{0,24}`).Draw(t, "frac")
		}
		if intPart+frac == "" {
			intPart = "0"
		}
		var sf suffix
		if rapid.Bool().Draw(t, "named") {
			sf = rapid.SampledFrom(suffixes[:]).Draw(t, "suffix")
		} else {
			e := rapid.IntRange(-45, 45).Draw(t, "exp")
			sf = suffix{text: rapid.SampledFrom([]string{"e", "E"}).Draw(t, "e") + rapid.SampledFrom([]string{"", "+"}).Draw(t, "plus") + strconv.Itoa(e), exp: int64(e)}
			if e < 0 {
				sf.text = strings.Replace(sf.text, "+", "", 1)
			}
		}
		text := sign + intPart
		if dot {
			text += "." + frac
		}
		text += sf.text
		v, _ := new(big.Rat).SetString(intPart + "." + frac + "0")
		base := int64(10)
		if sf.binary {
			base = 2
		}
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(abs(sf.exp)), nil))
		if sf.exp < 0 {
			p.Inv(p)
		}
		v.Mul(v, p)
		if sign == "-" {
			v.Neg(v)
		}
		return spelled{text, v}
	})
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// reference rounds v / 10^scale down and up, and reports whether both fit
// an int64.
func reference(v *big.Rat, scale int) (floor, ceil int64, ok bool) {
	p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs(int64(scale))), nil))
	x := new(big.Rat).Set(v)
	if scale > 0 {
		x.Quo(x, p)
	} else {
		x.Mul(x, p)
	}
	f, m := new(big.Int).DivMod(x.Num(), x.Denom(), new(big.Int)) // Euclidean: f ≤ x for a positive denominator
	c := new(big.Int).Set(f)
	if m.Sign() != 0 {
		c.Add(c, big.NewInt(1))
	}
	return f.Int64(), c.Int64(), f.IsInt64() && c.IsInt64()
}

// TestScaledMatchesExactValue: for any valid quantity and unit, Parse
// accepts it with the right sign and Scaled gives the exact value rounded
// down and up, or ErrRange exactly when one of them is beyond int64.
func TestScaledMatchesExactValue(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genQuantity().Draw(t, "quantity")
		scale := rapid.IntRange(-12, 6).Draw(t, "scale")
		q, err := Parse(s.text)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s.text, err)
		}
		if q.Sign() != s.value.Sign() {
			t.Fatalf("Parse(%q).Sign() = %d, want %d", s.text, q.Sign(), s.value.Sign())
		}
		floor, ceil, err := q.Scaled(scale)
		wf, wc, ok := reference(s.value, scale)
		if !ok {
			if !errors.Is(err, ErrRange) {
				t.Fatalf("%q at 10^%d = %d, %d, %v; want ErrRange", s.text, scale, floor, ceil, err)
			}
			return
		}
		if err != nil || floor != wf || ceil != wc {
			t.Fatalf("%q at 10^%d = %d, %d, %v; want %d, %d", s.text, scale, floor, ceil, err, wf, wc)
		}
	})
}

// TestScaledMonotone: a larger quantity never scales to less, and a finer
// unit brackets the value at least as tightly as a coarser one.
func TestScaledMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a, b := genQuantity().Draw(t, "a"), genQuantity().Draw(t, "b")
		if a.value.Cmp(b.value) > 0 {
			a, b = b, a
		}
		scale := rapid.IntRange(-9, 3).Draw(t, "scale")
		qa, _ := Parse(a.text)
		qb, _ := Parse(b.text)
		fa, ca, errA := qa.Scaled(scale)
		fb, cb, errB := qb.Scaled(scale)
		if errA == nil && errB == nil && (fa > fb || ca > cb) {
			t.Fatalf("%q ≤ %q but at 10^%d they give [%d, %d] and [%d, %d]", a.text, b.text, scale, fa, ca, fb, cb)
		}
		fine, fineCeil, errF := qa.Scaled(scale - 3)
		if errA != nil || errF != nil || fa > math.MaxInt64/1000 || fa < math.MinInt64/1000 || ca > math.MaxInt64/1000 || ca < math.MinInt64/1000 {
			return
		}
		if fine < fa*1000 || fineCeil > ca*1000 {
			t.Fatalf("%q: [%d, %d] at 10^%d is not within [%d, %d]×1000 at 10^%d", a.text, fine, fineCeil, scale-3, fa, ca, scale)
		}
	})
}

// TestFormatRoundTrip: what FormatBinary and FormatDecimal write, Parse
// reads back as the same amount, for every int64.
func TestFormatRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := rapid.OneOf(rapid.Int64(), rapid.Map(rapid.Int64Range(-1<<33, 1<<33), func(n int64) int64 { return n << 30 }),
			rapid.SampledFrom([]int64{0, math.MinInt64, math.MaxInt64})).Draw(t, "v")
		scale := rapid.IntRange(-12, 6).Draw(t, "scale")
		for _, c := range []struct {
			text  string
			scale int
		}{{FormatBinary(v), 0}, {FormatDecimal(v, scale), scale}} {
			q, err := Parse(c.text)
			if err != nil {
				t.Fatalf("%d → %q: %v", v, c.text, err)
			}
			if floor, ceil, err := q.Scaled(c.scale); err != nil || floor != v || ceil != v {
				t.Fatalf("%d → %q → %d, %d, %v at 10^%d", v, c.text, floor, ceil, err, c.scale)
			}
		}
	})
}
