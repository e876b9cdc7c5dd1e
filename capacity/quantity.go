package capacity

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/internal/quantity"
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

var resourceNames = [...]string{
	ResourceCPU:              "cpu",
	ResourceMemory:           "memory",
	ResourceEphemeralStorage: "ephemeral-storage",
	ResourcePods:             "pods",
}

// String returns the resource's Kubernetes name: cpu, memory,
// ephemeral-storage or pods.
func (r Resource) String() string { return enumString(resourceNames[:], int(r), "Resource") }

// MarshalText returns the resource's Kubernetes name.
func (r Resource) MarshalText() ([]byte, error) {
	return enumText(resourceNames[:], int(r), "Resource")
}

// UnmarshalText reads a resource's Kubernetes name.
func (r *Resource) UnmarshalText(text []byte) error {
	i, err := enumParse(resourceNames[:], text, "Resource")
	*r = Resource(i)
	return err
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
		return quantity.FormatDecimal(v, cpuScale)
	case ResourceMemory, ResourceEphemeralStorage:
		return quantity.FormatBinary(v)
	}
	return strconv.FormatInt(v, 10)
}

// cpuScale is the power of ten of a millicore.
const cpuScale = -3

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

// parseAmount reads s as resource.ParseQuantity reads it (see
// [quantity.Parse]) into its exact value in r's unit.
func parseAmount(r Resource, s string) (amount, error) {
	q, err := quantity.Parse(s)
	var suffix *quantity.SuffixError
	switch {
	case errors.As(err, &suffix):
		return amount{}, fmt.Errorf("quantity %q: unknown suffix %q: %w", s, suffix.Suffix, errSyntax)
	case err != nil:
		return amount{}, fmt.Errorf("quantity %q: %w", s, errSyntax)
	case q.Sign() < 0:
		return amount{}, fmt.Errorf("quantity %q: %w", s, errNegative)
	}
	scale := 0
	if r == ResourceCPU {
		scale = cpuScale
	}
	floor, ceil, err := q.Scaled(scale)
	if err != nil {
		return amount{}, fmt.Errorf("quantity %q: %w", s, errTooLarge)
	}
	return amount{floor: floor, ceil: ceil}, nil
}
