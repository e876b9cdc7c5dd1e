package bottlerocket

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Bottlerocket's settings API deserializes user data into its settings
// model, whose structs all carry #[serde(deny_unknown_fields)]
// (bottlerocket-os/bottlerocket@468f205b^ sources/models/model-derive/src/lib.rs
// L27, L112-116: the `model` macro adds it; the settings SDK kept it), so a
// key the model does not have is refused, not ignored.

// tables are the settings of the aws-k8s variants
// (bottlerocket-os/bottlerocket@91632ff5
// sources/settings-plugins/aws-k8s/src/lib.rs, in kebab-case).
var tables = []string{
	"autoscaling", "aws", "boot", "bootstrap-commands", "bootstrap-containers", "cloudformation", "container-registry",
	"container-runtime", "dns", "host-containers", "kernel", "kubernetes", "metrics", "motd", "network", "ntp",
	"oci-defaults", "oci-hooks", "pki", "updates",
}

// kubernetesKeys are the settings.kubernetes keys: the
// KubernetesSettings model (bottlerocket-os/bottlerocket@468f205b^
// sources/models/src/lib.rs L87-153) and the keys later releases set in
// their defaults (sources/shared-defaults/kubernetes-*.toml at 91632ff5).
var kubernetesKeys = []string{
	"allowed-unsafe-sysctls", "api-server", "authentication-mode", "bootstrap-token", "cloud-provider", "cluster-certificate",
	"cluster-dns-ip", "cluster-domain", "cluster-name", "container-log-max-files", "container-log-max-size",
	"cpu-cfs-quota-enforced", "cpu-manager-policy", "cpu-manager-policy-options", "cpu-manager-reconcile-period",
	"credential-providers", "event-burst", "event-qps", "eviction-hard", "eviction-max-pod-grace-period", "eviction-soft",
	"eviction-soft-grace-period", "hostname-override", "hostname-override-source", "image-gc-high-threshold-percent",
	"image-gc-low-threshold-percent", "kube-api-burst", "kube-api-qps", "kube-reserved", "log-level", "max-pods",
	"memory-manager-policy", "memory-manager-reserved-memory", "node-ip", "node-labels", "node-taints",
	"pod-infra-container-image", "pod-pids-limit", "provider-id", "registry-burst", "registry-qps", "reserved-cpus",
	"seccomp-default", "server-certificate", "server-key", "server-tls-bootstrap", "shutdown-grace-period",
	"shutdown-grace-period-for-critical-pods", "standalone-mode", "static-pods", "system-reserved",
	"topology-manager-policy", "topology-manager-scope",
}

// UnknownSetting names the first setting (in key order) that
// the settings model does not have, or "".
func UnknownSetting(settings, kube map[string]any) string {
	for _, k := range sortedKeys(settings) {
		if !slices.Contains(tables, k) {
			return "settings." + k
		}
	}
	for _, k := range sortedKeys(kube) {
		if !slices.Contains(kubernetesKeys, k) {
			return "settings.kubernetes." + k
		}
	}
	return ""
}

// BootSteps names the first bootstrap command or container
// that runs before the kubelet and may change its settings (with apiclient
// set, say), or "". Commands are ["apiclient", "ephemeral-storage", ...]
// only (what Karpenter writes for instance-store RAID0) are known not to;
// entries with mode "off" do not run.
func BootSteps(settings map[string]any) string {
	for _, table := range []string{"bootstrap-commands", "bootstrap-containers"} {
		entries, _ := settings[table].(map[string]any)
		for _, name := range sortedKeys(entries) {
			e, _ := entries[name].(map[string]any)
			if mode, _ := e["mode"].(string); mode == "off" {
				continue
			}
			if table == "bootstrap-commands" && onlyEphemeralStorage(e["commands"]) {
				continue
			}
			return "settings." + table + "." + name
		}
	}
	return ""
}

func onlyEphemeralStorage(v any) bool {
	cmds, ok := v.([]any)
	if !ok || len(cmds) == 0 {
		return false
	}
	for _, c := range cmds {
		argv, ok := c.([]any)
		if !ok || len(argv) < 2 || argv[0] != "apiclient" || argv[1] != "ephemeral-storage" {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// IsSettings reports whether text is TOML with a settings table.
func IsSettings(text []byte) bool {
	var doc map[string]any
	if toml.Unmarshal(text, &doc) != nil {
		return false
	}
	_, ok := doc["settings"].(map[string]any)
	return ok
}

// TaintEntry is one entry of settings.kubernetes.node-taints.KEY:
// "value:Effect".
func TaintEntry(value, effect string) string {
	return value + ":" + effect
}

// ParseTaintEntry reads a node-taints entry; ok is false unless it has
// exactly one ':'.
func ParseTaintEntry(e string) (value, effect string, ok bool) {
	value, effect, found := strings.Cut(e, ":")
	if !found || strings.Contains(effect, ":") {
		return "", "", false
	}
	return value, effect, true
}

// RAID0CommandName is the bootstrap-commands key Karpenter v1.14.1 uses
// for instance-store RAID0 (pkg/providers/amifamily/bootstrap/bottlerocket.go,
// "000-mount-instance-storage"); Render uses it too, so a node's settings
// read the same whichever wrote them.
const RAID0CommandName = "000-mount-instance-storage"

// RAID0Command is the bootstrap command Karpenter v1.14.1 adds for RAID0:
// "apiclient ephemeral-storage init" then "bind". From Bottlerocket 1.46.0
// bind knows the directories itself (pkg/providers/version/version.go,
// SupportsDefaultBind); before that, or when the release is unknown, they
// are named.
func RAID0Command(release string) map[string]any {
	bind := []any{"apiclient", "ephemeral-storage", "bind"}
	if !BindsByDefault(release) {
		bind = append(bind, "--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods")
	}
	return map[string]any{
		"commands":  []any{[]any{"apiclient", "ephemeral-storage", "init"}, bind},
		"essential": true,
		"mode":      "always",
	}
}

// BindsByDefault reports whether a Bottlerocket release ("v1.46.0",
// "1.46.0-5d1a2b3c") is 1.46.0 or later.
func BindsByDefault(release string) bool {
	v := strings.TrimPrefix(release, "v")
	v, _, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	n := make([]int, 3)
	for i, s := range parts {
		x, err := strconv.Atoi(s)
		if err != nil || x < 0 {
			return false
		}
		n[i] = x
	}
	return n[0] > 1 || n[0] == 1 && n[1] >= 46
}
