package userdata

import (
	"bytes"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/golden"
)

// ignoreKubelet leaves Report.Kubelet and KubeletSources out of a
// comparison, for tests about taints: what the boot agent writes into the
// kubelet's config (evictionHard, kubeReserved, ...) is pinned by the
// kubelet tests.
var ignoreKubelet = cmpopts.IgnoreFields(Report{}, "Kubelet", "KubeletSources")

// fullKubelet sets every field of spec.kubelet.
func fullKubelet() KubeletConfig {
	return KubeletConfig{
		ClusterDNS:                  []string{"10.100.0.10"},
		MaxPods:                     ptr[int32](110),
		PodsPerCore:                 ptr[int32](10),
		SystemReserved:              map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi", "pid": "100"},
		KubeReserved:                map[string]string{"cpu": "200m", "memory": "512Mi"},
		EvictionHard:                map[string]string{"memory.available": "500Mi", "nodefs.available": "10%"},
		EvictionSoft:                map[string]string{"memory.available": "1Gi", "nodefs.available": "15%"},
		EvictionSoftGracePeriod:     map[string]time.Duration{"memory.available": time.Minute, "nodefs.available": 90 * time.Second},
		EvictionMaxPodGracePeriod:   ptr[int32](60),
		ImageGCHighThresholdPercent: ptr[int32](85),
		ImageGCLowThresholdPercent:  ptr[int32](70),
		CPUCFSQuota:                 ptr(true),
	}
}

// TestRenderKubeletGolden renders a full kubelet configuration with RAID0
// for every family. Each golden file was read against Karpenter v1.14.1's
// bootstrap package (eksbootstrap.go, nodeadm.go, bottlerocket.go,
// windows.go) and its launch-template tests.
func TestRenderKubeletGolden(t *testing.T) {
	t.Parallel()
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		t.Run(f.String(), func(t *testing.T) {
			cfg := baseConfig()
			cfg.Kubelet = fullKubelet()
			cfg.InstanceStorePolicy = RAID0
			cfg.AMIRelease = "v1.49.0"
			switch f {
			case compat.Bottlerocket:
				cfg.Kubelet.PodsPerCore = nil                                                                                // Bottlerocket has no such setting
				cfg.Kubelet.SystemReserved = map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"} // nor a pid reservation
			case compat.Windows2022:
				cfg.InstanceStorePolicy = ""
			}
			out, err := Render(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "kubelet-"+strings.ToLower(f.String())+".golden"), out, *update)
			rep := mustLint(t, f, out, nil)
			if diff := cmp.Diff(effectiveKubelet(f, cfg), rep.Kubelet); diff != "" {
				t.Errorf("Lint(Render).Kubelet (-want +got):\n%s\n%s", diff, rep)
			}
		})
	}
}

