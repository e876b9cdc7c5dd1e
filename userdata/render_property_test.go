package userdata_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// customKind is what a generated custom part does, as the test knows it
// independently of Lint.
type customKind uint8

const (
	harmless   customKind = iota // changes nothing the join or the kubelet reads
	dropsTaint                   // makes the kubelet register without a taint Render writes
	unfollowed                   // changes the join's files in a way Lint does not model
	callsJoin                    // calls the join or starts the kubelet itself
)

type customPart struct {
	text string
	kind customKind
	// only: the one family the part is harmless on (empty: every family).
	// Writing a file nodeadm's kubelet reads is harmless on AL2 only (Lint
	// does not model it on AL2023); a bare nodeadm init on AL2023 only (AL2
	// has no nodeadm, and Lint does not model a missing command).
	only compat.AMIFamily
}

// customParts are bodies of text/x-shellscript parts (or whole cloud-init
// texts), by what they do.
var customParts = []customPart{
	{"#!/bin/bash\nyum install -y htop\n", harmless, ""},
	{"#!/bin/bash\nsysctl -w vm.max_map_count=262144\necho 'fs.inotify.max_user_watches=524288' >> /etc/sysctl.conf\n", harmless, ""},
	{"#cloud-boothook\n#!/bin/bash\necho 'vm.max_map_count=262144' >> /etc/sysctl.conf\n", harmless, ""},
	{"#cloud-config\nruncmd:\n  - [sh, -c, \"echo hello > /var/log/hello.log\"]\n", harmless, ""},
	{"#cloud-config\nwrite_files:\n  - path: /etc/sysctl.d/90-vm.conf\n    content: vm.max_map_count=262144\n", harmless, ""},
	{"#!/bin/bash\nif [ -b /dev/nvme1n1 ]; then mkfs.xfs -f /dev/nvme1n1; mkdir -p /data; mount /dev/nvme1n1 /data; fi\n", harmless, ""},
	{"#!/bin/bash\necho '[Service]' > /etc/systemd/system/kubelet.service.d/http-proxy.conf\necho 'Environment=\"HTTP_PROXY=http://p:3128\"' >> /etc/systemd/system/kubelet.service.d/http-proxy.conf\n", harmless, compat.AL2},
	{"#!/bin/bash\necho \"$(jq '.serializeImagePulls = true' /etc/kubernetes/kubelet/kubelet-config.json)\" > /etc/kubernetes/kubelet/kubelet-config.json\n", harmless, compat.AL2},
	{"#!/bin/bash\nsed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --v=4\"' /etc/eks/bootstrap.sh\n", harmless, compat.AL2},
	// aws/containers-roadmap#864's workaround: a second --register-with-taints,
	// which the kubelet keeps over Render's.
	{"#!/bin/bash\nsed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=spot=true:NoSchedule\"' /etc/eks/bootstrap.sh\n", dropsTaint, ""},
	{"#!/bin/bash\ncat > /etc/systemd/system/kubelet.service.d/40-args.conf <<'EOF'\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--v=2'\nEOF\n", dropsTaint, ""},
	{"#!/bin/bash\ncurl -sfo /etc/eks/bootstrap.sh https://example.com/bootstrap.sh\n", unfollowed, ""},
	{"#!/bin/bash\nsed -i 's/--node-labels=/--register-with-taints=x:NoSchedule --node-labels=/' \"$(dirname \"$0\")/part-002\"\n", unfollowed, ""},
	{"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n", callsJoin, ""},
	{"#!/bin/bash\nsh -c 'systemctl restart kubelet'\n", callsJoin, ""},
	// A bare nodeadm init reads the NodeConfig nodeadm's units read,
	// Render's included, and starts the same kubelet earlier: Lint proves
	// it harmless (CodeRepeatedJoin, a warning).
	{"#!/bin/bash\nnodeadm init\n", harmless, compat.AL2023},
	{"#!/bin/bash\nnodeadm init --config-source file:///etc/other.yaml\n", callsJoin, ""},
}

