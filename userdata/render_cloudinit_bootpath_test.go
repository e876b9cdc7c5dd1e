package userdata_test

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func renderConfig(custom string) userdata.Config {
	return userdata.Config{
		ClusterName:       "my-cluster",
		APIServerEndpoint: endpoint,
		CABundle:          ca,
		ClusterCIDR:       "10.100.0.0/16",
		Taints:            []userdata.Taint{{Key: "dedicated", Value: "gpu", Effect: userdata.NoSchedule}},
		StartupTaints:     []userdata.Taint{{Key: "example.com/agent-not-ready", Effect: userdata.NoExecute}},
		CustomUserData:    []byte(custom),
	}
}

// renderedTaints is what Lint must find on Render's output for
// renderConfig: the configured taints (user), the required one and the
// kubelet's cloud-provider taint.
var renderedTaints = []string{
	"dedicated=gpu:NoSchedule/user",
	"example.com/agent-not-ready:NoExecute/user",
	unregistered,
	kubeletTaint,
}

// decoded returns Render's output as text: it may be base64 (as EC2 takes
// it) or raw.
func decoded(b []byte) []byte {
	if d, err := base64.StdEncoding.DecodeString(string(b)); err == nil {
		return d
	}
	return b
}

// TestBootPathRenderFailsClosed: custom userData that might start the kubelet
// or call the join itself, before or beside Render's own part, must be
// refused with an error that names the part, the line and the construct. If
// Render let it through, the kubelet could register the node before
// Render's part adds the startup taints (issue 11). Every construct is one
// cloud-init or bash runs (boot-path.md §1, §3; citations in
// lint_cloudinit_bootpath_test.go and lint_cloudinit_shell_bootpath_test.go).
func TestBootPathRenderFailsClosed(t *testing.T) {
	type refusal struct {
		name, custom string
		line         int    // 1-based line in CustomUserData
		part         string // file name the error must name, "" if not MIME
		construct    string // regexp the error must match, case-insensitive
	}
	named := func(name, body string) string { return mime(shellPart(name, body)) }
	// Body line k of a named(...) part is line partBody+k: the MIME header
	// takes 4 lines, the part headers 3 (Content-Type, Content-Disposition,
	// blank).
	const partBody = 7
	refusals := []refusal{
		{"eval", "#!/bin/bash\nyum install -y jq\neval \"$(aws ssm get-parameter --name /eks/join --query Parameter.Value --output text)\"\n", 3, "", `eval`},
		{"sh -c", "#!/bin/bash\nsh -c 'systemctl start kubelet'\n", 2, "", `sh -c`},
		{"bash -c in a named part", named("prepare.sh", "#!/bin/bash\nset -e\nbash -c \"$SETUP_CMD\"\n"), partBody + 3, "prepare.sh", `bash -c`},
		{"python part", named("setup.py", "#!/usr/bin/python3\nimport subprocess\nsubprocess.run(['yum', 'install', '-y', 'htop'])\n"), partBody + 1, "setup.py", `python`},
		{"cloud-config bootcmd starting the kubelet", "#cloud-config\nbootcmd:\n  - [ systemctl, start, kubelet ]\n", 2, "", `kubelet`},
		{"boothook starting the kubelet", mime("Content-Type: text/cloud-boothook; charset=\"us-ascii\"\n\n#cloud-boothook\n#!/bin/bash\nsystemctl start kubelet\n"), 9, "", `kubelet`},
		{"jinja part", mime("Content-Type: text/jinja2; charset=\"us-ascii\"\n\n## template: jinja\n#!/bin/bash\necho {{ v1.instance_id }} > /etc/instance-id\n"), 7, "", `jinja`},
		{"per-boot script running eval", mime("Content-Type: text/x-shellscript-per-boot; charset=\"us-ascii\"\n\n#!/bin/bash\neval \"$SETUP\"\n"), 8, "", `eval`},
		{"source", "#!/bin/bash\nsource /etc/profile.d/custom.sh\n", 2, "", `source`},
		{"#include", "#include\nhttps://example.com/bootstrap-extra.sh\n", 1, "", `include`},
		{"bootstrap.sh called by the custom part", "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n", 2, "", `bootstrap\.sh`},
		{"systemctl start kubelet", "#!/bin/bash\nsystemctl daemon-reload\nsystemctl start kubelet\n", 3, "", `kubelet`},
	}
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023} {
		for _, r := range refusals {
			t.Run(string(f)+"/"+r.name, func(t *testing.T) {
				out, err := userdata.Render(f, renderConfig(r.custom))
				if err == nil {
					t.Fatalf("Render accepted custom userData with %s; output:\n%s", r.name, decoded(out))
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "userdata: ") {
					t.Errorf("error %q lacks the userdata: prefix", msg)
				}
				if !strings.Contains(msg, fmt.Sprintf("line %d", r.line)) {
					t.Errorf("error %q does not name line %d", msg, r.line)
				}
				if r.part != "" && !strings.Contains(msg, r.part) {
					t.Errorf("error %q does not name part %s", msg, r.part)
				}
				if !regexp.MustCompile(`(?i)` + r.construct).MatchString(msg) {
					t.Errorf("error %q does not name the construct %s", msg, r.construct)
				}
			})
		}
	}
}

