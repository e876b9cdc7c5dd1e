package quantity

import "strconv"

// FormatBinary writes n with the largest binary suffix that holds it
// exactly ("7Gi", "7934372Ki"), or none ("0", "1000000000"); [Parse]
// reads it back as n.
func FormatBinary(n int64) string {
	for i := len(suffixes) - 1; i >= 0 && n != 0; i-- {
		if sf := suffixes[i]; sf.binary && n%(1<<sf.exp) == 0 {
			return strconv.FormatInt(n/(1<<sf.exp), 10) + sf.text
		}
	}
	return strconv.FormatInt(n, 10)
}

// FormatDecimal writes n units of 10^scale with the largest of the
// suffixes "" (units), "m", "u" and "n" that holds it exactly and is no
// finer than the unit ("2", "1930m" for thousandths), or with an exponent
// when none is ("5e3", "17e-4"); [Parse] reads it back as n units.
func FormatDecimal(n int64, scale int) string {
	if n == 0 {
		return "0"
	}
	for i := len(suffixes) - 1; i >= 0; i-- {
		sf := suffixes[i]
		d := sf.exp - int64(scale)
		if sf.binary || sf.exp > 0 || d < 0 || d > 18 {
			continue
		}
		if p := int64(pow10[d]); n%p == 0 {
			return strconv.FormatInt(n/p, 10) + sf.text
		}
	}
	return strconv.FormatInt(n, 10) + "e" + strconv.Itoa(scale)
}