// TestRenderCustomPartsProperty: for random configs with random custom
// parts, on AL2, AL2023 and Custom, Render refuses with a reason, or Lint
// of what it writes joins with exactly the effective taints (with
// Config.AllowUnresolved, it may also be unresolved, never certain that a
// taint is missing). A part that drops a taint is always refused;
// harmless parts with clean taints are always accepted.
func TestRenderCustomPartsProperty(t *testing.T) {
	pool := []userdata.Taint{
		{Key: "dedicated", Value: "gpu", Effect: userdata.NoSchedule},
		{Key: "team", Value: "a", Effect: userdata.NoExecute},
		{Key: "spot", Effect: userdata.PreferNoSchedule},
		{Key: "example.com/agent-not-ready", Effect: userdata.NoExecute},
	}
	byString := func(t userdata.Taint) string { return t.String() }
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom([]compat.AMIFamily{compat.AL2, compat.AL2023, compat.Custom}).Draw(t, "family")
		cfg := renderConfig("")
		cfg.Taints = rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 0, 2, byString).Draw(t, "taints")
		cfg.StartupTaints = rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 0, 2, byString).Draw(t, "startupTaints")
		cfg.AllowUnresolved = rapid.Bool().Draw(t, "allowUnresolved")
		parts := rapid.SliceOfN(rapid.SampledFrom(customParts), 0, 3).Draw(t, "parts")
		want, clean := expectedTaints(cfg)
		effective := effective(cfg)
		worst, configs := harmless, 0
		var texts []string
		for _, p := range parts {
			k := p.kind
			if p.only != "" && f != p.only {
				k = max(k, unfollowed)
			}
			worst = max(worst, k)
			if strings.HasPrefix(p.text, "#cloud-config") {
				configs++
			}
			texts = append(texts, "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n"+p.text)
		}
		if f == compat.Custom {
			// The whole userData: the parts, then a join that registers
			// every effective taint.
			texts = append(texts, shellPart("zz-join.sh", "#!/bin/bash\n"+join("--register-with-taints="+userdata.FormatTaints(effective))+"\n"))
		}
		switch {
		case len(texts) == 1 && f != compat.Custom:
			cfg.CustomUserData = []byte(parts[0].text)
		case len(texts) > 0:
			cfg.CustomUserData = []byte(mime(texts...))
		}
		out, rep, err := userdata.RenderWithReport(f, cfg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "userdata: ") {
				t.Fatalf("refusal without the package prefix: %v", err)
			}
			var le *userdata.LintError
			if len(parts) > 0 && !errors.As(err, &le) {
				t.Fatalf("a refusal of custom parts is not a *LintError: %v", err)
			}
			if worst == harmless && clean && configs < 2 && !(f == compat.Custom && callsJoinCount(parts) > 0) {
				t.Fatalf("Render refused harmless custom parts and clean taints: %v\ncustom:\n%s", err, cfg.CustomUserData)
			}
			return
		}
		if worst == callsJoin && f != compat.Custom && !cfg.AllowUnresolved {
			t.Fatalf("Render accepted a custom part that calls the join:\n%s\nreport:\n%s", out, rep)
		}
		got, err := userdata.Lint(f, out, effective)
		if err != nil {
			t.Fatalf("Lint(Render): %v", err)
		}
		if diff := cmp.Diff(rep, got); diff != "" {
			t.Fatalf("RenderWithReport's report is not Lint's of the output (-want +got):\n%s", diff)
		}
		if drops(parts) && got.Verdict == userdata.Joins {
			t.Fatalf("Render accepted a custom part that drops a taint, and Lint says it joins:\n%s\noutput:\n%s", got, out)
		}
		if got.Verdict == userdata.Unresolved && cfg.AllowUnresolved {
			if slices.ContainsFunc(got.Problems, func(p userdata.Problem) bool { return p.Code == userdata.CodeRequiredTaintMissing }) {
				t.Fatalf("accepted under AllowUnresolved with a certainly missing taint:\n%s", got)
			}
			return
		}
		for i, s := range want {
			want[i] = strings.Replace(s, "/user", "/required", 1) // every effective taint is required here
		}
		if diff := cmp.Diff(outcome{Verdict: userdata.Joins, Taints: want}, outcomeOf(got)); diff != "" {
			t.Fatalf("Lint(Render) (-want +got):\n%s\nreport:\n%s\noutput:\n%s", diff, got, out)
		}
	})
}

// effective is Taints, StartupTaints and the required taint unless one
// matches it, as Render computes them.
func effective(cfg userdata.Config) []userdata.Taint {
	var out []userdata.Taint
	for _, t := range append(slices.Clone(cfg.Taints), cfg.StartupTaints...) {
		if !slices.ContainsFunc(out, t.Matches) {
			out = append(out, t)
		}
	}
	if !slices.ContainsFunc(out, userdata.UnregisteredTaint().Matches) {
		out = append(out, userdata.UnregisteredTaint())
	}
	return out
}

func drops(parts []customPart) bool {
	return slices.ContainsFunc(parts, func(p customPart) bool { return p.kind == dropsTaint })
}

func callsJoinCount(parts []customPart) int {
	n := 0
	for _, p := range parts {
		if p.kind == callsJoin {
			n++
		}
	}
	return n
}
