package userdata

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// A drawn kubelet value and whether the kubelet accepts it, decided when
// it is drawn from lists of values read against the kubelet's own rules
// (kubernetes v1.35.3, the same from v1.24):
//   - quantities: k8s.io/apimachinery resource.ParseQuantity;
//   - reservations: cmd/kubelet/app/server.go parseResourceList L1326-1348,
//     cpu, memory, ephemeral-storage and pid, not negative;
//   - thresholds: pkg/kubelet/eviction/helpers.go parseThresholdStatement
//     L381-425, "0%" and "100%" off, other percentages from 0% to 100%, or a
//     quantity above 0; a soft threshold needs a grace period (L147-152);
//   - counts: pkg/kubelet/apis/config/validation/validation.go L123-131,
//     at least 0; image GC bounds L87-95, each 0 to 100 and low below high,
//     an unset one taking its default from v1beta1/defaults.go L156-162
//     (85 and 80).
type drawn[V any] struct {
	v  V
	ok bool
}

var (
	quantityDraws = []drawn[string]{{"0", true}, {"100m", true}, {"1Gi", true}, {"1.5Gi", true}, {"2e3", true}, {"-0", true},
		{"-100m", false}, {"1GB", false}, {"lots", false}, {"", false}}
	thresholdDraws = []drawn[string]{{"500Mi", true}, {"1", true}, {"10%", true}, {"15.5%", true}, {"0%", true}, {"100%", true},
		{"0", false}, {"-1Mi", false}, {"120%", false}, {"ten%", false}, {"-5%", false}}
	reservedKeyDraws = []drawn[string]{{"cpu", true}, {"memory", true}, {"ephemeral-storage", true}, {"pid", true}, {"nvidia.com/gpu", false}}
	signalDraws      = []drawn[string]{{"memory.available", true}, {"nodefs.available", true}, {"nodefs.inodesFree", true},
		{"imagefs.available", true}, {"imagefs.inodesFree", true}, {"pid.available", true}, {"memory.free", false}}
	dnsDraws = []string{"10.100.0.10", "test", "fd00:10:96::a", "172.20.0.10"}
)

// kubeletDraw is a random KubeletConfig and whether the kubelet accepts it.
type kubeletDraw struct {
	k  KubeletConfig
	ok bool
}

// genAnyKubelet draws kubelet configurations the kubelet accepts and ones
// it refuses, and says which, without asking kubelet.go.
func genAnyKubelet() *rapid.Generator[kubeletDraw] {
	return rapid.Custom(func(t *rapid.T) kubeletDraw {
		d := kubeletDraw{ok: true}
		k := &d.k
		// Half the configurations aim to be valid (no value drawn from the
		// refused lists), so that the law's accepting side is exercised as
		// often as its refusing side; the rest draw a refused value one
		// time in eight per field.
		aimValid := rapid.Bool().Draw(t, "aimValid")
		bad := func(label string) bool { return !aimValid && rapid.IntRange(0, 7).Draw(t, label) == 0 }
		count := func(name string) *int32 {
			if !rapid.Bool().Draw(t, "set"+name) {
				return nil
			}
			n := rapid.Int32Range(0, 200).Draw(t, name)
			if bad(name + "Bad") {
				n = -n - 1
			}
			d.ok = d.ok && n >= 0
			return &n
		}
		k.MaxPods, k.PodsPerCore = count("maxPods"), count("podsPerCore")
		if rapid.Bool().Draw(t, "setGrace") {
			k.EvictionMaxPodGracePeriod = ptr(rapid.Int32Range(-10, 600).Draw(t, "grace")) // no rule
		}
		reserved := func(name string) map[string]string {
			n := rapid.IntRange(0, 3).Draw(t, name+"N")
			if n == 0 {
				return nil
			}
			m := map[string]string{}
			for i := range n {
				key := pick(t, reservedKeyDraws, fmt.Sprintf("%sKey%d", name, i), aimValid)
				v := pick(t, quantityDraws, fmt.Sprintf("%sValue%d", name, i), aimValid)
				m[key.v] = v.v
			}
			for key, v := range m {
				d.ok = d.ok && drawnOK(reservedKeyDraws, key) && drawnOK(quantityDraws, v)
			}
			return m
		}
		k.SystemReserved, k.KubeReserved = reserved("system"), reserved("kube")
		thresholds := func(name string) map[string]string {
			n := rapid.IntRange(0, 3).Draw(t, name+"N")
			if n == 0 {
				return nil
			}
			m := map[string]string{}
			for i := range n {
				m[pick(t, signalDraws, fmt.Sprintf("%sSignal%d", name, i), aimValid).v] = pick(t, thresholdDraws, fmt.Sprintf("%sValue%d", name, i), aimValid).v
			}
			for s, v := range m {
				d.ok = d.ok && drawnOK(signalDraws, s) && drawnOK(thresholdDraws, v)
			}
			return m
		}
		k.EvictionHard, k.EvictionSoft = thresholds("hard"), thresholds("soft")
		for s := range k.EvictionSoft {
			if bad("graceFor" + s) {
				d.ok = false // a soft threshold without a grace period
				continue
			}
			if k.EvictionSoftGracePeriod == nil {
				k.EvictionSoftGracePeriod = map[string]time.Duration{}
			}
			g := time.Duration(rapid.IntRange(0, 300).Draw(t, "graceOf"+s)) * time.Second
			if bad("graceBad" + s) {
				g = -g - time.Second
			}
			d.ok = d.ok && g >= 0
			k.EvictionSoftGracePeriod[s] = g
		}
		gc := func(name string, lo, hi int32) (*int32, int32) {
			if !rapid.Bool().Draw(t, "set"+name) {
				return nil, -1
			}
			if !aimValid {
				lo, hi = -2, 102
			}
			n := rapid.Int32Range(lo, hi).Draw(t, name)
			d.ok = d.ok && n >= 0 && n <= 100
			return &n, n
		}
		// Aiming to be valid, the high threshold is above the low
		// default (80) and the low one below the high that is set, or
		// below its default (85).
		var high, low int32
		k.ImageGCHighThresholdPercent, high = gc("high", 81, 100)
		lowMax := int32(84)
		if high >= 0 {
			lowMax = high - 1
		}
		k.ImageGCLowThresholdPercent, low = gc("low", 0, lowMax)
		if high < 0 {
			high = 85
		}
		if low < 0 {
			low = 80
		}
		d.ok = d.ok && low < high
		if rapid.Bool().Draw(t, "setCFS") {
			k.CPUCFSQuota = ptr(rapid.Bool().Draw(t, "cfs"))
		}
		if rapid.Bool().Draw(t, "setDNS") {
			k.ClusterDNS = []string{rapid.SampledFrom(dnsDraws).Draw(t, "dns")}
		}
		return d
	})
}

