package karpenter_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily/bootstrap"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// brCase is one Bottlerocket case of Karpenter v1.14.1's launch-template
// suite (pkg/providers/launchtemplate/suite_test.go, Context
// "Bottlerocket" L1535-L1832 and the instance-store cases L1459-L1534):
// the same NodeClass kubelet, instance-store policy, custom userData,
// NodePool taints and labels, given to Karpenter's own Bottlerocket
// bootstrap and to userdata.Render.
type brCase struct {
	name    string
	kubelet *v1.KubeletConfiguration
	raid0   bool
	release string // the AMI's Bottlerocket release; v1.46.0 binds default directories
	custom  string
	taints  []corev1.Taint // NodePool taints and startup taints
	labels  map[string]string
	// differs names the README row that documents why Render differs;
	// Render then refuses what Karpenter writes, and the error must name
	// it.
	differs, refuses string
	// keeps are settings.kubernetes keys Render writes differently from
	// Karpenter (a README row each): they must differ, and the rest of the
	// trees must not.
	keeps []string
	dns   []string // spec.kubelet clusterDNS; default the suite's kube-dns
}

// The suite's fixtures: test-cluster at https://test-cluster, kube-dns
// 10.0.100.10 (its fake cluster), maxPods 110 from the Context's
// BeforeEach, the NodeClaim labels Karpenter's resolver adds. The CA is a
// PEM bundle (the suite's "ca-bundle" is not one; Render checks it).
const brCA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="

func brLabels() map[string]string {
	return map[string]string{
		"karpenter.k8s.aws/ec2nodeclass": "default", "karpenter.sh/capacity-type": "on-demand",
		"karpenter.sh/do-not-sync-taints": "true", "karpenter.sh/nodepool": "default", "testing/cluster": "unspecified",
	}
}

var (
	brFoo = corev1.Taint{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoExecute}
	brBaz = corev1.Taint{Key: "baz", Value: "bin", Effect: corev1.TaintEffectNoExecute}
)

// brInput is testdata/br_userdata_input.golden (L1-L29) with its fmt verbs
// filled, without the two keys Bottlerocket does not have
// ("unknown-setting" and [settings.kubernetes.labels]); brInputFull keeps
// them.
const brInput = `[settings.kubernetes]
api-server = 'replaceme'
cloud-provider = 'external'
cluster-certificate = "replaceme"
cluster-name = 'replaceme'
max-pods = 9999999999 # replaceme

[settings.kubernetes.eviction-hard]
"memory.available" = "12%"

[settings.kubernetes.node-labels]
"custom-node-label" = "custom"
"karpenter.sh/nodepool" = "should-be-overridden"

[settings.kubernetes.node-taints]
"replace" = ["me:Schedule"]

[settings.network]
hostname = "test.local"
https-proxy = "1.2.3.4:8080"
no-proxy = ["localhost", "127.0.0.1"]
hosts = [["10.0.0.0", ["test.example.com", "test1.example.com"]]]

[settings.ntp]
time-servers = ["169.254.169.123"]
`

var brInputFull = strings.Replace(brInput, "[settings.kubernetes]\n", "[settings.kubernetes]\n\"unknown-setting\" = \"unknown\"\n", 1) +
	"\n[settings.kubernetes.labels]\n\"replace\" = \"me\"\n"

