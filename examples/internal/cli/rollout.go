package cli

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
)

// Rollout is the -min-age, -now and -nodes flags: a soak time before a
// new image is selected, the instant ages and deprecations are judged
// at, and the images nodes run today, for a drift plan
// (amiselect.PlanDrift). Register adds them; Parse reads them.
type Rollout struct {
	// MinAge is -min-age, amiselect.SelectOptions.MinAge; 0 when not given.
	MinAge time.Duration
	// Now is -now; zero means the clock.
	Now time.Time
	// Nodes is -nodes, in the order given; nil when not given.
	Nodes []amiselect.Running

	minAge, now, nodes string
}

// Register adds -min-age, -now and -nodes to fs.
func (r *Rollout) Register(fs *flag.FlagSet) {
	fs.StringVar(&r.minAge, "min-age", "", "soak time: a new image waits until it is `duration` old (e.g. 168h) while an older one of its\n"+
		"role serves; the images held back are listed with when each comes of age (default: none)")
	fs.StringVar(&r.nodes, "nodes", "", "the images nodes run today, comma-separated `ami-id[=count]`: show for each whether its\n"+
		"nodes drift under the selection, why, and to what")
	fs.StringVar(&r.now, "now", "", "judge deprecation and age at `time` (RFC 3339, e.g. 2026-07-16T00:00:00Z) instead of now")
}

// Parse reads -min-age, -now and -nodes; set is [Set] of the flag set.
// Errors are *[UsageError]s.
func (r *Rollout) Parse(set map[string]bool) error {
	if set["min-age"] {
		// Go's duration syntax, as Karpenter's durations (expireAfter,
		// consolidateAfter) take it: no days.
		d, err := time.ParseDuration(r.minAge)
		if err != nil {
			return Usagef("-min-age %q is not a duration; write hours, minutes or seconds, such as 168h for a week", r.minAge)
		}
		if d < 0 {
			return Usagef("-min-age %v is negative; give a soak time of 0 or more, such as 168h", d)
		}
		r.MinAge = d
	}
	if set["now"] {
		t, err := time.Parse(time.RFC3339, r.now)
		if err != nil {
			return Usagef("-now %q is not an RFC 3339 time; write e.g. 2026-07-16T00:00:00Z", r.now)
		}
		r.Now = t
	}
	if set["nodes"] {
		nodes, err := ParseNodes(r.nodes)
		if err != nil {
			return Usagef("-nodes %q: %w", r.nodes, err)
		}
		r.Nodes = nodes
	}
	return nil
}

// SelectOptions are the options -min-age and -now give amiselect.Select.
func (r Rollout) SelectOptions() amiselect.SelectOptions {
	so := amiselect.SelectOptions{MinAge: r.MinAge}
	if !r.Now.IsZero() {
		at := r.Now
		so.Now = func() time.Time { return at }
	}
	return so
}

// ParseNodes reads -nodes: comma-separated image ids, each optionally
// with "=count", the number of nodes running it.
func ParseNodes(s string) ([]amiselect.Running, error) {
	var out []amiselect.Running
	for i, f := range strings.Split(s, ",") {
		id, count, counted := strings.Cut(strings.TrimSpace(f), "=")
		r := amiselect.Running{ImageID: id}
		// The id rule is the one amiSelectorTerms ids follow.
		if _, err := amiselect.Queries([]amiselect.Term{{ID: id}}, amiselect.QueryOptions{}); err != nil {
			return nil, fmt.Errorf("entry %d: %q is not an AMI id; write ami-id or ami-id=count, as in ami-0abc=3,ami-0def", i+1, id)
		}
		if counted {
			n, err := strconv.Atoi(count)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("entry %d: count %q is not a number of nodes; write %s=3, or %s without a count", i+1, count, id, id)
			}
			r.Nodes = n
		}
		out = append(out, r)
	}
	return out, nil
}

// HeldImage is one image a soak time holds back, once however many roles
// it waits in (AL2's accelerated image waits as NVIDIA and as Neuron).
type HeldImage struct {
	ID, Name string
	// EligibleAt is when it comes of age; SelectedAt when a role first
	// selects it (zero: never, as things stand).
	EligibleAt, SelectedAt time.Time
	// Serving lists the AMIs its roles keep meanwhile, in order, once
	// each.
	Serving []string
}

// HeldImages gathers a Selection's held-back entries by image, in the
// order of their first entry (soonest first); an image's SelectedAt is
// the soonest of its roles'.
func HeldImages(held []amiselect.HeldBack) []HeldImage {
	var out []HeldImage
	at := map[string]int{}
	for _, h := range held {
		i, seen := at[h.AMI.ID]
		if !seen {
			i = len(out)
			at[h.AMI.ID] = i
			out = append(out, HeldImage{ID: h.AMI.ID, Name: h.AMI.Name, EligibleAt: h.EligibleAt, SelectedAt: h.SelectedAt})
		}
		e := &out[i]
		if !h.SelectedAt.IsZero() && (e.SelectedAt.IsZero() || h.SelectedAt.Before(e.SelectedAt)) {
			e.SelectedAt = h.SelectedAt
		}
		if !slices.Contains(e.Serving, h.Winner.ID) {
			e.Serving = append(e.Serving, h.Winner.ID)
		}
	}
	return out
}

// Until says until when a held-back image waits, for one line of output:
// its EligibleAt; "T, selected from S" when a tie keeps it out longer; or
// "never selected (comes of age at T, deprecated or outranked first)".
func (h HeldImage) Until() string {
	e := h.EligibleAt.Format(time.RFC3339)
	switch {
	case h.SelectedAt.Equal(h.EligibleAt):
		return e
	case !h.SelectedAt.IsZero():
		return e + ", selected from " + h.SelectedAt.Format(time.RFC3339)
	}
	return "never selected (comes of age at " + e + ", deprecated or outranked first)"
}

// NextChanges says what changes at the first change's instant: "T: X
// replaces Y (amd64 standard); ...", or "" when nothing is due.
func NextChanges(changes []amiselect.Change) string {
	if len(changes) == 0 {
		return ""
	}
	var parts []string
	for _, c := range changes {
		if !c.At.Equal(changes[0].At) {
			break
		}
		parts = append(parts, fmt.Sprintf("%s replaces %s (%s %s)", c.To.ID, c.From.ID, c.To.Arch, c.To.Variant))
	}
	return changes[0].At.Format(time.RFC3339) + ", when " + strings.Join(parts, "; ")
}

// DriftCounts is a drift plan's summary: "2 of 3 images drift, 6 of 12
// nodes", or, when no count was given (-nodes ami-0abc,ami-0def), "2 of 3
// images drift; no node counts given", or "none" for no image.
func DriftCounts(images, drifting, nodes, driftingNodes int) string {
	if images == 0 {
		return "none"
	}
	s := fmt.Sprintf("%d of %s drift", drifting, Count(images, "image"))
	if nodes == 0 {
		return s + "; no node counts given"
	}
	return s + fmt.Sprintf(", %d of %s", driftingNodes, Count(nodes, "node"))
}
