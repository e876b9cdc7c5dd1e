package userdata

import (
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

// clusterDNSShapes are the entry shapes the parsers on the way to the
// kubelet meet: bootstrap.sh's --dns-cluster-ip (split on ',' by jq,
// templates/al2/runtime/bootstrap.sh@0ab84280 L488, nothing else checked),
// the kubelet's configuration file (clusterDNS, a JSON list of strings)
// and its reading of each entry with k8s.io/utils/net ParseIPSloppy
// (kubernetes/kubernetes pkg/kubelet/kubelet.go@v1.35.3 L576-584: Go's
// pre-1.17 net.ParseIP, so ASCII digits only, no zone, no brackets, no
// prefix length, leading zeros read as decimal), and Bottlerocket's
// settings model (Rust's IpAddr, bottlerocket-os/bottlerocket-settings-sdk
// @25e4241f modeled-types/src/kubernetes.rs KubernetesClusterDnsIp), whose
// kubelet template writes each address into clusterDNS
// (bottlerocket-os/bottlerocket-core-kit packages/kubernetes-1.*/
// kubelet-config: {{#each settings.kubernetes.cluster-dns-ip}}). kubelet
// says what the kubelet reads: "" for an entry it drops.
var clusterDNSShapes = []struct {
	name, entry, kubelet string
}{
	{"IPv4", "10.100.0.10", "10.100.0.10"},
	{"IPv6", "fd00:10:100::a", "fd00:10:100::a"},
	{"IPv6 upper case", "FD00::A", "fd00::a"},
	{"IPv4-mapped IPv6", "::ffff:10.100.0.10", "10.100.0.10"},
	{"IPv4 leading zeros", "010.100.000.010", "10.100.0.10"},
	{"a name", "test", ""},
	{"a host name", "kube-dns.kube-system.svc", ""},
	{"leading space", " 10.100.0.10", ""},
	{"trailing space", "10.100.0.10 ", ""},
	{"tab", "10.100.0.10\t", ""},
	{"newline", "10.100.0.10\n", ""},
	{"no-break space", "10.100.0.10\u00a0", ""},
	{"line separator", "10.100.0.10\u2028", ""},
	{"letters around a line separator", "10.100.0.10a\u2028b", ""},
	{"paragraph separator", "10.100.0.10\u2029", ""},
	{"zero-width space", "10.100.0.10\u200b", ""},
	{"accented letter", "10.100.0.10é", ""},
	{"fullwidth digits", "１０.１００.０.１０", ""},
	{"fullwidth full stop", "10．100.0.10", ""},
	{"Arabic-Indic digits", "١٠.100.0.10", ""},
	{"IPv6 zone by name", "fe80::1%eth0", ""},
	{"IPv6 zone by index", "fd00::a%1", ""},
	{"bracketed IPv6", "[fd00::a]", ""},
	{"prefix length", "10.100.0.10/32", ""},
	{"octet over 255", "10.100.0.300", ""},
	{"three octets", "10.100.0", ""},
	{"hexadecimal octet", "0x0a.100.0.10", ""},
	{"signed octet", "+10.100.0.10", ""},
	{"two addresses in one", "10.100.0.10,10.100.0.11", ""},
	{"quoted", `"10.100.0.10"`, ""},
	{"port", "10.100.0.10:53", ""},
}

// TestRenderClusterDNSShapes: every family refuses every entry the
// kubelet drops, naming the entry and what the boot path does with it;
// an address reaches the kubelet as the kubelet reads it (Lint follows
// Render's output through each family's boot agent). Bottlerocket and
// Windows also refuse leading zeros, which their settings and
// Render's PowerShell take as no address.
func TestRenderClusterDNSShapes(t *testing.T) {
	t.Parallel()
	why := map[compat.AMIFamily]string{
		compat.AL2:          "bootstrap.sh (--dns-cluster-ip) passes it to the kubelet, which drops it",
		compat.AL2023:       "nodeadm (spec.kubelet.config.clusterDNS) passes it to the kubelet, which drops it",
		compat.Bottlerocket: "Bottlerocket's settings take only IP addresses",
		compat.Windows2022:  "Start-EKSBootstrap.ps1 -DNSClusterIP",
	}
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		for _, tt := range clusterDNSShapes {
			t.Run(f.String()+"/"+tt.name, func(t *testing.T) {
				cfg := baseConfig()
				cfg.Kubelet.ClusterDNS = []string{tt.entry}
				if a, err := netip.ParseAddr(tt.kubelet); err == nil && a.Is6() && !a.Is4In6() {
					cfg.ClusterCIDR = "fd00:10:100::/108"
				}
				out, err := Render(f, cfg)
				strict := tt.kubelet != "" && (f == compat.AL2 || f == compat.AL2023 || tt.name != "IPv4 leading zeros")
				if !strict {
					reason := why[f]
					if f == compat.AL2 && strings.Contains(tt.entry, ",") {
						reason = "bootstrap.sh splits --dns-cluster-ip on ','"
					}
					if err == nil || !strings.Contains(err.Error(), "Config.Kubelet.ClusterDNS[0]") || !strings.Contains(err.Error(), reason) {
						t.Fatalf("Render = %v; want a refusal naming ClusterDNS[0] and saying %q", err, reason)
					}
					return
				}
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				r := mustLint(t, f, out, nil)
				if r.Verdict != Joins {
					t.Fatalf("Lint(Render) = %v: %s", r.Verdict, r.Reason)
				}
				got := slices.Clone(r.Kubelet.ClusterDNS)
				for i, s := range got {
					if a, ok := kubeletIP(s); ok {
						got[i] = a.Unmap().String()
					}
				}
				if diff := cmp.Diff([]string{tt.kubelet}, got); diff != "" {
					t.Errorf("clusterDNS the kubelet reads (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestKubeletIPShapes pins the reading the refusals rest on: kubeletIP is
// ParseIPSloppy's answer for every shape (the table's kubelet column;
// examples/karpenter checks the table against k8s.io/utils/net itself).
func TestKubeletIPShapes(t *testing.T) {
	t.Parallel()
	for _, tt := range clusterDNSShapes {
		a, ok := kubeletIP(tt.entry)
		got := ""
		if ok {
			got = a.Unmap().String()
		}
		if got != tt.kubelet {
			t.Errorf("kubeletIP(%q) = %q, want %q", tt.entry, got, tt.kubelet)
		}
	}
}

// TestRenderIPv6DNSWithIPv4CIDR: a dual-stack cluster's IPv6 DNS address
// beside an IPv4 service CIDR is accepted in every family and reaches the
// kubelet; the node keeps the CIDR's family (no --ip-family ipv6 on AL2,
// nodeadm's cidr unchanged on AL2023). No boot agent compares the two
// (see nodeIPv6), and the kubelet writes every clusterDNS address into
// pods' resolv.conf whatever its family
// (pkg/kubelet/network/dns/dns.go@v1.35.3).
func TestRenderIPv6DNSWithIPv4CIDR(t *testing.T) {
	t.Parallel()
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		cfg := baseConfig()
		cfg.Kubelet.ClusterDNS = []string{"fd00:10:100::a"}
		out, err := Render(f, cfg)
		if err != nil {
			t.Fatalf("Render(%v): %v", f, err)
		}
		r := mustLint(t, f, out, nil)
		if r.Verdict != Joins || !slices.Equal(r.Kubelet.ClusterDNS, cfg.Kubelet.ClusterDNS) {
			t.Errorf("Lint(%v, Render) = %v, clusterDNS %v; want it joining with %v", f, r.Verdict, r.Kubelet.ClusterDNS, cfg.Kubelet.ClusterDNS)
		}
		if f == compat.AL2 && strings.Contains(string(out), "--ip-family") {
			t.Errorf("AL2 with an IPv4 service CIDR asks for --ip-family: %s", out)
		}
		if f == compat.AL2023 && !strings.Contains(string(out), "cidr: 10.100.0.0/16") {
			t.Errorf("AL2023 lost the IPv4 service CIDR: %s", out)
		}
	}
}