// TestBootPathRenderAcceptsHarmless: custom parts that neither start the
// kubelet nor join are merged, and Lint of the result joins with exactly the
// configured, required and kubelet taints.
func TestBootPathRenderAcceptsHarmless(t *testing.T) {
	both := []compat.AMIFamily{compat.AL2, compat.AL2023}
	cases := []struct {
		name     string
		families []compat.AMIFamily
		custom   string
	}{
		{"shell script installing a package", both, "#!/bin/bash\nyum install -y htop\n"},
		{"CRLF shell script", both, "#!/bin/bash\r\nyum install -y htop\r\n"},
		{"cloud-config with packages only", both, "#cloud-config\npackages:\n  - htop\n  - jq\n"},
		{"MIME with a named shell part", both, mime(shellPart("10-sysctl.sh", "#!/bin/bash\nsysctl -w vm.max_map_count=262144\n"))},
		{"shell part that sets -e and fails", both, "#!/bin/bash\nset -e\ntest -d /data || mkdir /data\n"},
		// Issue 23: parts that run before Render's join but that Lint
		// proves never touch the kubelet, the join or its files.
		{"boothook writing a sysctl file", both, mime("Content-Type: text/cloud-boothook; charset=\"us-ascii\"\n\n#cloud-boothook\n#!/bin/bash\necho 'vm.max_map_count=262144' >> /etc/sysctl.conf\n")},
		{"runcmd sh -c writing a log", both, "#cloud-config\nruncmd:\n  - [sh, -c, \"echo hello > /var/log/hello.log\"]\n"},
		{"per-boot script", both, mime("Content-Type: text/x-shellscript-per-boot; charset=\"us-ascii\"\n\n#!/bin/bash\nsysctl -w net.core.somaxconn=4096\n")},
		{"bootcmd mounting a disk", both, "#cloud-config\nbootcmd:\n  - [ cloud-init-per, once, mymount, mount, /dev/nvme1n1, /data ]\n"},
		{"write_files outside the join's files", both, "#cloud-config\nwrite_files:\n  - path: /etc/sysctl.d/90-vm.conf\n    content: vm.max_map_count=262144\n"},
		// The EKS user guide's HTTP proxy drop-in (hybrid-nodes-proxy.adoc):
		// environment for the kubelet, not its arguments.
		{"a proxy drop-in for the kubelet", []compat.AMIFamily{compat.AL2},
			"#!/bin/bash\nmkdir -p /etc/systemd/system/kubelet.service.d\ncat > /etc/systemd/system/kubelet.service.d/http-proxy.conf <<'EOF'\n[Service]\nEnvironment=\"HTTP_PROXY=http://proxy:3128\"\nEnvironment=\"NO_PROXY=169.254.169.254,.internal\"\nEOF\n"},
		{"jq setting a kubelet field bootstrap.sh keeps", []compat.AMIFamily{compat.AL2},
			"#!/bin/bash\necho \"$(jq '.serializeImagePulls = true' /etc/kubernetes/kubelet/kubelet-config.json)\" > /etc/kubernetes/kubelet/kubelet-config.json\n"},
		// nodeadm merges documents in order and Render's NodeConfig comes
		// last (nodeadm/internal/api/merge.go@81fec2e8 L14-25), so a custom
		// document that clears the list is overridden by Render's list:
		// merged as nodeadm does, not refused (issue 11, Build 4).
		{"AL2023 NodeConfig clearing registerWithTaints", []compat.AMIFamily{compat.AL2023},
			mime(nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: []\n      maxPods: 110\n"))},
		{"AL2023 NodeConfig with a label flag", []compat.AMIFamily{compat.AL2023},
			mime(nodeConfigPart("---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --node-labels=team=web\n"))},
	}
	for _, c := range cases {
		for _, f := range c.families {
			t.Run(string(f)+"/"+c.name, func(t *testing.T) {
				out, err := userdata.Render(f, renderConfig(c.custom))
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				rep, err := userdata.Lint(f, out, []userdata.Taint{userdata.UnregisteredTaint()})
				if err != nil {
					t.Fatalf("Lint(Render): %v", err)
				}
				want := outcome{Verdict: userdata.Joins, Taints: slices.Sorted(slices.Values(renderedTaints))}
				if diff := cmp.Diff(want, outcomeOf(rep)); diff != "" {
					t.Errorf("Lint(Render) (-want +got):\n%s\nreason: %s\noutput:\n%s", diff, rep.Reason, decoded(out))
				}
			})
		}
	}
}

// TestBootPathRenderProperty is issue 11's Render law: for random configs
// with random custom parts, Render errors, or Lint of its output joins with
// exactly the configured taints plus the required and kubelet-added ones.
// So that an always-failing Render cannot pass, configs whose custom parts
// are all harmless and whose taints are unique and not the kubelet's must
// render.
func TestBootPathRenderProperty(t *testing.T) {
	type custom struct {
		text     string
		harmless bool
	}
	customs := []custom{
		{"#!/bin/bash\nyum install -y htop\n", true},
		{"#cloud-config\npackages:\n  - jq\n", true},
		{"#!/bin/bash\r\nsysctl -w vm.max_map_count=262144\r\n", true},
		{"#!/bin/bash\nset -e\nmkdir -p /data\n", true},
		{"#!/bin/bash\neval \"$(curl -s http://169.254.169.254/latest/user-data-extra)\"\n", false},
		{"#!/bin/bash\nsh -c 'systemctl start kubelet'\n", false},
		{"#!/usr/bin/python3\nprint('hello')\n", false},
		{"#cloud-config\nbootcmd:\n  - echo hello\n", true},
		{"#cloud-boothook\n#!/bin/bash\necho hello\n", true},
		{"## template: jinja\n#!/bin/bash\necho {{ v1.instance_id }}\n", false},
		{"#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n", false},
		{"#!/bin/bash\nnodeadm init\n", false},
	}
	taints := []userdata.Taint{
		{Key: "dedicated", Value: "gpu", Effect: userdata.NoSchedule},
		{Key: "dedicated", Value: "cpu", Effect: userdata.NoSchedule},
		{Key: "team", Value: "a", Effect: userdata.NoExecute},
		{Key: "spot", Effect: userdata.PreferNoSchedule},
		{Key: "example.com/agent-not-ready", Effect: userdata.NoExecute},
		{Key: "karpenter.sh/unregistered", Effect: userdata.NoExecute},
		{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: userdata.NoSchedule},
	}
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom([]compat.AMIFamily{compat.AL2, compat.AL2023}).Draw(t, "family")
		cfg := renderConfig("")
		cfg.Taints = rapid.SliceOfNDistinct(rapid.SampledFrom(taints), 0, 3, func(t userdata.Taint) string { return t.String() }).Draw(t, "taints")
		cfg.StartupTaints = rapid.SliceOfNDistinct(rapid.SampledFrom(taints), 0, 2, func(t userdata.Taint) string { return t.String() }).Draw(t, "startupTaints")
		parts := rapid.SliceOfN(rapid.SampledFrom(customs), 0, 3).Draw(t, "custom")
		harmless := true
		var texts []string
		configs := 0
		for _, p := range parts {
			if strings.HasPrefix(p.text, "#cloud-config") {
				configs++
			}
			// A second cloud-config part is merged by merge_how, which
			// Lint does not follow.
			harmless = harmless && p.harmless && configs < 2
			texts = append(texts, "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n"+p.text)
		}
		switch len(parts) {
		case 0:
		case 1:
			cfg.CustomUserData = []byte(parts[0].text)
		default:
			cfg.CustomUserData = []byte(mime(texts...))
		}
		want, clean := expectedTaints(cfg)
		out, err := userdata.Render(f, cfg)
		if err != nil {
			if harmless && clean {
				t.Fatalf("Render refused harmless custom parts and clean taints: %v\ncustom:\n%s", err, cfg.CustomUserData)
			}
			return
		}
		rep, err := userdata.Lint(f, out, []userdata.Taint{userdata.UnregisteredTaint()})
		if err != nil {
			t.Fatalf("Lint(Render): %v", err)
		}
		if diff := cmp.Diff(outcome{Verdict: userdata.Joins, Taints: want}, outcomeOf(rep)); diff != "" {
			t.Fatalf("Lint(Render) (-want +got):\n%s\nreason: %s\noutput:\n%s", diff, rep.Reason, decoded(out))
		}
	})
}

