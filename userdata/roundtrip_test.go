package userdata

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

var families = []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022, compat.Custom}

// genConfig draws a valid Config for family f, custom user data included.
func genConfig(f compat.AMIFamily) *rapid.Generator[Config] {
	return rapid.Custom(func(t *rapid.T) Config {
		cfg := baseConfig()
		cfg.ClusterName = rapid.StringMatching(`[a-zA-Z0-9][a-zA-Z0-9_-]{0,30}`).Draw(t, "cluster")
		cfg.APIServerEndpoint = rapid.SampledFrom([]string{
			"https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com",
			"https://10.0.0.1:6443",
			"https://[fd00::1]:443/k8s",
		}).Draw(t, "endpoint")
		ipv6 := rapid.Bool().Draw(t, "ipv6")
		if ipv6 {
			cfg.ClusterCIDR = "fd00:10:96::/108"
		}
		if f != compat.AL2023 && rapid.Bool().Draw(t, "noCIDR") {
			cfg.ClusterCIDR = ""
		}
		maxDNS := 2
		if f.IsWindows() || f == compat.AL2 {
			maxDNS = 1 // their boot scripts take one DNS IP
		}
		for i := range rapid.IntRange(0, maxDNS).Draw(t, "dns") {
			if ipv6 {
				cfg.Kubelet.ClusterDNS = append(cfg.Kubelet.ClusterDNS, fmt.Sprintf("fd00:10:96::%x", 10+i))
			} else {
				cfg.Kubelet.ClusterDNS = append(cfg.Kubelet.ClusterDNS, fmt.Sprintf("10.100.0.%d", 10+i))
			}
		}
		cfg.Taints = genTaints(6).Draw(t, "taints")
		for _, s := range genTaints(4).Draw(t, "startup") {
			if !containsMatch(cfg.Taints, s) {
				cfg.StartupTaints = append(cfg.StartupTaints, s)
			}
		}
		switch rapid.IntRange(0, 3).Draw(t, "required") {
		case 1:
			cfg.NoRequiredTaints = true
		case 2:
			cfg.RequiredTaints = []Taint{{Key: "karpenter.sh/uninitialized", Effect: NoExecute}}
		case 3:
			cfg.RequiredTaints = []Taint{UnregisteredTaint(), {Key: "example.com/agent", Value: "pending", Effect: NoSchedule}}
		}
		cfg.Labels = genLabels(6).Draw(t, "labels")
		if rapid.Bool().Draw(t, "setMaxPods") {
			cfg.Kubelet.MaxPods = ptr(rapid.Int32Range(0, 737).Draw(t, "maxPods"))
		}
		eff, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
		if err != nil {
			t.Fatalf("generator made an invalid config: %v", err)
		}
		cfg.CustomUserData = genCustom(f, cfg, eff).Draw(t, "custom")
		return cfg
	})
}

