package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity says what a finding means for the manifests:
//   - error: kubectl apply refuses them, or Karpenter v1.14.1 refuses them,
//     launches nothing with them or launches nodes that never join;
//   - warning: they work, but not as written (settings that never apply,
//     pods that land where they were not meant to);
//   - notice: what preflight could not check, or Karpenter does silently
//     and on purpose.
//
// -fail-on picks the lowest severity that fails the run.
type Severity string

const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
	SevNotice  Severity = "notice"
)

// rank orders severities, error first.
func (s Severity) rank() int {
	switch s {
	case SevError:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// Report is everything preflight found; -o json prints it as is, with an
// empty list as [] (never null).
type Report struct {
	Source            string    `json:"source"`
	KubernetesVersion string    `json:"kubernetesVersion"`
	KarpenterVersion  string    `json:"karpenterVersion"`
	InstanceTypes     int       `json:"instanceTypes"`
	Files             []string  `json:"files"`
	Pairs             []Pair    `json:"pairs"`
	Order             []Ordered `json:"nodePoolOrder"`
	Overlaps          []Overlap `json:"overlaps"`
	Findings          []Finding `json:"findings"`
	Skipped           []string  `json:"skipped"`
	Errors            int       `json:"errors"`
	Warnings          int       `json:"warnings"`
	Notices           int       `json:"notices"`
}

// Pair is one NodePool with the EC2NodeClass its nodeClassRef names.
type Pair struct {
	NodePool      string         `json:"nodePool"`
	NodeClass     string         `json:"nodeClass"`
	AMIs          []AMIRow       `json:"amis"`
	Refused       []Refused      `json:"refused"`
	InstanceTypes int            `json:"instanceTypes"` // the NodePool allows
	CannotLaunch  []Unlaunchable `json:"cannotLaunch"`
	UserData      *UserData      `json:"userData,omitempty"`
}

type AMIRow struct {
	ID            string   `json:"id"`
	Name          string   `json:"name"`
	Family        string   `json:"family"`
	Arch          string   `json:"arch"`
	Variant       string   `json:"variant"`
	InstanceTypes int      `json:"instanceTypes"`
	Examples      []string `json:"examples"`
}

type Refused struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Unlaunchable is a set of instance types with the same fix.
type Unlaunchable struct {
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
	Fix      string   `json:"fix"`
}

type UserData struct {
	Family   string   `json:"family"`
	Verdict  string   `json:"verdict"`
	Reason   string   `json:"reason,omitempty"`
	Taints   []string `json:"taints"`
	Problems []string `json:"problems"`
}

// Ordered is one NodePool in the order its controller tries them.
type Ordered struct {
	NodePool string `json:"nodePool"`
	Weight   int32  `json:"weight"`
	// Controller is the node class kind that decides who runs the
	// NodePool: karpenter.k8s.aws/EC2NodeClass for Karpenter's AWS
	// provider, eks.amazonaws.com/NodeClass for EKS Auto Mode.
	Controller string `json:"controller"`
}

type Overlap struct {
	NodePools     [2]string `json:"nodePools"`
	InstanceTypes int       `json:"instanceTypes"`
	First         string    `json:"first"`
}

// Finding is one problem, with where it is and the fix. Code is stable
// (see codes.go); Problem is the number of the DESIGN problem it is (1 to
// 5), or 0.
type Finding struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Problem  int      `json:"problem,omitempty"`
	Where    string   `json:"where"`
	// Subjects are the resources the finding is about: one, or the
	// NodePools that share an EC2NodeClass's problem.
	Subjects []string `json:"subjects"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix"`
	// Suggested is manifests that fix the finding, when preflight can
	// write them (problem 4's weighted NodePools).
	Suggested string `json:"suggested,omitempty"`
}

// findings collects findings and merges those with one root cause: the
// same code, place and message reported for several NodePools is one
// finding naming them all.
type findings struct{ list []Finding }

func (fs *findings) add(f Finding) {
	for i := range fs.list {
		g := &fs.list[i]
		if g.Code == f.Code && g.Where == f.Where && g.Message == f.Message && g.Severity == f.Severity {
			for _, s := range f.Subjects {
				if !slices.Contains(g.Subjects, s) {
					g.Subjects = append(g.Subjects, s)
				}
			}
			return
		}
	}
	if f.Subjects == nil {
		f.Subjects = []string{}
	}
	fs.list = append(fs.list, f)
}

// sorted returns the findings most severe first, then by place, so that
// the output does not depend on map order.
func (fs *findings) sorted() []Finding {
	out := slices.Clone(fs.list)
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Severity.rank(), b.Severity.rank()), compareWhere(a.Where, b.Where), strings.Compare(a.Code, b.Code))
	})
	for i := range out {
		slices.Sort(out[i].Subjects)
	}
	if out == nil {
		out = []Finding{}
	}
	return out
}

// compareWhere orders "file:line" places by file, then line as a number.
func compareWhere(a, b string) int {
	fa, la := splitWhere(a)
	fb, lb := splitWhere(b)
	return cmp.Or(strings.Compare(fa, fb), cmp.Compare(la, lb))
}

func splitWhere(w string) (string, int) {
	i := strings.LastIndexByte(w, ':')
	if i < 0 {
		return w, 0
	}
	var n int
	if _, err := fmt.Sscan(w[i+1:], &n); err != nil {
		return w, 0
	}
	return w[:i], n
}

// count fills in the report's totals.
func (r *Report) count() {
	r.Errors, r.Warnings, r.Notices = 0, 0, 0
	for _, f := range r.Findings {
		switch f.Severity {
		case SevError:
			r.Errors++
		case SevWarning:
			r.Warnings++
		default:
			r.Notices++
		}
	}
}

// failing is how many findings are at least as severe as failOn.
func (r *Report) failing(failOn Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity.rank() <= failOn.rank() {
			n++
		}
	}
	return n
}

// nonNil makes every list of the report [] rather than null in JSON.
func (r *Report) nonNil() {
	if r.Files == nil {
		r.Files = []string{}
	}
	if r.Pairs == nil {
		r.Pairs = []Pair{}
	}
	if r.Order == nil {
		r.Order = []Ordered{}
	}
	if r.Overlaps == nil {
		r.Overlaps = []Overlap{}
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	if r.Skipped == nil {
		r.Skipped = []string{}
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		if p.AMIs == nil {
			p.AMIs = []AMIRow{}
		}
		if p.Refused == nil {
			p.Refused = []Refused{}
		}
		if p.CannotLaunch == nil {
			p.CannotLaunch = []Unlaunchable{}
		}
		for j := range p.AMIs {
			if p.AMIs[j].Examples == nil {
				p.AMIs[j].Examples = []string{}
			}
		}
		if u := p.UserData; u != nil {
			if u.Taints == nil {
				u.Taints = []string{}
			}
			if u.Problems == nil {
				u.Problems = []string{}
			}
		}
	}
}
