package userdata

import (
	"fmt"
	"slices"
)

// Bottlerocket's settings API deserializes user data into its settings
// model, whose structs all carry #[serde(deny_unknown_fields)]
// (bottlerocket-os/bottlerocket@468f205b^ sources/models/model-derive/src/lib.rs
// L27, L112-116: the `model` macro adds it; the settings SDK kept it), so a
// key the model does not have is refused, not ignored.

// bottlerocketTables are the settings of the aws-k8s variants
// (bottlerocket-os/bottlerocket@91632ff5
// sources/settings-plugins/aws-k8s/src/lib.rs, in kebab-case).
var bottlerocketTables = []string{
	"autoscaling", "aws", "boot", "bootstrap-commands", "bootstrap-containers", "cloudformation", "container-registry",
	"container-runtime", "dns", "host-containers", "kernel", "kubernetes", "metrics", "motd", "network", "ntp",
	"oci-defaults", "oci-hooks", "pki", "updates",
}

// bottlerocketKubernetes are the settings.kubernetes keys: the
// KubernetesSettings model (bottlerocket-os/bottlerocket@468f205b^
// sources/models/src/lib.rs L87-153) and the keys later releases set in
// their defaults (sources/shared-defaults/kubernetes-*.toml at 91632ff5).
var bottlerocketKubernetes = []string{
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

// unknownBottlerocketSetting names the first setting (in key order) that
// the settings model does not have, or "".
func unknownBottlerocketSetting(settings, kube map[string]any) string {
	for _, k := range sortedKeys(settings) {
		if !slices.Contains(bottlerocketTables, k) {
			return "settings." + k
		}
	}
	for _, k := range sortedKeys(kube) {
		if !slices.Contains(bottlerocketKubernetes, k) {
			return "settings.kubernetes." + k
		}
	}
	return ""
}

func unknownSettingError(key string) error {
	return fmt.Errorf("userdata: Config.CustomUserData sets %s, which the Bottlerocket aws-k8s settings model does not have; its settings API refuses unknown keys (the model denies unknown fields), so remove it or check its spelling", key)
}

// bottlerocketBootSteps names the first bootstrap command or container
// that runs before the kubelet and may change its settings (with apiclient
// set, say), or "". Commands are ["apiclient", "ephemeral-storage", ...]
// only (what Karpenter writes for instance-store RAID0) are known not to;
// entries with mode "off" do not run.
func bottlerocketBootSteps(settings map[string]any) string {
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
