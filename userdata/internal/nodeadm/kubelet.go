package nodeadm

import (
	"fmt"
	"net"
	"strings"

	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// KubeletArgs follows the merged kubelet flags through nodeadm's
// environment file (NODEADM_KUBELET_ARGS=<flags joined by spaces>) and the
// unbraced $NODEADM_KUBELET_ARGS in kubelet.service's ExecStart, returning
// the kubelet's arguments. hazard is set when the flags hold a backslash,
// a newline or a leading quote, which nodeadm writes unescaped; cut when
// a newline ends the value early, so that what the kubelet gets is not
// known.
func KubeletArgs(flags []string) (args []string, hazard, cut bool) {
	joined := strings.Join(flags, " ")
	if strings.ContainsAny(joined, "\\\n") || strings.HasPrefix(joined, "'") || strings.HasPrefix(joined, "\"") {
		hazard = true
		if strings.Contains(joined, "\n") {
			return nil, true, true
		}
	}
	args, _ = systemd.Split(systemd.EnvFileValue(joined), false, true)
	return args, hazard, false
}

// KubeletBase is what nodeadm writes into the kubelet's base config file
// (/etc/kubernetes/kubelet/config.json) whatever the NodeConfig says, for
// the fields userdata's kubelet model reads, as a decoded JSON object; the
// NodeConfig's spec.kubelet.config goes to a drop-in the kubelet merges
// over it (nodeadm/internal/kubelet/config.go@81fec2e8 writeKubeletConfig
// L334-379). From defaultKubeletSubConfig (L80-137: evictionHard,
// featureGates), withFallbackClusterDns (L139-148, from the cluster's
// service CIDR), withVersionToggles (L236-254: feature gates from kubelet
// 1.33 and 1.34) and withDefaultReservedResources (L274-288:
// kubeReserved). minor is the kubelet's minor release, 0 when unknown,
// which leaves the version toggles out. computed lists what nodeadm
// computes at boot from the instance: maxPods, kubeReserved.cpu and
// kubeReserved.memory. err is set when cidr is not a CIDR: nodeadm then
// fails before it starts the kubelet (api/net.go L10-37).
func KubeletBase(cidr string, minor int) (config map[string]any, computed []string, err error) {
	dns, err := clusterDNS(cidr)
	if err != nil {
		return nil, nil, err
	}
	gates := map[string]any{"RotateKubeletServerCertificate": true}
	if minor >= 33 {
		gates["DynamicResourceAllocation"] = true
	}
	if minor >= 34 {
		gates["MutableCSINodeAllocatableCount"] = true
	}
	config = map[string]any{
		"clusterDNS":   []any{dns},
		"evictionHard": map[string]any{"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
		"featureGates": gates,
		"kubeReserved": map[string]any{"ephemeral-storage": "1Gi"},
	}
	return config, []string{"maxPods", "kubeReserved.cpu", "kubeReserved.memory"}, nil
}

// clusterDNS is nodeadm's GetClusterDns (api/net.go L10-25): the text of
// an IPv4 CIDR up to its last '.' and ".10", or an IPv6 CIDR's address and
// "a"; the family is Go's net.ParseCIDR's (L27-37).
func clusterDNS(cidr string) (string, error) {
	ip, _, err := net.ParseCIDR(cidr)
	if err != nil {
		return "", fmt.Errorf("spec.cluster.cidr %q is not a CIDR (%v)", cidr, err)
	}
	if ip.To4() != nil {
		i := strings.LastIndex(cidr, ".")
		if i < 0 {
			// An IPv4-mapped IPv6 CIDR: nodeadm slices at index -1 and panics.
			return "", fmt.Errorf("spec.cluster.cidr %q is an IPv4-mapped IPv6 CIDR, from which nodeadm cannot derive the cluster DNS IP", cidr)
		}
		return cidr[:i] + ".10", nil
	}
	addr, _, _ := strings.Cut(cidr, "/")
	return addr + "a", nil
}
