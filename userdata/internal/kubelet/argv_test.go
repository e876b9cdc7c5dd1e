package kubelet

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseArgs pins how the kubelet reads its argv: pflag's long and
// short flag forms (spf13/pflag flag.go parseLongArg, parseShortArg), '_'
// normalized to '-' (cmd/kubelet/app/server.go, the flag set's
// normalize func), and the kubelet's refusal of stray arguments ("unknown
// command", cmd/kubelet/app/server.go RunE) and unknown flags.
func TestParseArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		releases  Releases
		want      []Arg
		exit      string
		versioned string
		bad       int
	}{
		{name: "name=value", args: []string{"--max-pods=110"}, want: []Arg{{"max-pods", "110"}}},
		{name: "name value", args: []string{"--max-pods", "110"}, want: []Arg{{"max-pods", "110"}}},
		{name: "a value that looks like a flag", args: []string{"--node-labels", "--x"}, want: []Arg{{"node-labels", "--x"}}},
		{name: "underscores", args: []string{"--max_pods=1"}, want: []Arg{{"max-pods", "1"}}},
		{name: "a bool alone", args: []string{"--cgroups-per-qos", "--max-pods=1"}, want: []Arg{{"cgroups-per-qos", ""}, {"max-pods", "1"}}},
		{name: "a bool with =false", args: []string{"--cgroups-per-qos=false"}, want: []Arg{{"cgroups-per-qos", "false"}}},
		{name: "a bool with a separate value", args: []string{"--cgroups-per-qos", "false"}, exit: "the kubelet gets the stray argument \"false\" (\"unknown command\"); a bool flag takes its value as --flag=false, and values with spaces need quotes", bad: 1},
		{name: "-v value", args: []string{"-v", "2"}, want: []Arg{{"v", "2"}}},
		{name: "-v=value", args: []string{"-v=2"}, want: []Arg{{"v", "2"}}},
		{name: "-vvalue", args: []string{"-v2"}, want: []Arg{{"v", "2"}}},
		{name: "-v at the end", args: []string{"-v"}, exit: "the kubelet flag -v has no value (\"flag needs an argument\")", bad: 0},
		{name: "-h", args: []string{"-h"}, exit: "-h makes the kubelet print its usage and exit", bad: 0},
		{name: "a single-dash long flag", args: []string{"-max-pods=1"}, exit: "the kubelet reads \"-max-pods=1\" as one-letter flags and has no -m (\"unknown shorthand flag\"); long flags start with --", bad: 0},
		{name: "unknown", args: []string{"--max-pods=1", "--no-such-flag=1"}, exit: "the kubelet has no flag --no-such-flag (\"unknown flag\")", bad: 1},
		{name: "help", args: []string{"--help"}, exit: "--help makes the kubelet print and exit", bad: 0},
		{name: "version", args: []string{"--version=true"}, exit: "--version makes the kubelet print and exit", bad: 0},
		{name: "a value missing at the end", args: []string{"--node-labels"}, exit: "the kubelet flag --node-labels has no value (\"flag needs an argument\")", bad: 0},
		{name: "-- ends the flags", args: []string{"--max-pods=1", "--"}, want: []Arg{{"max-pods", "1"}}},
		{name: "an argument after --", args: []string{"--", "x"}, exit: "the kubelet gets the stray argument \"x\" (\"unknown command\")", bad: 1},
		{name: "a lone dash", args: []string{"-"}, exit: "the kubelet gets the stray argument \"-\" (\"unknown command\"); a bool flag takes its value as --flag=false, and values with spaces need quotes", bad: 0},
		// --config-dir is in v1.28 and later; AL2 ships v1.24 too.
		{name: "a flag only some AL2 releases have", args: []string{"--config-dir=/d"}, releases: ReleasesAL2, want: []Arg{{"config-dir", "/d"}}, versioned: "config-dir"},
		{name: "the same flag on current releases", args: []string{"--config-dir=/d"}, want: []Arg{{"config-dir", "/d"}}},
		// --container-runtime was removed in v1.27.
		{name: "a flag no current release has", args: []string{"--container-runtime=remote"}, exit: "the kubelet has no flag --container-runtime (\"unknown flag\")", bad: 0},
		{name: "no arguments", args: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			releases := tt.releases
			if releases == 0 {
				releases = ReleasesCurrent
			}
			if tt.exit == "" {
				tt.bad = -1
			}
			flags, exit, versioned, bad := ParseArgs(tt.args, releases)
			if diff := cmp.Diff(tt.want, flags); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
			if exit != tt.exit || versioned != tt.versioned || bad != tt.bad {
				t.Errorf("exit %q, versioned %q, bad %d; want %q, %q, %d", exit, versioned, bad, tt.exit, tt.versioned, tt.bad)
			}
		})
	}
}

// TestFlagTable: the table's facts the model relies on, spot-checked
// against the releases' cmd/kubelet/app/options/options.go:
// --register-with-taints and --node-labels in every release from 1.24 to
// 1.36, a bool is marked bool, --container-runtime only before 1.27
// (v1.26.15 pkg/kubelet/config/flags.go L54 registers it; v1.27.16 does
// not), --config-dir from 1.28, and the empty release set knows nothing.
func TestFlagTable(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"register-with-taints", "node-labels", "max-pods", "cloud-provider", "config"} {
		if in, _, isBool := lookupFlag(name, ReleasesAll); in != ReleasesAll || isBool {
			t.Errorf("--%s in %v, bool %v; want a value flag in every release", name, in, isBool)
		}
	}
	if in, _, isBool := lookupFlag("cpu-cfs-quota", ReleasesCurrent); in != ReleasesCurrent || !isBool {
		t.Errorf("--cpu-cfs-quota in %v, bool %v; want a bool in every current release", in, isBool)
	}
	// --container-runtime: registered by pkg/kubelet/config/flags.go L54 in
	// k8s.io/kubernetes v1.24.17 to v1.26.15 (deprecated, "will be removed in
	// 1.27"); v1.27.16 has no such flag.
	if in, unknown, _ := lookupFlag("container-runtime", ReleasesAll); in != Span(24, 26) || unknown != 0 {
		t.Errorf("--container-runtime in %v, unknown in %v; want 1.24–1.26, none unknown", in, unknown)
	}
	if in, _, _ := lookupFlag("config-dir", ReleasesAll); in != Span(28, LastMinor) {
		t.Errorf("--config-dir in %v; want 1.28–1.36", in)
	}
	if in, _, _ := lookupFlag("max-pods", 0); in != 0 {
		t.Error("the empty release set knows --max-pods")
	}
}