// expectedTaints is what the kubelet registers for cfg if Render accepts it:
// Taints and StartupTaints (user, or required when equal to the required
// taint), the required taint, and the kubelet's own. clean reports that the
// configured taints are unique by key and effect and do not clash with the
// kubelet's, so Render has no reason to refuse them.
func expectedTaints(cfg userdata.Config) (want []string, clean bool) {
	clean = true
	seen := map[string]bool{"node.cloudprovider.kubernetes.io/uninitialized:NoSchedule": true}
	want = []string{kubeletTaint}
	hasRequired := false
	for _, t := range append(slices.Clone(cfg.Taints), cfg.StartupTaints...) {
		k := t.Key + ":" + string(t.Effect)
		if seen[k] {
			clean = false
			continue
		}
		seen[k] = true
		src := "user"
		if t == userdata.UnregisteredTaint() {
			src, hasRequired = "required", true
		}
		want = append(want, t.String()+"/"+src)
	}
	if !hasRequired {
		want = append(want, unregistered)
	}
	slices.Sort(want)
	return want, clean
}

// TestBootPathRenderAL2023FailsClosed: custom parts that break or bypass
// nodeadm's reading of Render's NodeConfig. One NodeConfig part that does not
// decode makes nodeadm drop every user-data NodeConfig, Render's included
// (nodeadm/internal/configprovider/mime.go@81fec2e8 L62-65, chain.go
// L44-46); a script writing into /etc/eks/nodeadm.d adds NodeConfig that
// nodeadm-run merges after the user data (nodeadm-run.service L6, L11).
func TestBootPathRenderAL2023FailsClosedPending(t *testing.T) {
	cases := []struct {
		name, custom, lineAt, construct string
	}{
		{"NodeConfig with an unregistered apiVersion",
			mime(nodeConfigPart("---\napiVersion: node.eks.aws/v1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 110\n")),
			"apiVersion: node.eks.aws/v1\n", `node\.eks\.aws/v1\b|apiVersion|decode`},
		{"script writing into /etc/eks/nodeadm.d",
			"#!/bin/bash\ncat > /etc/eks/nodeadm.d/99-extra.yaml <<'EOF'\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags:\n      - --register-with-taints=spot=true:NoSchedule\nEOF\n",
			"cat > /etc/eks/nodeadm.d", `nodeadm\.d`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := userdata.Render(compat.AL2023, renderConfig(c.custom))
			if err == nil {
				t.Fatalf("Render accepted it; output:\n%s", decoded(out))
			}
			msg := err.Error()
			if line := lineOf(c.custom, c.lineAt); !strings.Contains(msg, fmt.Sprintf("line %d", line)) {
				t.Errorf("error %q does not name line %d", msg, line)
			}
			if !regexp.MustCompile(`(?i)` + c.construct).MatchString(msg) {
				t.Errorf("error %q does not name the construct %s", msg, c.construct)
			}
		})
	}
}
