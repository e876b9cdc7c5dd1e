package userdata

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/golden"
)

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
				cfg.Kubelet.PodsPerCore = nil // Bottlerocket has no such setting
			case compat.Windows2022:
				cfg.InstanceStorePolicy = ""
			}
			out, err := Render(f, cfg)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "kubelet-"+strings.ToLower(f.String())+".golden"), out, *update)
			rep := mustLint(t, f, out, nil)
			if diff := cmp.Diff(cfg.Kubelet, rep.Kubelet); diff != "" {
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
		{"KubeReserved", func(k *KubeletConfig) { k.KubeReserved = map[string]string{"pid": "1000"} },
			want{"--kube-reserved=pid=1000", "kubeReserved:", "[settings.kubernetes.kube-reserved]", "--kube-reserved=pid=1000"}},
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
		{"reserved minus zero", KubeletConfig{SystemReserved: map[string]string{"cpu": "-0"}}, []string{`"-0"`, "negative"}},
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
		{"dns", KubeletConfig{ClusterDNS: []string{"10.0.0.300"}}, []string{"Config.Kubelet.ClusterDNS[0]", `"10.0.0.300"`}},
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
		resMap := func(name string) map[string]string {
			m := rapid.MapOfN(rapid.SampledFrom(reservedResources), rapid.SampledFrom(quantities), 0, 4).Draw(t, name)
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

// TestKubeletRoundTrip: for every family and random valid kubelet
// configurations, Lint reads back exactly what Render wrote.
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
		if diff := cmp.Diff(cfg.Kubelet, rep.Kubelet); diff != "" {
			t.Fatalf("Lint(%v, Render(cfg)).Kubelet (-cfg.Kubelet +Lint):\n%s\n%s", f, diff, out)
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
	want := []KubeletSource{{Field: "MaxPods", From: "--max-pods", Line: 2}}
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
