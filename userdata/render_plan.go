package userdata

import (
	"bytes"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"maps"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

// plan is a validated Config, ready to render.
type plan struct {
	cfg    Config
	taints []Taint // effective: Taints ∪ StartupTaints ∪ required, in that order
	dns    []netip.Addr
	cidr   netip.Prefix // invalid when unset
	ipv6   bool         // the cluster uses IPv6 (from DNS or CIDR)
	custom []byte       // CustomUserData with every '\r' removed
	// labelKeys are the label keys, sorted.
	labelKeys []string
}

// nodeLabels is the --node-labels value: k=v pairs in key order.
func (p *plan) nodeLabels() string {
	n := 0
	for _, k := range p.labelKeys {
		n += len(k) + len(p.cfg.Labels[k]) + 2
	}
	var b strings.Builder
	b.Grow(n)
	for i, k := range p.labelKeys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(p.cfg.Labels[k])
	}
	return b.String()
}

// newPlan validates cfg for family f. Every error names the field and says
// how to fix it.
func newPlan(f compat.AMIFamily, cfg Config) (*plan, error) {
	p := &plan{cfg: cfg}
	if err := checkClusterName(cfg.ClusterName); err != nil {
		return nil, err
	}
	if err := checkEndpoint(cfg.APIServerEndpoint); err != nil {
		return nil, err
	}
	if err := checkCABundle(cfg.CABundle); err != nil {
		return nil, err
	}
	if err := p.checkCIDR(f); err != nil {
		return nil, err
	}
	if cfg.KubernetesVersion != "" {
		if _, err := kubelet.ParseMinor(cfg.KubernetesVersion); err != nil {
			return nil, fmt.Errorf("userdata: Config.KubernetesVersion: %v", err)
		}
	}
	if err := p.checkKubelet(f); err != nil {
		return nil, err
	}
	if cfg.NoRequiredTaints && len(cfg.RequiredTaints) > 0 {
		return nil, fmt.Errorf("userdata: Config.NoRequiredTaints is set and Config.RequiredTaints lists %d taints; choose one: clear NoRequiredTaints to require them, or empty RequiredTaints to require none", len(cfg.RequiredTaints))
	}
	taints, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		return nil, err
	}
	p.taints = taints
	if err := checkKubeletOwnTaint(f, taints); err != nil {
		return nil, err
	}
	p.labelKeys = slices.Sorted(maps.Keys(cfg.Labels))
	for _, k := range p.labelKeys {
		if err := checkLabel(k, cfg.Labels[k]); err != nil {
			return nil, fmt.Errorf("userdata: Config.Labels: %v", err)
		}
	}
	custom, err := cleanCustom(cfg.CustomUserData)
	if err != nil {
		return nil, err
	}
	p.custom = custom
	return p, nil
}

// checkCIDR parses the service CIDR, which AL2023 requires.
func (p *plan) checkCIDR(f compat.AMIFamily) error {
	if p.cfg.ClusterCIDR == "" {
		if f == compat.AL2023 {
			return fmt.Errorf("userdata: Config.ClusterCIDR is empty; nodeadm (AL2023) refuses a NodeConfig without the cluster's service CIDR, so set it, e.g. 10.100.0.0/16")
		}
		return nil
	}
	pfx, err := netip.ParsePrefix(p.cfg.ClusterCIDR)
	if err != nil {
		return fmt.Errorf("userdata: Config.ClusterCIDR %q is not a CIDR; write it like 10.100.0.0/16 or fd00::/108", p.cfg.ClusterCIDR)
	}
	if pfx.Masked() != pfx || pfx.String() != p.cfg.ClusterCIDR {
		return fmt.Errorf("userdata: Config.ClusterCIDR %q is not in canonical form; write %q", p.cfg.ClusterCIDR, pfx.Masked().String())
	}
	p.cidr = pfx
	return nil
}

// cleanCustom checks that custom user data is text and removes every '\r',
// as Karpenter's mergeCustomUserData does, so that the output is LF
// throughout.
func cleanCustom(b []byte) ([]byte, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("userdata: Config.CustomUserData is not UTF-8 text; pass the text itself, not an archive or an encoding of it")
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return nil, fmt.Errorf("userdata: Config.CustomUserData contains a NUL byte at offset %d; userData must be text", i)
	}
	return bytes.ReplaceAll(b, []byte("\r"), nil), nil
}

