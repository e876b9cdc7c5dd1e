package cli

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
)

func TestRollout(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want Rollout
		err  string
	}{
		{"none", nil, Rollout{}, ""},
		{"all", []string{"-min-age", "168h", "-now", "2026-07-16T00:00:00Z", "-nodes", "ami-0abc=3, ami-0def,ami-0abc=0"},
			Rollout{MinAge: 168 * time.Hour, Now: time.Date(2026, 7, 16, 0, 0, 0, 0, time.UTC),
				Nodes: []amiselect.Running{{ImageID: "ami-0abc", Nodes: 3}, {ImageID: "ami-0def"}, {ImageID: "ami-0abc"}}}, ""},
		{"negative", []string{"-min-age", "-1h"}, Rollout{}, "-min-age -1h0m0s is negative"},
		{"days", []string{"-min-age", "7d"}, Rollout{}, `-min-age "7d" is not a duration; write hours, minutes or seconds, such as 168h`},
		{"date only", []string{"-now", "2026-07-16"}, Rollout{}, `-now "2026-07-16" is not an RFC 3339 time`},
		{"not an id", []string{"-nodes", "ami-0abc=3,i-0123"}, Rollout{}, `-nodes "ami-0abc=3,i-0123": entry 2: "i-0123" is not an AMI id`},
		{"bad count", []string{"-nodes", "ami-0abc=three"}, Rollout{}, `entry 1: count "three" is not a number of nodes`},
		{"negative count", []string{"-nodes", "ami-0abc=-1"}, Rollout{}, `count "-1"`},
		{"empty entry", []string{"-nodes", "ami-0abc,,ami-0def"}, Rollout{}, `entry 2: "" is not an AMI id`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var r Rollout
			r.Register(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			err := r.Parse(Set(fs))
			if tc.err != "" {
				if ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Parse(%q) = %v; want a usage error with %q", tc.args, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.MinAge != tc.want.MinAge || !r.Now.Equal(tc.want.Now) {
				t.Errorf("Parse(%q): MinAge %v, Now %v; want %v, %v", tc.args, r.MinAge, r.Now, tc.want.MinAge, tc.want.Now)
			}
			if diff := cmp.Diff(tc.want.Nodes, r.Nodes); diff != "" {
				t.Errorf("Parse(%q) Nodes mismatch (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

// SelectOptions carries -min-age, and -now as a fixed clock; without
// -now, the clock is Select's own.
func TestRolloutSelectOptions(t *testing.T) {
	at := time.Date(2026, 7, 16, 0, 0, 0, 0, time.UTC)
	so := Rollout{MinAge: time.Hour, Now: at}.SelectOptions()
	if so.MinAge != time.Hour || so.Now == nil || !so.Now().Equal(at) {
		t.Errorf("SelectOptions = %+v; want MinAge 1h and a clock at %v", so, at)
	}
	if so := (Rollout{}).SelectOptions(); so.MinAge != 0 || so.Now != nil {
		t.Errorf("zero Rollout's SelectOptions = %+v; want the zero value", so)
	}
}

// -nodes: never a panic; what parses has an entry per comma-separated
// field, in order, each the field's id with a count of 0 or more. The id
// rule is amiSelectorTerms' (it contains "ami-"; fixture ids such as
// "ami-id-amd64" pass), not EC2's hex form.
func FuzzParseNodes(f *testing.F) {
	for _, s := range []string{"ami-0abc=3,ami-0def", "ami-0abc=-1", "i-0123", ",", "ami-0abc==3", "ami-0abc=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nodes, err := ParseNodes(s)
		if err != nil {
			return
		}
		if len(nodes) != strings.Count(s, ",")+1 {
			t.Fatalf("ParseNodes(%q) = %d entries", s, len(nodes))
		}
		for i, f := range strings.Split(s, ",") {
			id, _, _ := strings.Cut(strings.TrimSpace(f), "=")
			if n := nodes[i]; n.Nodes < 0 || n.ImageID != id || !strings.Contains(id, "ami-") {
				t.Fatalf("ParseNodes(%q) entry %d = %+v from %q", s, i+1, n, f)
			}
		}
	})
}

func TestDriftCounts(t *testing.T) {
	for _, tc := range []struct {
		images, drifting, nodes, driftingNodes int
		want                                   string
	}{
		{3, 2, 12, 6, "2 of 3 images drift, 6 of 12 nodes"},
		{1, 1, 1, 1, "1 of 1 image drift, 1 of 1 node"},
		{2, 1, 0, 0, "1 of 2 images drift; no node counts given"},
		{0, 0, 0, 0, "none"},
	} {
		if got := DriftCounts(tc.images, tc.drifting, tc.nodes, tc.driftingNodes); got != tc.want {
			t.Errorf("DriftCounts(%d, %d, %d, %d) = %q, want %q", tc.images, tc.drifting, tc.nodes, tc.driftingNodes, got, tc.want)
		}
	}
}
