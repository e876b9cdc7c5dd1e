package userdata

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func TestRenderValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		family  compat.AMIFamily
		mutate  func(*Config)
		wantErr string
	}{
		{"no cluster name", compat.AL2, func(c *Config) { c.ClusterName = "" }, "Config.ClusterName is empty"},
		{"cluster name with a quote", compat.AL2, func(c *Config) { c.ClusterName = "a'b" }, "Config.ClusterName"},
		{"cluster name too long", compat.AL2, func(c *Config) { c.ClusterName = strings.Repeat("a", 101) }, "Config.ClusterName"},
		{"http endpoint", compat.AL2, func(c *Config) { c.APIServerEndpoint = "http://x.example.com" }, "Config.APIServerEndpoint"},
		{"endpoint with comma", compat.AL2, func(c *Config) { c.APIServerEndpoint = "https://x.example.com/a,b" }, `","`},
		{"endpoint with query", compat.AL2, func(c *Config) { c.APIServerEndpoint = "https://x.example.com/?a=b" }, "Config.APIServerEndpoint"},
		{"endpoint with user", compat.AL2, func(c *Config) { c.APIServerEndpoint = "https://u@x.example.com" }, "Config.APIServerEndpoint"},
		{"CA not base64", compat.AL2, func(c *Config) { c.CABundle = "not base64!" }, "Config.CABundle"},
		{"CA with newline", compat.AL2, func(c *Config) { c.CABundle = testCA()[:8] + "\n" + testCA()[8:] }, "one line"},
		{"CA not PEM", compat.AL2, func(c *Config) { c.CABundle = "aGVsbG8=" }, "PEM"},
		{"CA empty", compat.Windows2022, func(c *Config) { c.CABundle = "" }, "Config.CABundle is empty"},
		{"CIDR", compat.AL2, func(c *Config) { c.ClusterCIDR = "10.100.0.0" }, "Config.ClusterCIDR"},
		{"CIDR not canonical", compat.AL2, func(c *Config) { c.ClusterCIDR = "10.100.0.1/16" }, `"10.100.0.0/16"`},
		{"AL2023 needs CIDR", compat.AL2023, func(c *Config) { c.ClusterCIDR = "" }, "nodeadm"},
		{"Bottlerocket DNS not an IP", compat.Bottlerocket, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.100.0.300"} }, "Config.Kubelet.ClusterDNS[0]"},
		{"Bottlerocket DNS with zone", compat.Bottlerocket, func(c *Config) { c.Kubelet.ClusterDNS = []string{"fe80::1%eth0"} }, "Config.Kubelet.ClusterDNS[0]"},
		{"DNS empty", compat.AL2023, func(c *Config) { c.Kubelet.ClusterDNS = []string{" "} }, "Config.Kubelet.ClusterDNS[0] is empty"},
		{"AL2 DNS not an IP", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"test"} }, "bootstrap.sh (--dns-cluster-ip) passes it to the kubelet, which drops it"},
		{"AL2023 DNS not an IP", compat.AL2023, func(c *Config) { c.Kubelet.ClusterDNS = []string{"test"} }, "nodeadm (spec.kubelet.config.clusterDNS) passes it to the kubelet, which drops it"},
		{"AL2 DNS with a comma", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.0.0.10,10.0.0.11"} }, "contains ','"},
		{"Windows DNS not an IP", compat.Windows2022, func(c *Config) { c.Kubelet.ClusterDNS = []string{"</powershell>"} }, "Config.Kubelet.ClusterDNS[0]"},
		{"Windows one DNS", compat.Windows2022, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.0.0.10", "10.0.0.11"} }, "-DNSClusterIP"},
		{"max pods", compat.AL2, func(c *Config) { c.Kubelet.MaxPods = ptr[int32](-1) }, "Config.Kubelet.MaxPods"},
		{"bad taint", compat.AL2, func(c *Config) { c.Taints = []Taint{{Key: "a", Value: "b c", Effect: NoSchedule}} }, "Config.Taints[0]"},
		{"bad effect", compat.Bottlerocket, func(c *Config) { c.StartupTaints = []Taint{{Key: "a", Effect: "NoExec"}} }, "Config.StartupTaints[0]"},
		{"conflicting taints", compat.AL2, func(c *Config) {
			c.Taints = []Taint{{Key: "a", Value: "1", Effect: NoSchedule}}
			c.StartupTaints = []Taint{{Key: "a", Value: "2", Effect: NoSchedule}}
		}, "conflicts"},
		{"bad required", compat.AL2, func(c *Config) { c.RequiredTaints = []Taint{{Key: "x"}} }, "Config.RequiredTaints[0]"},
		{"forbidden label", compat.AL2, func(c *Config) { c.Labels = map[string]string{"node-restriction.kubernetes.io/a": "b"} }, "Config.Labels"},
		{"bad label value", compat.AL2023, func(c *Config) { c.Labels = map[string]string{"a": "b,c=d"} }, "Config.Labels"},
		{"custom not UTF-8", compat.AL2, func(c *Config) { c.CustomUserData = []byte{0xff, 0xfe} }, "UTF-8"},
		{"custom NUL", compat.AL2, func(c *Config) { c.CustomUserData = []byte("#!/bin/sh\x00") }, "NUL"},
		{"zero family", compat.AMIFamily(""), func(c *Config) {}, "AMIFamily()"},
	}
	for _, tt := range tests {
		cfg := baseConfig()
		tt.mutate(&cfg)
		out, err := Render(tt.family, cfg)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "userdata: ") {
			t.Errorf("%s: Render error = %v; want one containing %q", tt.name, err, tt.wantErr)
		}
		if out != nil {
			t.Errorf("%s: Render returned output with an error", tt.name)
		}
	}
}

// RequiredTaints: nil and empty mean the same (Karpenter v1's taint); no
// required taint is the explicit NoRequiredTaints, and asking for both is
// an error.
func TestRequiredTaintsChoice(t *testing.T) {
	t.Parallel()
	nilCfg, emptyCfg := baseConfig(), baseConfig()
	nilCfg.RequiredTaints, emptyCfg.RequiredTaints = nil, []Taint{}
	a, errA := Render(compat.AL2023, nilCfg)
	b, errB := Render(compat.AL2023, emptyCfg)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Fatalf("nil and empty RequiredTaints render differently (%v, %v)", errA, errB)
	}
	if diff := cmp.Diff([]Taint{UnregisteredTaint()}, emptyCfg.Required()); diff != "" {
		t.Errorf("Required() of an empty list (-want +got):\n%s", diff)
	}
	none := baseConfig()
	none.NoRequiredTaints = true
	out, err := Render(compat.AL2023, none)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(UnregisteredTaintKey)) || none.Required() != nil {
		t.Errorf("NoRequiredTaints still requires a taint:\n%s", out)
	}
	both := baseConfig()
	both.NoRequiredTaints, both.RequiredTaints = true, []Taint{UnregisteredTaint()}
	if _, err := Render(compat.AL2023, both); err == nil || !strings.Contains(err.Error(), "Config.NoRequiredTaints") {
		t.Errorf("Render with both = %v; want an error naming both fields", err)
	}
}
