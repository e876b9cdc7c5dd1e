package capacity

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// FitRequest is what must go on one node: Count pods of the same
// requests, beside the daemons every node runs.
type FitRequest struct {
	// Pod is one pod's requests; its Pods field is ignored (a pod takes
	// one).
	Pod Quantities
	// Count is how many such pods; 0 means 1.
	Count int64
	// Daemons is what the DaemonSets' pods request on every node; its
	// Pods field is how many of them there are.
	Daemons Quantities
}

// need is what the request takes of each resource, saturating at the
// largest int64 rather than overflowing.
func (q FitRequest) need() Quantities {
	n := max(q.Count, 1)
	p := q.Pod
	p.Pods = 1
	var out Quantities
	for r := range numResources {
		d, per := q.Daemons.Get(r), p.Get(r)
		v := int64(math.MaxInt64)
		if per == 0 || n <= (math.MaxInt64-d)/per {
			v = d + n*per
		}
		out = out.With(r, v)
	}
	return out
}

// Verdict is whether one instance type holds a [FitRequest].
type Verdict struct {
	InstanceType string
	// Fits is whether allocatable holds the request, resource by resource.
	Fits bool
	// Holds is how many of the request's pods the type holds beside the
	// daemons (the most n with Daemons + n × Pod ≤ Allocatable); 0 when
	// not even the daemons fit.
	Holds int64
	// Short lists every resource the type lacks, in resource order.
	Short []Shortfall
	// Unresolved is why the type cannot be judged: its estimate does not
	// know every figure ([Estimate.Err]); this is the first unknown's
	// detail. Fits is then false and Short empty.
	Unresolved string
}

// Shortfall is one resource a type lacks for a request.
type Shortfall struct {
	Resource Resource
	// Need is what the request takes; Allocatable what the type has; By is
	// Need − Allocatable.
	Need, Allocatable, By int64
	// Cause is the term that makes the type too small: its capacity term
	// when even capacity is below Need, else the largest amount taken
	// from capacity.
	Cause Term
}

// String returns "memory: needs 4Gi, allocatable 3136Mi, short by 960Mi
// (kube-reserved 574Mi: …)".
func (s Shortfall) String() string {
	return fmt.Sprintf("%s: needs %s, allocatable %s, short by %s (%s)", s.Resource,
		FormatQuantity(s.Resource, s.Need), FormatQuantity(s.Resource, s.Allocatable), FormatQuantity(s.Resource, s.By), s.Cause)
}

// Fit is the verdict for every estimate of a request.
type Fit struct {
	Request  FitRequest
	Verdicts []Verdict // in the order of the estimates
}

// CheckFit judges which of the estimates hold req. A type fits exactly
// when, for every resource, Daemons + Count × Pod ≤ Allocatable (pods
// count one each). The order of the verdicts is the estimates'. It fails
// only for a negative request or count.
func CheckFit(estimates []Estimate, req FitRequest) (Fit, error) {
	if err := req.validate(); err != nil {
		return Fit{}, err
	}
	need := req.need()
	out := Fit{Request: req, Verdicts: make([]Verdict, len(estimates))}
	for i := range estimates {
		out.Verdicts[i] = verdict(&estimates[i], req, need)
	}
	return out, nil
}

func (q FitRequest) validate() error {
	if q.Count < 0 {
		return fmt.Errorf("capacity: FitRequest.Count is %d; ask for 0 or more pods (0 means 1)", q.Count)
	}
	for r := range numResources {
		if v := q.Pod.Get(r); v < 0 {
			return fmt.Errorf("capacity: FitRequest.Pod has %s %d; requests are 0 or more", r, v)
		}
		if v := q.Daemons.Get(r); v < 0 {
			return fmt.Errorf("capacity: FitRequest.Daemons has %s %d; requests are 0 or more", r, v)
		}
	}
	return nil
}

func verdict(est *Estimate, req FitRequest, need Quantities) Verdict {
	v := Verdict{InstanceType: est.InstanceType}
	if est.Err() != nil {
		v.Unresolved = est.Unknown[0].Detail
		return v
	}
	v.Holds = holds(est.Allocatable, req)
	for r := range numResources {
		have := est.Allocatable.Get(r)
		if n := need.Get(r); n > have {
			v.Short = append(v.Short, Shortfall{Resource: r, Need: n, Allocatable: have, By: n - have, Cause: cause(est, r, n)})
		}
	}
	v.Fits = len(v.Short) == 0
	return v
}

// holds is the most pods of req that fit in allocatable beside its
// daemons.
func holds(alloc Quantities, req FitRequest) int64 {
	pod := req.Pod
	pod.Pods = 1
	best := int64(-1)
	for r := range numResources {
		left := alloc.Get(r) - req.Daemons.Get(r)
		if left < 0 {
			return 0
		}
		if per := pod.Get(r); per > 0 {
			if n := left / per; best < 0 || n < best {
				best = n
			}
		}
	}
	return max(best, 0)
}

// cause is the term that makes est too small for need of r.
func cause(est *Estimate, r Resource, need int64) Term {
	var capTerm, largest Term
	for _, t := range est.Terms {
		if t.Resource != r {
			continue
		}
		if t.Kind == KindCapacity {
			capTerm = t
		} else if t.Amount > largest.Amount {
			largest = t
		}
	}
	if need > capTerm.Amount || largest.Amount == 0 {
		return capTerm
	}
	return largest
}

// Fitting returns the instance types that hold the request, in order.
func (f Fit) Fitting() []string {
	var names []string
	for _, v := range f.Verdicts {
		if v.Fits {
			names = append(names, v.InstanceType)
		}
	}
	return names
}

// String explains the verdicts: which types hold the request, and for each
// that does not, every resource it lacks, by how much and the term that
// makes it too small. It is the answer to "no instance type met the
// requirements".
func (f Fit) String() string {
	var b strings.Builder
	need := f.Request.need()
	fits := f.Fitting()
	fmt.Fprintf(&b, "%d of %d instance types hold %d × (%s) + daemons (%s): need %s\n",
		len(fits), len(f.Verdicts), max(f.Request.Count, 1), podRequests(f.Request.Pod), f.Request.Daemons, need)
	if len(fits) > 0 {
		b.WriteString("  fit: ")
		b.WriteString(strings.Join(fits, ", "))
		b.WriteByte('\n')
	}
	for _, v := range f.Verdicts {
		switch {
		case v.Fits:
		case v.Unresolved != "":
			fmt.Fprintf(&b, "  %s: cannot tell: %s\n", v.InstanceType, v.Unresolved)
		default:
			fmt.Fprintf(&b, "  %s: holds %s\n", v.InstanceType, strconv.FormatInt(v.Holds, 10))
			for _, s := range v.Short {
				b.WriteString("    ")
				b.WriteString(s.String())
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// podRequests formats a pod's requests without its pods field.
func podRequests(q Quantities) string {
	parts := make([]string, 0, 3)
	for _, r := range []Resource{ResourceCPU, ResourceMemory, ResourceEphemeralStorage} {
		parts = append(parts, r.String()+"="+FormatQuantity(r, q.Get(r)))
	}
	return strings.Join(parts, " ")
}