// checkClusterName applies EKS's rule for cluster names.
func checkClusterName(s string) error {
	if s == "" {
		return fmt.Errorf("userdata: Config.ClusterName is empty; set it to the EKS cluster name")
	}
	ok := len(s) <= 100 && isAlnum(s[0])
	for i := 0; ok && i < len(s); i++ {
		ok = isAlnum(s[i]) || s[i] == '-' || s[i] == '_'
	}
	if !ok {
		return fmt.Errorf("userdata: Config.ClusterName %q is not an EKS cluster name: use 1 to 100 letters, digits, '-' and '_', starting with a letter or digit", s)
	}
	return nil
}

// checkEndpoint accepts https://host[:port][/path] with a conservative
// character set: bootstrap.sh substitutes the endpoint into a sed
// expression (s,MASTER_ENDPOINT,…,g), where ',' and '&' would corrupt the
// kubeconfig.
func checkEndpoint(s string) error {
	if s == "" {
		return fmt.Errorf("userdata: Config.APIServerEndpoint is empty; set it to the cluster's https:// API server URL")
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "#") {
		return fmt.Errorf("userdata: Config.APIServerEndpoint %q is not an https URL of the form https://host[:port]; use the endpoint EKS reports", s)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && !strings.ContainsRune(".-:/[]_~", rune(c)) {
			return fmt.Errorf("userdata: Config.APIServerEndpoint %q contains %q; only letters, digits and . - : / [ ] _ ~ are accepted", s, string(c))
		}
	}
	return nil
}

// checkCABundle requires the standard base64 alphabet, no line breaks, and
// PEM with at least one certificate inside.
func checkCABundle(s string) error {
	if s == "" {
		return fmt.Errorf("userdata: Config.CABundle is empty; set it to the cluster's certificateAuthority.data from EKS")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '+' && c != '/' && c != '=' {
			return fmt.Errorf("userdata: Config.CABundle contains %q at offset %d; it must be standard base64 on one line, as EKS returns it", string(c), i)
		}
	}
	der, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("userdata: Config.CABundle is not valid base64 (%v); pass certificateAuthority.data from EKS unchanged", err)
	}
	for rest := der; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return fmt.Errorf("userdata: Config.CABundle decodes to no PEM certificate; it must be the base64 of the cluster's PEM CA certificate")
		}
		if block.Type == "CERTIFICATE" {
			return nil
		}
	}
}

// checkKubeletOwnTaint refuses a taint with the key and effect of the one
// the kubelet adds itself on the families whose boot agent runs it with
// --cloud-provider=external: the Node would carry the pair twice, and the
// API server refuses it (see [CloudProviderTaint]).
func checkKubeletOwnTaint(f compat.AMIFamily, taints []Taint) error {
	if f.IsWindows() || f == compat.Custom {
		return nil
	}
	own := CloudProviderTaint()
	for _, t := range taints {
		if t.Matches(own) {
			return fmt.Errorf("userdata: taint %s has the key and effect of %s, which the kubelet registers itself on %v (--cloud-provider=external); the API server refuses a Node with both, so remove it from Config.Taints and Config.StartupTaints", t, own, f)
		}
	}
	return nil
}

// checkKubelet validates cfg.Kubelet and the instance-store policy for
// family f, and records the parsed DNS addresses.
func (p *plan) checkKubelet(f compat.AMIFamily) error {
	k := p.cfg.Kubelet
	if defaulted, err := validateKubelet(k); err != nil && !(defaulted && p.mergesCustom(f)) {
		// Custom configuration merged in may set the other image GC bound;
		// Render then checks the merge (checkMergedKubelet).
		return err
	}
	if err := checkDNSForFamily(f, k.ClusterDNS); err != nil {
		return err
	}
	p.dns = dnsAddrs(k)
	p.ipv6 = nodeIPv6(p.cidr, p.dns)
	switch {
	case f == compat.Bottlerocket && (hasKey(k.SystemReserved, "pid") || hasKey(k.KubeReserved, "pid")):
		// bottlerocket-os/bottlerocket-settings-sdk@25e4241f
		// bottlerocket-settings-models/modeled-types/src/kubernetes.rs
		// ReservedResources: cpu, memory and ephemeral-storage only.
		return fmt.Errorf("userdata: Config.Kubelet reserves pid, but Bottlerocket's settings take only cpu, memory and ephemeral-storage for system-reserved and kube-reserved and refuse the settings otherwise; leave pid out for Bottlerocket")
	case k.PodsPerCore != nil && f == compat.Bottlerocket:
		return fmt.Errorf("userdata: Config.Kubelet.PodsPerCore is set, but Bottlerocket has no pods-per-core setting (Karpenter drops it silently); leave it nil for Bottlerocket or cap pods with MaxPods")
	}
	switch p.cfg.InstanceStorePolicy {
	case "":
	case RAID0:
		if f.IsWindows() {
			return fmt.Errorf("userdata: Config.InstanceStorePolicy RAID0 is not available on Windows: Start-EKSBootstrap.ps1 has no instance-store option; leave it empty for %v", f)
		}
	default:
		return fmt.Errorf("userdata: Config.InstanceStorePolicy %q is not a policy; use RAID0 or leave it empty", p.cfg.InstanceStorePolicy)
	}
	return nil
}

