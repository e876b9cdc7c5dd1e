package capacity

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Resource is one of the node resources an [Estimate] covers.
type Resource uint8

// The resources, in the order estimates list them.
const (
	ResourceCPU              Resource = iota // millicores
	ResourceMemory                           // bytes
	ResourceEphemeralStorage                 // bytes
	ResourcePods                             // a count
	numResources
)

// String returns the resource's Kubernetes name: cpu, memory,
// ephemeral-storage or pods.
func (r Resource) String() string {
	switch r {
	case ResourceCPU:
		return "cpu"
	case ResourceMemory:
		return "memory"
	case ResourceEphemeralStorage:
		return "ephemeral-storage"
	case ResourcePods:
		return "pods"
	}
	return "Resource(" + strconv.Itoa(int(r)) + ")"
}

// Quantities is an amount of each resource: CPU in millicores, memory and
// ephemeral storage in bytes, pods as a count. The zero value is nothing of
// anything. String formats each as Kubernetes does ("1930m", "7934372Ki").
type Quantities struct {
	CPU              int64 // millicores
	Memory           int64 // bytes
	EphemeralStorage int64 // bytes
	Pods             int64
}

// Get returns the amount of r.
func (q Quantities) Get(r Resource) int64 {
	switch r {
	case ResourceCPU:
		return q.CPU
	case ResourceMemory:
		return q.Memory
	case ResourceEphemeralStorage:
		return q.EphemeralStorage
	case ResourcePods:
		return q.Pods
	}
	return 0
}

// With returns q with the amount of r set to v.
func (q Quantities) With(r Resource, v int64) Quantities {
	switch r {
	case ResourceCPU:
		q.CPU = v
	case ResourceMemory:
		q.Memory = v
	case ResourceEphemeralStorage:
		q.EphemeralStorage = v
	case ResourcePods:
		q.Pods = v
	}
	return q
}

// Add returns q + o, resource by resource.
func (q Quantities) Add(o Quantities) Quantities {
	return Quantities{q.CPU + o.CPU, q.Memory + o.Memory, q.EphemeralStorage + o.EphemeralStorage, q.Pods + o.Pods}
}

// String returns "cpu=… memory=… ephemeral-storage=… pods=…".
func (q Quantities) String() string {
	var b strings.Builder
	for r := range numResources {
		if r > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.String())
		b.WriteByte('=')
		b.WriteString(FormatQuantity(r, q.Get(r)))
	}
	return b.String()
}

// FormatQuantity formats an amount of r in the canonical form the API
// server gives a quantity of it: CPU in cores when whole ("2") and
// millicores otherwise ("1930m"); memory and storage in the largest binary
// unit that holds them exactly ("7Gi", "7934372Ki", "1000000000"); pods as
// a number.
func FormatQuantity(r Resource, v int64) string {
	switch r {
	case ResourceCPU:
		if v%1000 == 0 {
			return strconv.FormatInt(v/1000, 10)
		}
		return strconv.FormatInt(v, 10) + "m"
	case ResourceMemory, ResourceEphemeralStorage:
		if v == 0 {
			return "0"
		}
		suffixes := [...]string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
		i := 0
		for i < len(suffixes)-1 && v%1024 == 0 {
			v /= 1024
			i++
		}
		return strconv.FormatInt(v, 10) + suffixes[i]
	}
	return strconv.FormatInt(v, 10)
}

// ParseQuantity reads a Kubernetes quantity ("500m", "1.5Gi", "2e3") as an
// amount of r, in the unit Quantities holds r in, rounded up as the
// scheduler rounds a request (resource.Quantity's MilliValue for CPU and
// Value for the rest). It accepts what k8s.io/apimachinery's
// resource.ParseQuantity accepts and refuses negative amounts and amounts
// beyond int64.
func ParseQuantity(r Resource, s string) (int64, error) {
	v, err := parseAmount(r, s)
	if err != nil {
		return 0, fmt.Errorf("capacity: %s %w", r, err)
	}
	return v.ceil, nil
}

// amount is a parsed non-negative quantity in r's unit: the exact value
// rounded down (what a reservation takes from allocatable, which the
// scheduler rounds up) and rounded up (what a request needs).
type amount struct{ floor, ceil int64 }

// Errors parseAmount wraps.
var (
	errNegative = errors.New("it is negative")
	errTooLarge = errors.New("it is beyond int64 in this unit")
	errSyntax   = errors.New("it is not a quantity; write it like \"100m\", \"1.5Gi\" or \"2e3\"")
)

