package cli

import (
	"flag"
	"fmt"
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