// kubeletFlags are the kubelet flags AL2 and Windows pass: the labels,
// exactly one --register-with-taints, and the kubelet configuration. Validation already
// limits labels and taints to characters that need no quoting anywhere on
// their way to the kubelet; this checks it again, since a quote, a
// backslash, a newline or whitespace inside a flag would be rewritten by
// systemd or split the flag. A '%' can only come from an eviction
// percentage; AL2 escapes it for systemd (see renderAL2).
func (p *plan) kubeletFlags() ([]string, error) {
	var flags []string
	if len(p.labelKeys) > 0 {
		flags = append(flags, "--node-labels="+p.nodeLabels())
	}
	if len(p.taints) > 0 {
		flags = append(flags, "--register-with-taints="+FormatTaints(p.taints))
	}
	flags = append(flags, kubeletFlags(&p.cfg.Kubelet)...)
	for _, f := range flags {
		if strings.ContainsAny(f, "'\"\\` \t\r\n") {
			return nil, fmt.Errorf("userdata: kubelet flag %q contains a character that cannot reach the kubelet unchanged", f)
		}
	}
	return flags, nil
}

// nodeIPv6 reports whether the node takes an IPv6 address: the service
// CIDR's family when it is known, as nodeadm picks the node IP
// (nodeadm/internal/kubelet/config.go@81fec2e8 L385-407, getNodeIp), else
// the first cluster DNS address's, as Karpenter decides --ip-family
// (pkg/providers/amifamily/bootstrap/eksbootstrap.go:112 @v1.14.1). A
// dual-stack cluster may give an IPv6 DNS address beside an IPv4 service
// CIDR: no boot agent compares the two (bootstrap.sh copies
// --dns-cluster-ip into clusterDNS as it is, L488; nodeadm writes a
// NodeConfig's clusterDNS over the one it derives from the CIDR; the
// kubelet hands every address to pods' resolv.conf whatever its family,
// pkg/kubelet/network/dns/dns.go@v1.35.3), so Render accepts it and keeps
// the node on the CIDR's family.
func nodeIPv6(cidr netip.Prefix, dns []netip.Addr) bool {
	if cidr.IsValid() {
		return cidr.Addr().Is6()
	}
	return len(dns) > 0 && dns[0].Is6() && !dns[0].Is4In6()
}