func brCases() []brCase {
	max110 := &v1.KubeletConfiguration{MaxPods: ptr[int32](110)}
	return []brCase{
		{name: "should merge in custom user data", kubelet: max110, custom: brInput, taints: []corev1.Taint{brFoo, brBaz}},
		{name: "should merge in custom user data (unknown keys)", kubelet: max110, custom: brInputFull, taints: []corev1.Taint{brFoo, brBaz},
			differs: "unknown settings", refuses: "settings.kubernetes.labels"},
		{name: "should bootstrap when custom user data is empty", kubelet: max110, taints: []corev1.Taint{brFoo, brBaz}},
		{name: "should override system reserved values in user data", kubelet: &v1.KubeletConfiguration{
			SystemReserved: map[string]string{"cpu": "2", "memory": "3Gi", "ephemeral-storage": "10Gi"}}},
		{name: "should override kube reserved values in user data", kubelet: &v1.KubeletConfiguration{
			KubeReserved: map[string]string{"cpu": "2", "memory": "3Gi", "ephemeral-storage": "10Gi"}}},
		{name: "should override soft eviction values in user data", kubelet: &v1.KubeletConfiguration{
			EvictionSoft:            map[string]string{"memory.available": "10%"},
			EvictionSoftGracePeriod: map[string]metav1.Duration{"memory.available": {Duration: time.Minute}}}},
		{name: "should override max pod grace period in user data", kubelet: &v1.KubeletConfiguration{
			MaxPods: ptr[int32](35), EvictionMaxPodGracePeriod: ptr[int32](10)}},
		{name: "should override eviction hard values in user data", kubelet: &v1.KubeletConfiguration{
			EvictionHard: map[string]string{"memory.available": "10%", "nodefs.available": "15%", "nodefs.inodesFree": "5%"}}},
		{name: "should specify max pods value when passing maxPods in configuration", kubelet: &v1.KubeletConfiguration{MaxPods: ptr[int32](10)}},
		// The suite sets the high threshold to 50 alone; the kubelet's
		// default low threshold is 80, and its validation refuses low >=
		// high (kubernetes pkg/kubelet/apis/config/validation), so the
		// kubelet would exit. 90 is written as Karpenter writes it.
		{name: "should pass ImageGCHighThresholdPercent when specified", kubelet: &v1.KubeletConfiguration{ImageGCHighThresholdPercent: ptr[int32](50)},
			differs: "kubelet configuration the kubelet refuses", refuses: "ImageGC"},
		{name: "should pass ImageGCHighThresholdPercent when specified (90)", kubelet: &v1.KubeletConfiguration{ImageGCHighThresholdPercent: ptr[int32](90)}},
		{name: "should pass ImageGCLowThresholdPercent when specified", kubelet: &v1.KubeletConfiguration{ImageGCLowThresholdPercent: ptr[int32](50)}},
		{name: "should pass ClusterDNSIP when discovered", kubelet: max110},
		{name: "should pass CPUCFSQuota when specified", kubelet: &v1.KubeletConfiguration{CPUCFSQuota: ptr(false)}},
		{name: "should specify labels in the Kubelet flags when specified in NodePool", kubelet: max110,
			labels: map[string]string{"test-label-1": "value-1", "test-label-2": "value-2"}},
		// Karpenter re-encodes settings.kubernetes from its own struct,
		// which lacks reserved-cpus (bottlerocketsettings.go L51-L100), so
		// it drops it; Bottlerocket has it (KubernetesSettingsV1).
		{name: "custom reserved-cpus", kubelet: max110, custom: "[settings.kubernetes]\nreserved-cpus = '0-1'\n", keeps: []string{"reserved-cpus"}},
		// Karpenter writes only the first clusterDNS address
		// (bottlerocket.go L56-L58); Bottlerocket takes a list
		// (KubernetesClusterDnsIp, bottlerocket-settings-sdk@5ba2c487
		// modeled-types/src/kubernetes.rs L1202-L1207).
		{name: "two clusterDNS addresses", kubelet: max110, dns: []string{"10.0.100.10", "10.0.100.11"}, keeps: []string{"cluster-dns-ip"}},
		{name: "should specify RAID0 bootstrap-command when instance-store policy is set on Bottlerocket", raid0: true, release: "v1.46.0"},
		{name: "should use explicit directories for Bottlerocket v1.45.0", raid0: true, release: "v1.45.0"},
		{name: "should use default bind for Bottlerocket v1.46.0", raid0: true, release: "v1.46.0"},
		// The suite's command is echo (L1478-L1482); an apiclient command
		// merges the same way.
		{name: "should merge bootstrap-commands when instance-store policy is set on Bottlerocket (apiclient)", raid0: true, release: "v1.46.0",
			custom: "[settings.bootstrap-commands.111-say-hello]\ncommands = [['apiclient', 'set', 'motd=hello']]\nmode = 'always'\nessential = true\n"},
		{name: "should merge bootstrap-commands when instance-store policy is set on Bottlerocket", raid0: true, release: "v1.46.0",
			custom:  "[settings.bootstrap-commands.111-say-hello]\ncommands = [['echo', 'hello']]\nmode = 'always'\nessential = true\n",
			differs: "non-apiclient bootstrap commands", refuses: "its first word is not apiclient"},
	}
}

