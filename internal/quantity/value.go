package quantity

import (
	"errors"
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// ErrRange is the error [Quantity.Scaled] returns for a value beyond
// int64 in the unit asked for.
var ErrRange = errors.New("value beyond int64 in this unit")

// Scaled returns q in units of 10^scale (scale −3 gives thousandths:
// millicores), rounded down and rounded up. Rounded up is what
// resource.Quantity's ScaledValue, Value and MilliValue give (quantity.go
// lines 813-835 at v0.35.3 round away from zero, which for the
// non-negative amounts they are used on is up). Both fit in an int64 or
// the error is [ErrRange]. floor == ceil exactly when the value is a whole
// number of units.
func (q Quantity) Scaled(scale int) (floor, ceil int64, err error) {
	if q.digits == "" {
		return 0, 0, nil
	}
	lo, hi, ok := magnitude(q.digits, q.exp10-int64(scale), q.exp2)
	switch {
	case !ok:
		return 0, 0, ErrRange
	case !q.neg && hi <= math.MaxInt64:
		return int64(lo), int64(hi), nil
	case q.neg && hi <= 1<<63:
		// -int64(x) wraps 1<<63 to math.MinInt64, which is right.
		return -int64(hi), -int64(lo), nil
	}
	return 0, 0, ErrRange
}

// magnitude returns digits × 10^exp10 × 2^exp2 (digits without leading
// zeros) rounded down and up, or ok false when that is 2^64 or more.
func magnitude(digits string, exp10, exp2 int64) (lo, hi uint64, ok bool) {
	// The value is at least 10^(len−1+exp10) × 2^exp2 and below 100 times
	// that: bound it before doing any arithmetic.
	order := int64(len(digits)) - 1 + exp10 + exp2*3/10
	if order >= 20 {
		return 0, 0, false
	}
	if order < -30 {
		return 0, 1, true // far below one unit, and not zero
	}
	if len(digits) <= 19 && exp10 >= -19 {
		n, _ := strconv.ParseUint(digits, 10, 64) // fewer than 20 digits fit
		return small(n, exp10, exp2)
	}
	return large(digits, exp10, exp2)
}

// pow10 holds 10^0 … 10^19, every power of ten a uint64 holds.
var pow10 = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// small is magnitude for n < 10^19 and −19 ≤ exp10 < 20, in 128-bit
// integer arithmetic.
func small(n uint64, exp10, exp2 int64) (lo, hi uint64, ok bool) {
	// n × 2^exp2 as a 128-bit number; exp2 ≤ 60 and n < 2^64.
	nHi, nLo := uint64(0), n
	if exp2 > 0 {
		nHi, nLo = n>>(64-exp2), n<<exp2
	}
	if exp10 >= 0 {
		if nHi != 0 {
			return 0, 0, false
		}
		pHi, pLo := bits.Mul64(nLo, pow10[exp10])
		return pLo, pLo, pHi == 0
	}
	d := pow10[-exp10]
	if nHi >= d {
		return 0, 0, false // the quotient needs more than 64 bits
	}
	quo, rem := bits.Div64(nHi, nLo, d)
	if rem == 0 {
		return quo, quo, true
	}
	return quo, quo + 1, quo != math.MaxUint64
}

// large is magnitude in arbitrary precision, for many digits or a deep
// fraction.
func large(digits string, exp10, exp2 int64) (lo, hi uint64, ok bool) {
	n, _ := new(big.Int).SetString(digits, 10)
	d := big.NewInt(1)
	ten := big.NewInt(10)
	if exp10 >= 0 {
		n.Mul(n, new(big.Int).Exp(ten, big.NewInt(exp10), nil))
	} else {
		d.Exp(ten, big.NewInt(-exp10), nil)
	}
	n.Lsh(n, uint(exp2))
	quo, rem := n.QuoRem(n, d, new(big.Int))
	if quo.BitLen() > 64 {
		return 0, 0, false
	}
	lo = quo.Uint64()
	if rem.Sign() == 0 {
		return lo, lo, true
	}
	return lo, lo + 1, lo != math.MaxUint64
}