// checkDNSForFamily refuses a Config.Kubelet.ClusterDNS entry that is not
// an IP address in every family, for what each boot path does with one:
//   - AL2: bootstrap.sh splits its one --dns-cluster-ip on ',' and writes
//     the pieces into the kubelet's clusterDNS unchecked
//     (templates/al2/runtime/bootstrap.sh@0ab84280 L488), so the entries
//     are joined with ',' and none may hold one;
//   - AL2023: nodeadm merges the NodeConfig's kubelet config into the
//     kubelet's configuration file as written
//     (nodeadm/internal/kubelet/config.go@81fec2e8);
//   - on both, the kubelet then drops an entry that is not an IP address
//     with "Invalid clusterDNS IP" (k8s.io/utils/net ParseIPSloppy:
//     kubernetes/kubernetes pkg/kubelet/kubelet.go@v1.35.3 L576-584), and
//     with no address left it gives pods the node's resolv.conf instead
//     of the cluster's DNS (pkg/kubelet/network/dns/dns.go@v1.35.3,
//     ClusterFirst falls back to Default): the node joins, its pods cannot
//     resolve services;
//   - Bottlerocket's settings model types cluster-dns-ip as IP addresses
//     (bottlerocket-os/bottlerocket-settings-sdk@25e4241f
//     bottlerocket-settings-models/modeled-types/src/kubernetes.rs
//     KubernetesClusterDnsIp: an IpAddr or a list of them) and refuses the
//     settings otherwise;
//   - Start-EKSBootstrap.ps1 takes one -DNSClusterIP, an IP address.
//
// An address is what the kubelet reads as one ([kubeletIP]: no zone, no
// space, ASCII digits only); Bottlerocket and Windows also refuse the
// leading zeros the kubelet reads as decimal.
func checkDNSForFamily(f compat.AMIFamily, dns []string) error {
	for i, s := range dns {
		_, kubeletReads := kubeletIP(s)
		switch a, err := netip.ParseAddr(s); {
		case f == compat.AL2 && strings.Contains(s, ","):
			return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS[%d] %q contains ','; bootstrap.sh splits --dns-cluster-ip on ',', so list each address as its own entry", i, s)
		case (f == compat.AL2 || f == compat.AL2023) && !kubeletReads:
			return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS[%d] %q is not an IP address; %s passes it to the kubelet, which drops it (\"Invalid clusterDNS IP\") and, with no address left, gives pods the node's own resolver instead of the cluster DNS, so write it like 10.100.0.10", i, s, bootAgent(f))
		case f == compat.Bottlerocket && (err != nil || a.Zone() != ""):
			return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS[%d] %q is not an IP address; Bottlerocket's settings take only IP addresses for cluster-dns-ip and refuse the settings otherwise, so write it like 10.100.0.10", i, s)
		case f.IsWindows() && (err != nil || a.Zone() != ""):
			// Start-EKSBootstrap.ps1 is not published, so what it makes of
			// other text is not known, and text such as "</powershell>"
			// would end the script's block.
			return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS[%d] %q is not an IP address; Render passes only an IP address to Start-EKSBootstrap.ps1 -DNSClusterIP, so write it like 10.100.0.10", i, s)
		}
	}
	if len(dns) > 1 && f.IsWindows() {
		return fmt.Errorf("userdata: Config.Kubelet.ClusterDNS has %d entries; Start-EKSBootstrap.ps1 takes one -DNSClusterIP, so keep only the first", len(dns))
	}
	return nil
}

// bootAgent names what hands family f's clusterDNS to the kubelet.
func bootAgent(f compat.AMIFamily) string {
	if f == compat.AL2 {
		return "bootstrap.sh (--dns-cluster-ip)"
	}
	return "nodeadm (spec.kubelet.config.clusterDNS)"
}

func hasKey(m map[string]string, key string) bool {
	_, ok := m[key]
	return ok
}

// mergesCustom reports whether family f's boot agent merges the custom
// userData's kubelet configuration with Render's: AL2023's nodeadm
// (NodeConfigs) and Bottlerocket's settings.
func (p *plan) mergesCustom(f compat.AMIFamily) bool {
	return (f == compat.AL2023 || f == compat.Bottlerocket) && len(bytes.TrimSpace(p.cfg.CustomUserData)) > 0
}

// lintOptions are what Render tells Lint about the node when it checks
// custom userData: the Kubernetes version, when Config names it.
func (c Config) lintOptions() []LintOption {
	return []LintOption{KubernetesVersion(c.KubernetesVersion)}
}

// checkMergedKubelet follows out, Render's output for family f (AL2023 or
// Bottlerocket, whose boot agents merge custom configuration with
// Render's), to the kubelet, and refuses it when the node certainly never
// joins, or when the kubelet refuses the merged configuration for some or
// all of the kubelet releases of Config.KubernetesVersion (every release
// the family ships, when it is ""). Other constructs Lint cannot follow
// are the custom parts' checks' business.
func (p *plan) checkMergedKubelet(f compat.AMIFamily, out []byte) (*Report, error) {
	l := &linter{required: p.taints}
	minor, _ := kubelet.ParseMinor(p.cfg.KubernetesVersion) // checked by newPlan
	l.forRelease(f, minor)
	var b boot
	switch f {
	case compat.AL2023:
		b = l.lintAL2023(out)
	case compat.Bottlerocket:
		b = l.lintBottlerocket(out)
	default:
		return nil, nil
	}
	after := l.kubeletRefuses(b)
	if b.verdict() == Unresolved {
		return nil, nil
	}
	r := l.finish(after)
	if after.verdict() == Joins {
		return &r, nil // Lint's report on out, every effective taint required
	}
	fix := ""
	for _, pr := range r.Problems {
		if pr.Message == r.Reason && pr.Fix != "" {
			fix = "; " + pr.Fix
		}
	}
	if after.verdict() == Unresolved {
		fix += "; or set Config.KubernetesVersion"
	}
	return nil, fmt.Errorf("userdata: Config.CustomUserData: merged with Render's configuration as the %v boot agent merges them, it leaves the node %v: %s%s", f, r.Verdict, r.Reason, fix)
}