// pick draws from list: only from the values the kubelet accepts when
// aimValid, else one time in eight from the values it refuses.
func pick[V any](t *rapid.T, list []drawn[V], label string, aimValid bool) drawn[V] {
	var good, bad []drawn[V]
	for _, d := range list {
		if d.ok {
			good = append(good, d)
		} else {
			bad = append(bad, d)
		}
	}
	if !aimValid && rapid.IntRange(0, 7).Draw(t, label+"Bad") == 0 {
		return rapid.SampledFrom(bad).Draw(t, label)
	}
	return rapid.SampledFrom(good).Draw(t, label)
}

func drawnOK[V comparable](list []drawn[V], v V) bool {
	for _, d := range list {
		if d.v == v {
			return d.ok
		}
	}
	return false
}

// lawCustomParts are custom userData for TestKubeletRenderLint: none,
// parts that change nothing the kubelet registers, and parts that change
// its taints or flags (aws/containers-roadmap#864's second
// --register-with-taints, which the kubelet keeps over Render's; a
// drop-in replacing KUBELET_EXTRA_ARGS) or that Lint cannot follow. The
// law does not say which Render accepts, only that what it accepts joins
// with exactly the configured taints.
var lawCustomParts = []string{
	"",
	"#!/bin/bash\nsysctl -w vm.max_map_count=262144\n",
	"#cloud-config\nruncmd:\n  - [sh, -c, \"echo hello > /var/log/hello.log\"]\n",
	"#!/bin/bash\nsed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=spot=true:NoSchedule\"' /etc/eks/bootstrap.sh\n",
	"#!/bin/bash\ncat > /etc/systemd/system/kubelet.service.d/40-args.conf <<'EOF'\n[Service]\nEnvironment='KUBELET_EXTRA_ARGS=--v=2'\nEOF\n",
	"#!/bin/bash\necho \"$(jq '.imageGCHighThresholdPercent = 70' /etc/kubernetes/kubelet/kubelet-config.json)\" > /etc/kubernetes/kubelet/kubelet-config.json\n",
	"#!/bin/bash\ncurl -sfo /etc/eks/bootstrap.sh https://example.com/bootstrap.sh\n",
}

// TestKubeletRenderLint is issue 23's law for the kubelet: for random
// configs with random kubelet settings and, on AL2 and AL2023, a custom
// part (lawCustomParts), Render either
// refuses with a reason, or writes userData that Lint, told the
// Kubernetes version or not, finds Joins with exactly the configured
// taints; and Render never writes a configuration the kubelet refuses
// (decided by genAnyKubelet's own reading of the kubelet's rules).
func TestKubeletRenderLint(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom([]compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022}).Draw(t, "family")
		cfg := baseConfig()
		draw := genAnyKubelet().Draw(t, "kubelet")
		cfg.Kubelet = draw.k
		if strings.Contains(strings.Join(cfg.Kubelet.ClusterDNS, ","), ":") {
			cfg.ClusterCIDR = "fd00:10:96::/108"
		}
		cfg.Taints = genTaints(4).Draw(t, "taints")
		cfg.Labels = genLabels(3).Draw(t, "labels")
		if f == compat.AL2 || f == compat.AL2023 {
			cfg.CustomUserData = []byte(rapid.SampledFrom(lawCustomParts).Draw(t, "custom"))
		}
		version := ""
		if rapid.Bool().Draw(t, "knownVersion") {
			version = fmt.Sprintf("1.%d", rapid.IntRange(24, 36).Draw(t, "minor"))
			cfg.KubernetesVersion = version
		}
		out, err := Render(f, cfg)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "userdata: ") || len(err.Error()) < 30 {
				t.Fatalf("Render refused without a reason: %q", err)
			}
			return
		}
		if !draw.ok {
			t.Fatalf("Render(%v) accepted a kubelet configuration the kubelet refuses: %+v\n%s", f, cfg.Kubelet, out)
		}
		r, err := Lint(f, out, cfg.Required(), KubernetesVersion(version))
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != Joins {
			t.Fatalf("Lint(%v, Render(cfg)) = %v: %s\n%s", f, r.Verdict, r.Reason, out)
		}
		want, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantRegistered(f, want, cfg.Required()), r.Taints); diff != "" {
			t.Fatalf("taints (-want +got):\n%s\n%s", diff, out)
		}
	})
}