// parseAmount reads s with resource.ParseQuantity's grammar
// (^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$ with its suffixes) into an
// exact value in r's unit.
func parseAmount(r Resource, s string) (amount, error) {
	num, frac, neg, suffix, ok := splitQuantity(s)
	if !ok {
		return amount{}, fmt.Errorf("quantity %q: %w", s, errSyntax)
	}
	base, exp, ok := suffixPower(suffix)
	if !ok {
		return amount{}, fmt.Errorf("quantity %q: unknown suffix %q: %w", s, suffix, errSyntax)
	}
	digits := strings.TrimLeft(num+frac, "0")
	if digits == "" {
		return amount{}, nil
	}
	if neg {
		return amount{}, fmt.Errorf("quantity %q: %w", s, errNegative)
	}
	if r == ResourceCPU {
		exp10 := 3
		if base == 2 {
			return valueOf(s, digits, len(frac), exp, exp10)
		}
		return valueOf(s, digits, len(frac), 0, exp+exp10)
	}
	if base == 2 {
		return valueOf(s, digits, len(frac), exp, 0)
	}
	return valueOf(s, digits, len(frac), 0, exp)
}

// valueOf is digits × 2^exp2 × 10^(exp10 − fracLen), rounded both ways.
func valueOf(s, digits string, fracLen, exp2, exp10 int) (amount, error) {
	exp10 -= fracLen
	// digits has no leading zeros, so the value is at least 10^(len−1+exp10)
	// × 2^exp2: bound it before building big numbers.
	magnitude := len(digits) - 1 + exp10 + exp2*3/10
	if magnitude > 19 {
		return amount{}, fmt.Errorf("quantity %q: %w", s, errTooLarge)
	}
	if magnitude < -30 {
		return amount{floor: 0, ceil: 1}, nil // positive, far below one unit
	}
	n, _ := new(big.Int).SetString(digits, 10)
	d := big.NewInt(1)
	if exp10 >= 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp10)), nil))
	} else {
		d.Exp(big.NewInt(10), big.NewInt(int64(-exp10)), nil)
	}
	n.Lsh(n, uint(exp2))
	q, m := new(big.Int).QuoRem(n, d, new(big.Int))
	c := new(big.Int).Set(q)
	if m.Sign() != 0 {
		c.Add(c, big.NewInt(1))
	}
	if !c.IsInt64() {
		return amount{}, fmt.Errorf("quantity %q: %w", s, errTooLarge)
	}
	return amount{floor: q.Int64(), ceil: c.Int64()}, nil
}

// splitQuantity cuts s into its integer and fraction digits and suffix as
// resource.ParseQuantity's scanner does: a sign, digits, an optional '.'
// and digits, then a suffix of [eEinumkKMGTP]* [+-]? [0-9]*.
func splitQuantity(s string) (num, frac string, neg bool, suffix string, ok bool) {
	if s == "" {
		return "", "", false, "", false
	}
	i := 0
	if s[0] == '+' || s[0] == '-' {
		neg = s[0] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	num = s[start:i]
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fs:i]
	}
	suffix = s[i:]
	j := 0
	for j < len(suffix) && strings.IndexByte("eEinumkKMGTP", suffix[j]) >= 0 {
		j++
	}
	if j < len(suffix) && (suffix[j] == '+' || suffix[j] == '-') {
		j++
	}
	for j < len(suffix) && isDigit(suffix[j]) {
		j++
	}
	return num, frac, neg, suffix, j == len(suffix)
}

// suffixPower returns a suffix's base (2 or 10) and exponent. An "e"
// exponent is kept as an int32, as resource.ParseQuantity keeps it.
func suffixPower(suffix string) (base, exp int, ok bool) {
	switch suffix {
	case "":
		return 10, 0, true
	case "n":
		return 10, -9, true
	case "u":
		return 10, -6, true
	case "m":
		return 10, -3, true
	case "k":
		return 10, 3, true
	case "M":
		return 10, 6, true
	case "G":
		return 10, 9, true
	case "T":
		return 10, 12, true
	case "P":
		return 10, 15, true
	case "E":
		return 10, 18, true
	case "Ki":
		return 2, 10, true
	case "Mi":
		return 2, 20, true
	case "Gi":
		return 2, 30, true
	case "Ti":
		return 2, 40, true
	case "Pi":
		return 2, 50, true
	case "Ei":
		return 2, 60, true
	}
	if len(suffix) > 1 && (suffix[0] == 'e' || suffix[0] == 'E') {
		n, err := strconv.ParseInt(suffix[1:], 10, 64)
		if err != nil {
			return 0, 0, false
		}
		return 10, int(int32(n)), true
	}
	return 0, 0, false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