// genCustom draws custom user data a user could legitimately merge.
func genCustom(f compat.AMIFamily, cfg Config, eff []Taint) *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte {
		if f != compat.Custom && rapid.IntRange(0, 3).Draw(t, "none") == 0 {
			return nil
		}
		switch f {
		case compat.AL2:
			return []byte(rapid.SampledFrom([]string{
				"#!/bin/bash\nset -euo pipefail\nyum install -y jq\nsysctl -w vm.max_map_count=262144\n",
				"#!/bin/bash\nexport KUBELET_EXTRA_ARGS='--v=4'\nif [ -f /etc/x ]; then echo 'x' > /tmp/y; fi\n# /etc/eks/bootstrap.sh is called by Render\n",
				"#cloud-config\npackages:\n- jq\n",
				"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/sh\necho '--//' is text here\n--//\nContent-Type: text/cloud-config\n\n#cloud-config\nruncmd: [echo hi]\n--//--\n",
			}).Draw(t, "al2"))
		case compat.AL2023:
			doc := rapid.SampledFrom([]string{
				"apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      imageGCHighThresholdPercent: 85\n    flags:\n    - --v=2\n",
				"#!/bin/bash\necho hello\n",
				"MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: application/node.eks.aws\n\n{\"apiVersion\":\"node.eks.aws/v1alpha1\",\"kind\":\"NodeConfig\",\"spec\":{\"kubelet\":{\"flags\":[\"--node-labels=example.com/from-custom=yes\"]}}}\n--b\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho hi\n--b--\n",
			}).Draw(t, "al2023")
			if len(eff) > 0 && rapid.Bool().Draw(t, "customTaints") && strings.HasPrefix(doc, "apiVersion") {
				// Render's later registerWithTaints replaces this list.
				doc += "      registerWithTaints:\n      - {key: example.com/replaced, effect: NoSchedule}\n"
				doc = strings.Replace(doc, "    flags:\n    - --v=2\n", "", 1) + "    flags:\n    - --v=2\n"
			}
			return []byte(doc)
		case compat.Bottlerocket:
			return []byte(rapid.SampledFrom([]string{
				"[settings.host-containers.admin]\nenabled = true\n",
				"[settings.kubernetes]\nimage-gc-high-threshold-percent = '85'\n[settings.kubernetes.node-labels]\n'example.com/rack' = 'r1'\n[settings.kubernetes.node-taints]\n'example.com/replaced' = ['x:NoSchedule']\n",
				"[settings.kernel.sysctl]\n'vm.max_map_count' = '262144'\n",
			}).Draw(t, "bottlerocket"))
		case compat.Windows2019, compat.Windows2022, compat.Windows2025:
			return []byte(rapid.SampledFrom([]string{
				"Write-Host 'custom step'\n",
				"$x = \"it's $env:COMPUTERNAME\"\nif ($x) {\n  Write-Host $x # comment\n}\n<# block\ncomment #>\n",
				"$doc = @'\nStart-EKSBootstrap.ps1 is only text here\n'@\nfunction f { param($a) return $a }\n",
			}).Draw(t, "windows"))
		}
		base := rapid.SampledFrom([]compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022}).Draw(t, "base")
		c := cfg
		c.CustomUserData = nil
		if base == compat.AL2023 && c.ClusterCIDR == "" {
			c.ClusterCIDR = "10.100.0.0/16"
			if len(c.Kubelet.ClusterDNS) > 0 && strings.Contains(c.Kubelet.ClusterDNS[0], ":") {
				c.ClusterCIDR = "fd00:10:96::/108"
			}
		}
		if (base.IsWindows() || base == compat.AL2) && len(c.Kubelet.ClusterDNS) > 1 {
			c.Kubelet.ClusterDNS = c.Kubelet.ClusterDNS[:1]
		}
		out, err := Render(base, c)
		if err != nil {
			t.Fatalf("Render(%v) for Custom: %v", base, err)
		}
		return out
	})
}

// TestRoundTrip is the package's law: for every valid config of every
// family, the linter finds exactly the taints the config asks for (its
// taints, startup taints and required taints) and no problem.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(t *rapid.T) {
				cfg := genConfig(f).Draw(t, "cfg")
				out, err := Render(f, cfg)
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				checkRoundTrip(t, f, cfg, out)
			})
		})
	}
}

func checkRoundTrip(t rapidTB, f compat.AMIFamily, cfg Config, out []byte) {
	t.Helper()
	r, err := Lint(f, out, cfg.Required())
	if err != nil {
		t.Fatalf("Lint: %v", err)
	}
	if len(r.Problems) > 0 {
		t.Fatalf("Lint found problems in Render's output:\n%s\n--- output:\n%s", r, out)
	}
	want, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		t.Fatalf("effectiveTaints: %v", err)
	}
	if r.Verdict != Joins {
		t.Fatalf("Lint(Render(cfg)) is %v, not joins: %s\n--- output:\n%s", r.Verdict, r.Reason, out)
	}
	family := f
	if f == compat.Custom {
		family = detectFamily(out)
	}
	if diff := cmp.Diff(wantRegistered(family, want, cfg.Required()), r.Taints); diff != "" {
		t.Fatalf("Lint(Render(cfg)).Taints mismatch (-want +got):\n%s\n--- output:\n%s", diff, out)
	}
	for k, v := range cfg.Labels {
		if got, ok := r.Labels[k]; !ok || got != v {
			t.Fatalf("label %s=%s registers as %q (present %v)", k, v, got, ok)
		}
	}
}

// rapidTB is what *rapid.T and *testing.T share.
type rapidTB interface {
	Helper()
	Fatalf(format string, args ...any)
}