// karpenterScript runs Karpenter's own Bottlerocket bootstrap.
func (c brCase) karpenterScript(t *testing.T) []byte {
	t.Helper()
	taints := append(append([]corev1.Taint(nil), c.taints...),
		corev1.Taint{Key: "karpenter.sh/unregistered", Effect: corev1.TaintEffectNoExecute})
	kubelet := c.kubelet
	if kubelet == nil {
		kubelet = &v1.KubeletConfiguration{}
	}
	kubelet = kubelet.DeepCopy()
	kubelet.ClusterDNS = c.clusterDNS()
	opts := bootstrap.Options{
		ClusterName: "test-cluster", ClusterEndpoint: "https://test-cluster", CABundle: ptr(brCA),
		KubeletConfig: kubelet, Taints: taints, Labels: c.allLabels(), AMIVersion: c.release,
	}
	if c.custom != "" {
		opts.CustomUserData = ptr(c.custom)
	}
	if c.raid0 {
		opts.InstanceStorePolicy = ptr(v1.InstanceStorePolicyRAID0)
	}
	script, err := bootstrap.Bottlerocket{Options: opts, EnableDefaultMountPaths: c.release == "v1.46.0"}.Script(context.Background())
	if err != nil {
		t.Fatalf("Karpenter: %v", err)
	}
	raw, err := base64.StdEncoding.DecodeString(script)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func (c brCase) clusterDNS() []string {
	if c.dns != nil {
		return c.dns
	}
	return []string{"10.0.100.10"}
}

func (c brCase) allLabels() map[string]string {
	labels := brLabels()
	for k, v := range c.labels {
		labels[k] = v
	}
	return labels
}

// config is the userdata.Config a fork builds from the same inputs.
func (c brCase) config(t *testing.T) (userdata.Config, error) {
	t.Helper()
	kubelet, err := karpenter.KubeletFromKarpenter(c.kubelet)
	if err != nil {
		return userdata.Config{}, err
	}
	kubelet.ClusterDNS = c.clusterDNS()
	cfg := userdata.Config{
		ClusterName: "test-cluster", APIServerEndpoint: "https://test-cluster", CABundle: brCA,
		Kubelet: kubelet, AMIRelease: c.release, Labels: c.allLabels(), CustomUserData: []byte(c.custom),
	}
	for i, taint := range c.taints {
		converted, err := karpenter.TaintsFromKarpenter([]corev1.Taint{taint})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			cfg.Taints = converted
		} else {
			cfg.StartupTaints = append(cfg.StartupTaints, converted...)
		}
	}
	if c.raid0 {
		cfg.InstanceStorePolicy = userdata.RAID0
	}
	return cfg, nil
}

// render renders c with userdata, through the adapter's conversions.
func (c brCase) render(t *testing.T) ([]byte, error) {
	cfg, err := c.config(t)
	if err != nil {
		return nil, err
	}
	return userdata.Render(compat.Bottlerocket, cfg)
}

// TestBottlerocketAsKarpenter: for each Bottlerocket case of Karpenter
// v1.14.1's suite, Render's settings parse to the same TOML tree as
// Karpenter's bootstrap writes, or Render refuses for a reason the README
// documents.
func TestBottlerocketAsKarpenter(t *testing.T) {
	t.Parallel()
	for _, c := range brCases() {
		t.Run(c.name, func(t *testing.T) {
			theirs := c.karpenterScript(t)
			ours, err := c.render(t)
			if c.differs != "" {
				if err == nil || !strings.Contains(err.Error(), c.refuses) {
					t.Fatalf("Render = %v; want it refused (%s: %q)", err, c.differs, c.refuses)
				}
				return
			}
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			var want, got map[string]any
			if err := toml.Unmarshal(theirs, &want); err != nil {
				t.Fatalf("Karpenter's TOML: %v\n%s", err, theirs)
			}
			if err := toml.Unmarshal(ours, &got); err != nil {
				t.Fatalf("Render's TOML: %v\n%s", err, ours)
			}
			for _, k := range c.keeps {
				theirs, ours := kubernetesOf(want), kubernetesOf(got)
				if cmp.Equal(theirs[k], ours[k]) || ours[k] == nil {
					t.Errorf("settings.kubernetes.%s: Karpenter %v, Render %v; want Render's to differ and be set", k, theirs[k], ours[k])
				}
				delete(theirs, k)
				delete(ours, k)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("settings (-Karpenter +Render):\n%s\nKarpenter:\n%s\nRender:\n%s", diff, theirs, ours)
			}
		})
	}
}

func kubernetesOf(doc map[string]any) map[string]any {
	settings, _ := doc["settings"].(map[string]any)
	kube, _ := settings["kubernetes"].(map[string]any)
	return kube
}
