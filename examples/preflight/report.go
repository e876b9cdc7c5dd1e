package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/userdata"
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
	Source            string   `json:"source"`
	KubernetesVersion string   `json:"kubernetesVersion"`
	KarpenterVersion  string   `json:"karpenterVersion"`
	InstanceTypes     int      `json:"instanceTypes"`
	Files             []string `json:"files"`
	Pairs             []Pair   `json:"pairs"`
	// NodeClasses and Unclaimed are the rollout (-min-age, -nodes): per
	// EC2NodeClass checked, the images held back and the drift plan of
	// the images nodes run that it accounts for; and the running images
	// no EC2NodeClass checked accounts for. Empty without those flags.
	NodeClasses []NodeClassRollout `json:"nodeClasses"`
	Unclaimed   []Drift            `json:"unclaimedImages"`
	nodes       bool               // -nodes was given
	Order       []Ordered          `json:"nodePoolOrder"`
	Overlaps    []Overlap          `json:"overlaps"`
	Findings    []Finding          `json:"findings"`
	// Migrations are the AL2 EC2NodeClasses' spec.userData moved to the
	// -migrate-to family; empty without the flag.
	Migrations []Migrated `json:"migrations"`
	Skipped    []string   `json:"skipped"`
	Errors     int        `json:"errors"`
	Warnings   int        `json:"warnings"`
	Notices    int        `json:"notices"`
}

// Pair is one NodePool with the EC2NodeClass its nodeClassRef names.
type Pair struct {
	NodePool  string `json:"nodePool"`
	NodeClass string `json:"nodeClass"`
	// Alternative is where the EC2NodeClass is, when the NodePool is
	// paired with several of its name from alternative files.
	Alternative   string         `json:"alternative,omitempty"`
	AMIs          []AMIRow       `json:"amis"`
	Refused       []Refused      `json:"refused"`
	InstanceTypes int            `json:"instanceTypes"` // the NodePool allows
	CannotLaunch  []Unlaunchable `json:"cannotLaunch"`
	UserData      *UserData      `json:"userData,omitempty"`
	Capacity      *Capacity      `json:"capacity,omitempty"`
	Offerings     *cli.Offerings `json:"offerings,omitempty"` // -offerings
}

// Capacity is what the nodes of a NodePool's instance types hold: an
// estimate of each type's allocatable (package capacity), and how many
// pods of the -pod size fit beside the -daemons.
type Capacity struct {
	// Family is the AMI family whose boot software the estimate models;
	// Kubelet names the configuration it takes, Volume the ephemeral
	// storage.
	Family  string `json:"family"`
	Kubelet string `json:"kubelet"`
	Volume  string `json:"volume,omitempty"`
	Pod     string `json:"pod"`
	Daemons string `json:"daemons"`
	// InstanceTypes is how many types a selected AMI runs; HoldNone those
	// of them that hold no pod of the -pod size; Unjudged those whose
	// pods capacity the estimate cannot know.
	InstanceTypes int      `json:"instanceTypes"`
	HoldNone      Examples `json:"holdNone"`
	Unjudged      int      `json:"unjudged"`
	// Smallest and Largest are the types of fewest and most vCPUs (then
	// memory) among the judged.
	Smallest *TypeFit `json:"smallest,omitempty"`
	Largest  *TypeFit `json:"largest,omitempty"`
	// Assumes is what the estimate could not know and assumed.
	Assumes []string `json:"assumes"`
	// Prices are the cheapest of the types by on-demand list price.
	Prices *Prices `json:"prices,omitempty"`
	// Unresolved is why there is no estimate.
	Unresolved string `json:"unresolved,omitempty"`
}

// TypeFit is one instance type's allocatable and the pods it holds.
type TypeFit struct {
	InstanceType string `json:"instanceType"`
	CPU          string `json:"cpu"`
	Memory       string `json:"memory"`
	Pods         int64  `json:"pods"`
	// MaxPodsFrom is the source of the pods capacity: the family's rule,
	// the user's kubelet configuration, the kubelet's default.
	MaxPodsFrom string `json:"maxPodsFrom"`
	Holds       int64  `json:"holds"`
	// LimitedBy is the resource that runs out first; Short, when Holds is
	// 0, what each short resource lacks and why.
	LimitedBy string   `json:"limitedBy"`
	Short     []string `json:"short"`
}

// Examples is a count and the first few names.
type Examples struct {
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
}

// NodeClassRollout is the rollout of one EC2NodeClass: the images a soak
// time holds back, and what happens to the nodes running each image it
// accounts for.
type NodeClassRollout struct {
	NodeClass string     `json:"nodeClass"`
	Where     string     `json:"where"`
	HeldBack  []HeldBack `json:"heldBack"`
	Drift     []Drift    `json:"drift"`
	// NextChange is when the selection next changes by itself (RFC 3339),
	// "" when nothing is due; NextChangeWhat what changes then, as
	// "ami-new replaces ami-old (amd64 standard)", "; "-separated.
	NextChange     string `json:"nextChange"`
	NextChangeWhat string `json:"nextChangeWhat"`
}

// HeldBack is an image younger than -min-age, once however many roles it
// waits in, and the AMIs that serve them meanwhile.
type HeldBack struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	EligibleAt string `json:"eligibleAt"`
	// SelectedAt is when a role first selects it; "" when none will
	// (deprecated first, or another image preferred).
	SelectedAt string `json:"selectedAt"`
	// Until is EligibleAt as the table writes it, with the exceptions.
	Until   string `json:"until"`
	Serving string `json:"serving"`
	Reason  string `json:"reason"`
}

// Drift is what happens to the nodes running one image.
type Drift struct {
	ImageID     string `json:"imageID"`
	Name        string `json:"name"`
	Nodes       int    `json:"nodes"`
	Drifts      bool   `json:"drifts"`
	Reason      string `json:"reason"`
	Replacement string `json:"replacement"`
	ReplacedAt  string `json:"replacedAt"`
	// SelectedAt is, for an image not selected now, when it is: its
	// nodes keep running until then.
	SelectedAt string `json:"selectedAt"`
	Detail     string `json:"detail"`
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
	// kubelet is the kubelet configuration the userData hands the
	// kubelet, when the node joins: for the capacity estimate.
	kubelet *userdata.KubeletConfig
	// maxPodsExpression is AL2023's spec.kubelet.maxPodsExpression, for
	// the capacity estimate.
	maxPodsExpression string
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
	if r.Migrations == nil {
		r.Migrations = []Migrated{}
	}
	if r.NodeClasses == nil {
		r.NodeClasses = []NodeClassRollout{}
	}
	if r.Unclaimed == nil {
		r.Unclaimed = []Drift{}
	}
	for i := range r.NodeClasses {
		n := &r.NodeClasses[i]
		if n.HeldBack == nil {
			n.HeldBack = []HeldBack{}
		}
		if n.Drift == nil {
			n.Drift = []Drift{}
		}
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
		if c := p.Capacity; c != nil {
			if c.HoldNone.Examples == nil {
				c.HoldNone.Examples = []string{}
			}
			if c.Assumes == nil {
				c.Assumes = []string{}
			}
			for _, t := range []*TypeFit{c.Smallest, c.Largest} {
				if t != nil && t.Short == nil {
					t.Short = []string{}
				}
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