// TestKubeletPlacement names, per field and family, the flag, config key or
// setting Render writes and the boot agent reads. Sources (karpenter-provider-aws
// v1.14.1, commit bde00654): AL2 and Windows
// pkg/providers/amifamily/bootstrap/bootstrap.go kubeletExtraArgs (the flags),
// eksbootstrap.go (--dns-cluster-ip, --use-max-pods false, --local-disks raid0),
// windows.go (-DNSClusterIP); AL2023 nodeadm.go generateInlineKubeletConfiguration
// (spec.kubelet.config, JSON names of the KubeletConfiguration) and
// spec.instance.localStorage.strategy; Bottlerocket bottlerocket.go and
// bottlerocketsettings.go (settings.kubernetes.*, bootstrap-commands).
func TestKubeletPlacement(t *testing.T) {
	t.Parallel()
	type want struct{ al2, al2023, bottlerocket, windows string }
	tests := []struct {
		name string
		set  func(*KubeletConfig)
		want want
	}{
		{"MaxPods", func(k *KubeletConfig) { k.MaxPods = ptr[int32](29) },
			want{"--max-pods=29", "maxPods: 29", "max-pods = 29", "--max-pods=29"}},
		{"PodsPerCore", func(k *KubeletConfig) { k.PodsPerCore = ptr[int32](4) },
			want{"--pods-per-core=4", "podsPerCore: 4", "", "--pods-per-core=4"}},
		{"SystemReserved", func(k *KubeletConfig) { k.SystemReserved = map[string]string{"cpu": "100m", "memory": "1Gi"} },
			want{"--system-reserved=cpu=100m,memory=1Gi", "systemReserved:", "[settings.kubernetes.system-reserved]", "--system-reserved=cpu=100m,memory=1Gi"}},
		{"KubeReserved", func(k *KubeletConfig) { k.KubeReserved = map[string]string{"memory": "1Gi"} },
			want{"--kube-reserved=memory=1Gi", "kubeReserved:", "[settings.kubernetes.kube-reserved]", "--kube-reserved=memory=1Gi"}},
		{"EvictionHard", func(k *KubeletConfig) { k.EvictionHard = map[string]string{"memory.available": "5%"} },
			want{"--eviction-hard=memory.available<5%", "evictionHard:", "[settings.kubernetes.eviction-hard]", "--eviction-hard=memory.available<5%"}},
		{"EvictionSoft", func(k *KubeletConfig) {
			k.EvictionSoft = map[string]string{"memory.available": "1Gi"}
			k.EvictionSoftGracePeriod = map[string]time.Duration{"memory.available": 2 * time.Minute}
		}, want{"--eviction-soft=memory.available<1Gi --eviction-soft-grace-period=memory.available=2m0s", "evictionSoftGracePeriod:",
			"[settings.kubernetes.eviction-soft-grace-period]", "--eviction-soft=memory.available<1Gi --eviction-soft-grace-period=memory.available=2m0s"}},
		{"EvictionMaxPodGracePeriod", func(k *KubeletConfig) { k.EvictionMaxPodGracePeriod = ptr[int32](30) },
			want{"--eviction-max-pod-grace-period=30", "evictionMaxPodGracePeriod: 30", "eviction-max-pod-grace-period = 30", "--eviction-max-pod-grace-period=30"}},
		{"ImageGCHighThresholdPercent", func(k *KubeletConfig) { k.ImageGCHighThresholdPercent = ptr[int32](90) },
			want{"--image-gc-high-threshold=90", "imageGCHighThresholdPercent: 90", "image-gc-high-threshold-percent = '90'", "--image-gc-high-threshold=90"}},
		{"ImageGCLowThresholdPercent", func(k *KubeletConfig) { k.ImageGCLowThresholdPercent = ptr[int32](50) },
			want{"--image-gc-low-threshold=50", "imageGCLowThresholdPercent: 50", "image-gc-low-threshold-percent = '50'", "--image-gc-low-threshold=50"}},
		{"CPUCFSQuota", func(k *KubeletConfig) { k.CPUCFSQuota = ptr(false) },
			want{"--cpu-cfs-quota=false", "cpuCFSQuota: false", "cpu-cfs-quota-enforced = false", "--cpu-cfs-quota=false"}},
		{"ClusterDNS", func(k *KubeletConfig) { k.ClusterDNS = []string{"10.100.0.10"} },
			want{"'--dns-cluster-ip' '10.100.0.10'", "- 10.100.0.10", "cluster-dns-ip = '10.100.0.10'", "-DNSClusterIP '10.100.0.10'"}},
	}
	families := []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, where := range []string{tt.want.al2, tt.want.al2023, tt.want.bottlerocket, tt.want.windows} {
				f := families[i]
				cfg := baseConfig()
				tt.set(&cfg.Kubelet)
				out, err := Render(f, cfg)
				if where == "" {
					if err == nil {
						t.Errorf("%v: Render accepted %s, which the family has no place for", f, tt.name)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%v: %v", f, err)
				}
				for _, w := range strings.Split(where, " --") {
					if !strings.HasPrefix(w, "--") && strings.HasPrefix(where, "--") {
						w = "--" + w
					}
					if !bytes.Contains(out, []byte(w)) {
						t.Errorf("%v: output lacks %q:\n%s", f, w, out)
					}
				}
			}
		})
	}
}

// TestKubeletConfigInvalid: each error names the field, the value and the
// fix. Rules: kubernetes pkg/kubelet/eviction/helpers.go
// (parseThresholdStatement, parseGracePeriods, ParseThresholdConfig),
// pkg/kubelet/apis/config/validation/validation.go (image GC bounds),
// k8s.io/apimachinery resource.ParseQuantity, and Karpenter v1.14.1's CRD
// rules on spec.kubelet (pkg/apis/v1/ec2nodeclass.go: reserved keys,
// eviction signals, minimums).
func TestKubeletConfigInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		k    KubeletConfig
		want []string
	}{
		{"negative max pods", KubeletConfig{MaxPods: ptr[int32](-1)}, []string{"Config.Kubelet.MaxPods", "-1", "at least 0"}},
		{"negative pods per core", KubeletConfig{PodsPerCore: ptr[int32](-2)}, []string{"Config.Kubelet.PodsPerCore", "-2"}},
		{"reserved key", KubeletConfig{SystemReserved: map[string]string{"gpu": "1"}}, []string{"Config.Kubelet.SystemReserved", `"gpu"`, "cpu, ephemeral-storage, memory, pid"}},
		{"reserved quantity", KubeletConfig{KubeReserved: map[string]string{"memory": "1GB"}}, []string{"Config.Kubelet.KubeReserved", `"1GB"`, "not a quantity"}},
		{"reserved negative", KubeletConfig{SystemReserved: map[string]string{"cpu": "-100m"}}, []string{`"-100m"`, "negative"}},
		{"signal", KubeletConfig{EvictionHard: map[string]string{"memory.free": "1Gi"}}, []string{"Config.Kubelet.EvictionHard", `"memory.free"`, "memory.available"}},
		{"percentage over 100", KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "120%"}}, []string{`"120%"`, "0% to 100%"}},
		{"percentage not a number", KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "ten%"}}, []string{`"ten%"`}},
		{"zero quantity threshold", KubeletConfig{EvictionHard: map[string]string{"memory.available": "0"}}, []string{`"0"`, "not positive"}},
		{"threshold junk", KubeletConfig{EvictionHard: map[string]string{"memory.available": "lots"}}, []string{`"lots"`, "neither a percentage nor a quantity"}},
		{"soft without grace", KubeletConfig{EvictionSoft: map[string]string{"memory.available": "1Gi"}}, []string{"EvictionSoft", "no grace period", "EvictionSoftGracePeriod"}},
		{"grace signal", KubeletConfig{EvictionSoftGracePeriod: map[string]time.Duration{"disk": time.Minute}}, []string{"EvictionSoftGracePeriod", `"disk"`}},
		{"negative grace", KubeletConfig{EvictionSoftGracePeriod: map[string]time.Duration{"memory.available": -time.Second}}, []string{"EvictionSoftGracePeriod", "-1s"}},
		{"gc high over 100", KubeletConfig{ImageGCHighThresholdPercent: ptr[int32](101)}, []string{"ImageGCHighThresholdPercent", "101", "0 to 100"}},
		{"gc low negative", KubeletConfig{ImageGCLowThresholdPercent: ptr[int32](-1)}, []string{"ImageGCLowThresholdPercent", "-1"}},
		{"gc low not below high", KubeletConfig{ImageGCHighThresholdPercent: ptr[int32](60), ImageGCLowThresholdPercent: ptr[int32](60)}, []string{"ImageGCLowThresholdPercent (60)", "ImageGCHighThresholdPercent (60)"}},
		{"gc low above default high", KubeletConfig{ImageGCLowThresholdPercent: ptr[int32](90)}, []string{"(90)", "(85)", "kubelet's default"}},
		{"dns empty", KubeletConfig{ClusterDNS: []string{""}}, []string{"Config.Kubelet.ClusterDNS[0]", "empty"}},
		{"signal only some kubelets know", KubeletConfig{EvictionHard: map[string]string{"containerfs.available": "10%"}}, []string{`"containerfs.available"`, "memory.available"}},
		{"percentage above 100 as float32", KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "100.001%"}}, []string{`"100.001%"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.k.Validate()
			if err == nil {
				t.Fatalf("Validate accepted %+v", tt.k)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			cfg := baseConfig()
			cfg.Kubelet = tt.k
			if _, rerr := Render(compat.AL2023, cfg); rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("Render error %v; want Validate's %v", rerr, err)
			}
		})
	}
	if err := fullKubelet().Validate(); err != nil {
		t.Errorf("a full valid config: %v", err)
	}
	if err := (KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "100%", "memory.available": "0%"}}).Validate(); err != nil {
		t.Errorf("0%% and 100%% disable a threshold and are valid: %v", err)
	}
}

// TestKubeletConfigAccepted: what the kubelet accepts, Validate and Render
// accept, even where Karpenter's CRD is stricter (issue 28: Karpenter's
// fixtures pass clusterDNS "test" through).
//   - A clusterDNS entry that is not an IP address: the kubelet logs
//     "Invalid clusterDNS IP" and skips it (kubernetes
//     pkg/kubelet/kubelet.go@v1.35.3 L576-584); nothing validates it.
//   - A reservation of "-0": parseResourceList refuses only a negative
//     quantity (cmd/kubelet/app/server.go@v1.35.3 L1339-1341), and -0 is 0.
//   - A negative evictionMaxPodGracePeriod: no kubelet rule (nor a CRD one).
//   - A percentage just above 100 that float32 rounds to 100: the kubelet
//     compares the float32 fraction (pkg/kubelet/eviction/helpers.go@v1.35.3
//     parsePercentage L427-433, L399-402).
func TestKubeletConfigAccepted(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		k    KubeletConfig
		// validateOnly: the kubelet starts with it, but Render refuses it
		// for what it does to pods (TestRenderClusterDNSShapes).
		validateOnly bool
	}{
		{"clusterDNS test", KubeletConfig{ClusterDNS: []string{"test"}}, true},
		{"clusterDNS of both families, not canonical", KubeletConfig{ClusterDNS: []string{"010.100.000.010", "FD00::A"}}, false},
		{"reservation of -0", KubeletConfig{SystemReserved: map[string]string{"cpu": "-0"}}, false},
		{"negative evictionMaxPodGracePeriod", KubeletConfig{EvictionMaxPodGracePeriod: ptr[int32](-1)}, false},
		{"100.000001%", KubeletConfig{EvictionHard: map[string]string{"nodefs.available": "100.000001%"}}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.k.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if tt.validateOnly {
				return
			}
			for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Windows2022} {
				cfg := baseConfig()
				cfg.Kubelet = tt.k
				if f.IsWindows() && len(tt.k.ClusterDNS) > 0 {
					// Render passes Start-EKSBootstrap.ps1 one IP address
					// (checkDNSForFamily).
					if _, err := netip.ParseAddr(tt.k.ClusterDNS[0]); err != nil {
						continue
					}
					cfg.Kubelet.ClusterDNS = cfg.Kubelet.ClusterDNS[:1]
				}
				out, err := Render(f, cfg)
				if err != nil {
					t.Fatalf("Render(%v): %v", f, err)
				}
				if r := mustLint(t, f, out, nil); r.Verdict != Joins {
					t.Errorf("Lint(%v, Render) = %v: %s", f, r.Verdict, r.Reason)
				}
			}
		})
	}
}

// genKubelet draws a valid KubeletConfig for family f.
func genKubelet(f compat.AMIFamily) *rapid.Generator[KubeletConfig] {
	quantities := []string{"0", "100m", "1", "250m", "1Gi", "512Mi", "1.5Gi", "2e3", "100"}
	thresholds := []string{"500Mi", "1Gi", "5%", "10%", "15.5%", "100Mi", "1"}
	return rapid.Custom(func(t *rapid.T) KubeletConfig {
		var k KubeletConfig
		opt := func(name string, lo, hi int32) *int32 {
			if !rapid.Bool().Draw(t, "set"+name) {
				return nil
			}
			return ptr(rapid.Int32Range(lo, hi).Draw(t, name))
		}
		k.MaxPods = opt("maxPods", 0, 737)
		if f != compat.Bottlerocket {
			k.PodsPerCore = opt("podsPerCore", 0, 64)
		}
		k.EvictionMaxPodGracePeriod = opt("maxPodGrace", 0, 600)
		resources := reservedResources
		if f == compat.Bottlerocket {
			resources = []string{"cpu", "ephemeral-storage", "memory"} // its settings model has no pid
		}
		resMap := func(name string) map[string]string {
			m := rapid.MapOfN(rapid.SampledFrom(resources), rapid.SampledFrom(quantities), 0, 4).Draw(t, name)
			if len(m) == 0 {
				return nil
			}
			return m
		}
		k.SystemReserved, k.KubeReserved = resMap("system"), resMap("kube")
		sigMap := func(name string) map[string]string {
			m := rapid.MapOfN(rapid.SampledFrom(evictionSignals), rapid.SampledFrom(thresholds), 0, 3).Draw(t, name)
			if len(m) == 0 {
				return nil
			}
			return m
		}
		k.EvictionHard, k.EvictionSoft = sigMap("hard"), sigMap("soft")
		for s := range k.EvictionSoft {
			if k.EvictionSoftGracePeriod == nil {
				k.EvictionSoftGracePeriod = map[string]time.Duration{}
			}
			k.EvictionSoftGracePeriod[s] = time.Duration(rapid.IntRange(0, 600).Draw(t, "grace")) * time.Second
		}
		if rapid.Bool().Draw(t, "gc") {
			high := rapid.Int32Range(1, 100).Draw(t, "high")
			k.ImageGCHighThresholdPercent = &high
			k.ImageGCLowThresholdPercent = ptr(rapid.Int32Range(0, high-1).Draw(t, "low"))
		}
		if rapid.Bool().Draw(t, "setCFS") {
			k.CPUCFSQuota = ptr(rapid.Bool().Draw(t, "cfs"))
		}
		return k
	})
}

// effectiveKubelet is the configuration the kubelet of a node of family f
// gets from Render(cfg), written from the boot agents' sources apart from
// kubelet.go: on AL2 the kubelet flags replace what bootstrap.sh writes
// into kubelet-config.json (templates/al2/runtime/bootstrap.sh@0ab84280
// L526-528: evictionHard, kubeReserved.ephemeral-storage; a map flag
// replaces the whole map, k8s.io/component-base cli/flag
// MapStringString.Set); on AL2023 the kubelet merges nodeadm's drop-in over
// nodeadm's config.json as a JSON merge patch (kubernetes
// cmd/kubelet/app/server.go@v1.35.3 L334-372; awslabs/amazon-eks-ami@81fec2e8
// nodeadm/internal/kubelet/config.go L80-148: clusterDNS from the service
// CIDR, evictionHard, kubeReserved.ephemeral-storage); Bottlerocket's
// template writes kubeReserved.ephemeral-storage "1Gi" unless set
// (bottlerocket-core-kit@a10182f9 packages/kubernetes-1.31/kubelet-config
// L84-93). Entries computed at boot (cpu, memory, maxPods) are not known.
func effectiveKubelet(f compat.AMIFamily, cfg Config) KubeletConfig {
	k := cfg.Kubelet
	union := func(base, top map[string]string) map[string]string {
		out := map[string]string{}
		for key, v := range base {
			out[key] = v
		}
		for key, v := range top {
			out[key] = v
		}
		return out
	}
	evictionHard := map[string]string{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
	storage := map[string]string{"ephemeral-storage": "1Gi"}
	switch f {
	case compat.AL2:
		if k.EvictionHard == nil {
			k.EvictionHard = evictionHard
		}
		if k.KubeReserved == nil {
			k.KubeReserved = storage
		}
	case compat.AL2023:
		if k.ClusterDNS == nil {
			k.ClusterDNS = []string{strings.TrimSuffix(cfg.ClusterCIDR, ".0/16") + ".10"}
		}
		k.EvictionHard = union(evictionHard, k.EvictionHard)
		k.KubeReserved = union(storage, k.KubeReserved)
	case compat.Bottlerocket:
		k.KubeReserved = union(storage, k.KubeReserved)
	}
	return k
}

// TestKubeletRoundTrip: for every family and random valid kubelet
// configurations, Lint reads back exactly what the kubelet gets from
// Render's output: cfg.Kubelet with the boot agent's own entries beneath
// it ([effectiveKubelet]).
func TestKubeletRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		f := rapid.SampledFrom([]compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022}).Draw(t, "family")
		cfg := baseConfig()
		cfg.Kubelet = genKubelet(f).Draw(t, "kubelet")
		if rapid.Bool().Draw(t, "dns") {
			cfg.Kubelet.ClusterDNS = []string{"10.100.0.10"}
		}
		if !f.IsWindows() && rapid.Bool().Draw(t, "raid0") {
			cfg.InstanceStorePolicy = RAID0
		}
		out, err := Render(f, cfg)
		if err != nil {
			t.Fatalf("Render(%v): %v", f, err)
		}
		rep, err := Lint(f, out, nil)
		if err != nil || rep.Verdict != Joins {
			t.Fatalf("Lint(%v, Render) = %v, %v\n%s", f, rep, err, out)
		}
		if diff := cmp.Diff(effectiveKubelet(f, cfg), rep.Kubelet); diff != "" {
			t.Fatalf("Lint(%v, Render(cfg)).Kubelet (-want +Lint):\n%s\n%s", f, diff, out)
		}
	})
}

// A user part that sets the kubelet overrides Render's where the boot agent
// lets it, and Report.Kubelet says so: on AL2023 a later NodeConfig's
// maxPods wins over an earlier one (nodeadm merges documents in order).
func TestLintKubeletUserOverride(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.Kubelet.MaxPods = ptr[int32](110)
	out, err := Render(compat.AL2023, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep := mustLint(t, compat.AL2023, out, nil)
	if rep.Kubelet.MaxPods == nil || *rep.Kubelet.MaxPods != 110 {
		t.Fatalf("MaxPods = %v; want 110", rep.Kubelet.MaxPods)
	}
	// Bottlerocket: the user's settings.kubernetes.max-pods is replaced by
	// Render's, as Karpenter's Bottlerocket bootstrap overwrites it.
	cfg.CustomUserData = []byte("[settings.kubernetes]\nmax-pods = 20\n")
	out, err = Render(compat.Bottlerocket, cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep = mustLint(t, compat.Bottlerocket, out, nil)
	if rep.Kubelet.MaxPods == nil || *rep.Kubelet.MaxPods != 110 {
		t.Fatalf("Bottlerocket MaxPods = %v; want Render's 110", rep.Kubelet.MaxPods)
	}
	// AL2: a hand-written bootstrap call with its own --max-pods.
	script := "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--max-pods=58 --register-with-taints=karpenter.sh/unregistered:NoExecute'\n"
	rep = mustLint(t, compat.AL2, []byte(script), nil)
	const al2Config = "bootstrap.sh's kubelet-config.json"
	want := []KubeletSource{
		{Field: "ClusterDNS", From: al2Config + ", computed at boot"},
		{Field: "EvictionHard", From: al2Config},
		{Field: "KubeReserved", Keys: []string{"ephemeral-storage"}, From: al2Config},
		{Field: "KubeReserved", Keys: []string{"cpu", "memory"}, From: al2Config + ", computed at boot"},
		{Field: "MaxPods", From: "--max-pods", Line: 2},
	}
	if diff := cmp.Diff(want, rep.KubeletSources); diff != "" || *rep.Kubelet.MaxPods != 58 {
		t.Errorf("AL2 sources (-want +got):\n%s", diff)
	}
}

// TestKubeletFieldsAt: each row of kubeletFields reaches the KubeletConfig
// field it names, with the Go type its kind reads; and every field but
// ClusterDNS (read on its own, as a list) has a row.
func TestKubeletFieldsAt(t *testing.T) {
	kinds := map[valueKind]reflect.Type{
		kindInt: reflect.TypeFor[*int32](), kindPercentString: reflect.TypeFor[*int32](), kindBool: reflect.TypeFor[*bool](),
		kindMap: reflect.TypeFor[map[string]string](), kindDurations: reflect.TypeFor[map[string]time.Duration](),
	}
	var c KubeletConfig
	cv := reflect.ValueOf(&c).Elem()
	var named []string
	for _, f := range kubeletFields {
		field := cv.FieldByName(f.field)
		if !field.IsValid() {
			t.Errorf("%s is not a KubeletConfig field", f.field)
			continue
		}
		if got := reflect.ValueOf(f.at(&c)); got.Pointer() != field.Addr().Pointer() || got.Type().Elem() != field.Type() {
			t.Errorf("%s: at reaches another field", f.field)
		}
		if want := kinds[f.kind]; field.Type() != want {
			t.Errorf("%s is a %v; its kind reads a %v", f.field, field.Type(), want)
		}
		named = append(named, f.field)
	}
	for i := range cv.NumField() {
		if name := cv.Type().Field(i).Name; name != "ClusterDNS" && !slices.Contains(named, name) {
			t.Errorf("KubeletConfig.%s has no row in kubeletFields", name)
		}
	}
}

// TestRenderMergedNodeConfig: nodeadm merges a custom NodeConfig with
// Render's, and the kubelet gets the merge; Render refuses a merge the
// kubelet refuses (issue 23, hole 2: kubernetes
// pkg/kubelet/apis/config/validation/validation.go@v1.35.3 L93-95 with the
// default low bound of v1beta1/defaults.go L160-162; hole 3: the gate is
// gone from pkg/features/kube_features.go in v1.33, and
// k8s.io/component-base@v0.35.3 featuregate/feature_gate.go L384-389
// refuses an unknown one).
func TestRenderMergedNodeConfig(t *testing.T) {
	t.Parallel()
	nc := func(config string) []byte {
		return []byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n" + config)
	}
	gate := nc("      featureGates:\n        DisableKubeletCloudCredentialProviders: true\n")
	tests := []struct {
		name    string
		custom  []byte
		kubelet KubeletConfig
		version string
		want    []string // substrings of the error; none: Render accepts
	}{
		{name: "high 80, low the default 80", custom: nc("      imageGCHighThresholdPercent: 80\n"),
			want: []string{"spec.kubelet.config.imageGCHighThresholdPercent", "(80) is not above ImageGCLowThresholdPercent (80)", "never-joins"}},
		{name: "high 80 with Config's low 70", custom: nc("      imageGCHighThresholdPercent: 80\n"), kubelet: KubeletConfig{ImageGCLowThresholdPercent: ptr[int32](70)}},
		{name: "low 60 with Config's high 80", custom: nc("      imageGCLowThresholdPercent: 60\n"), kubelet: KubeletConfig{ImageGCHighThresholdPercent: ptr[int32](80)}},
		{name: "Config's high 60 over the custom 90, low 70 custom", custom: nc("      imageGCHighThresholdPercent: 90\n      imageGCLowThresholdPercent: 70\n"),
			kubelet: KubeletConfig{ImageGCHighThresholdPercent: ptr[int32](60)}, want: []string{"(70) is not below ImageGCHighThresholdPercent (60)"}},
		{name: "Config's high 80 beside a custom script", custom: []byte("#!/bin/bash\necho hi\n"), kubelet: KubeletConfig{ImageGCHighThresholdPercent: ptr[int32](80)},
			want: []string{"Config.Kubelet.ImageGCHighThresholdPercent (80) is not above"}},
		{name: "a gate gone in 1.35", custom: gate, version: "1.35", want: []string{"DisableKubeletCloudCredentialProviders", "unrecognized feature gate"}},
		{name: "the gate in 1.31", custom: gate, version: "1.31"},
		{name: "the gate, version unknown", custom: gate, want: []string{"DisableKubeletCloudCredentialProviders", "unresolved", "userdata.KubernetesVersion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := baseConfig()
			cfg.CustomUserData, cfg.Kubelet, cfg.KubernetesVersion = tt.custom, tt.kubelet, tt.version
			_, err := Render(compat.AL2023, cfg)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Render accepted a merge the kubelet refuses")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// Bottlerocket merges custom settings with Render's, and its template
	// writes the high bound alone (bottlerocket-core-kit@a10182f9
	// packages/kubernetes-1.31/kubelet-config L124-129).
	cfg := baseConfig()
	cfg.CustomUserData = []byte("[settings.kubernetes]\nimage-gc-high-threshold-percent = 80\n")
	if _, err := Render(compat.Bottlerocket, cfg); err == nil || !strings.Contains(err.Error(), "settings.kubernetes.image-gc-high-threshold-percent") {
		t.Errorf("Bottlerocket with a custom high bound of 80: %v; want a refusal naming the setting", err)
	}
	cfg.Kubelet.ImageGCLowThresholdPercent = ptr[int32](70)
	if _, err := Render(compat.Bottlerocket, cfg); err != nil {
		t.Errorf("Bottlerocket with a custom high bound of 80 and Config's low 70: %v", err)
	}
	cfg.CustomUserData = []byte("[settings.kubernetes]\nimage-gc-low-threshold-percent = 60\n")
	cfg.Kubelet = KubeletConfig{ImageGCHighThresholdPercent: ptr[int32](80)}
	if _, err := Render(compat.Bottlerocket, cfg); err != nil {
		t.Errorf("Bottlerocket with Config's high bound of 80 and a custom low 60: %v", err)
	}
	cfg = baseConfig()
	cfg.KubernetesVersion = "v1.32"
	if _, err := Render(compat.AL2023, cfg); err == nil || !strings.Contains(err.Error(), "Config.KubernetesVersion") {
		t.Errorf("Render with KubernetesVersion v1.32: %v; want an error naming the field", err)
	}
}
