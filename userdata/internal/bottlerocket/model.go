package bottlerocket

// The settings model of the aws-k8s variants, as data: every namespace of
// settings, its keys and, where the model denies unknown fields at a level,
// the exact set of keys at that level. Sources, cited per namespace below
// and in testdata/README.md:
//
//   - The namespaces each variant has: its settings plugin,
//     bottlerocket-os/bottlerocket@80378023 (Bottlerocket 1.50.0)
//     sources/settings-plugins/aws-k8s/src/lib.rs and
//     aws-k8s-nvidia/src/lib.rs.
//   - The keys of each namespace: its settings extension in
//     bottlerocket-os/bottlerocket-settings-sdk, at 5ba2c487 (2024-12-13)
//     bottlerocket-settings-models/settings-extensions/NAME/src/lib.rs, and
//     at the newer commits named per namespace where the extension has
//     since grown (keys are only ever added; a key of either version is
//     accepted).
//   - Why an unknown key is refused: the model macro adds
//     #[serde(deny_unknown_fields, rename_all = "kebab-case")] to every
//     struct it marks that sets no serde attribute of its own
//     (bottlerocket-settings-sdk@5ba2c487
//     bottlerocket-settings-models/model-derive/src/lib.rs L107-L120), and
//     the settings API deserializes user data into the plugin's struct, so
//     the PATCH early-boot-config sends fails (the 400 "unknown field
//     `nvidia-container-runtime`, expected one of `motd`, …" in
//     bottlerocket-os/bottlerocket#4145) and the boot stops before the
//     kubelet.
//   - Releases: a key a migration adds exists from that release
//     (bottlerocket@80378023 sources/settings-migrations/vX.Y.Z/…); keys
//     documented first for a release (bottlerocket-os/bottlerocket-project-website@6102096
//     data/settings/X.Y.x/NAME.toml) exist from that release.

// level says how the model reads the keys at one level of the settings.
type level uint8

const (
	// leaf is a value: its type is the model's, and keys inside it (if it
	// is a table) are data, not settings.
	leaf level = iota
	// strict is a struct whose model denies unknown fields.
	strict
	// lax is a struct whose model ignores unknown fields (serde's default:
	// no deny_unknown_fields, or a flattened map).
	lax
	// unsettled is a struct whose full set of keys could not be
	// established from published sources: the listed keys exist, others
	// may.
	unsettled
	// mapOf is a map whose values are elem.
	mapOf
	// listOf is a list whose elements are elem.
	listOf
)

// node is one level of the model.
type node struct {
	level  level
	fields map[string]*node
	elem   *node
	// ident: the map's keys are Identifiers (ASCII letters and digits and
	// '-', at most 76 bytes; bottlerocket-settings-sdk@5ba2c487
	// bottlerocket-settings-models/modeled-types/src/shared.rs L395-L408).
	ident bool
	// since is the first release that has this key, "" if every current
	// release has it.
	since string
}

// namespace is one top-level table of settings.
type namespace struct {
	// model is the Rust struct of its settings extension.
	model string
	node  *node
	// source is where its keys come from.
	source string
	// variants names the variants that have it, "" if every aws-k8s
	// variant does.
	variants string
	// settled: the aws-k8s settings plugin is known to have it. A
	// namespace the settings models define but no published plugin is
	// known to include is accepted and unsettled.
	settled bool
}

// nvidiaVariants are the only variants whose settings plugin has the
// NVIDIA namespaces (bottlerocket@80378023
// sources/settings-plugins/aws-k8s-nvidia/src/lib.rs; aws-k8s/src/lib.rs
// lacks them).
const nvidiaVariants = "aws-k8s-*-nvidia"

// VariantName is the variant a Variant finding's Detail names, as AMI
// names spell it ("nvidia" for aws-k8s-*-nvidia), or "" for none.
func VariantName(detail string) string {
	if detail == nvidiaVariants {
		return "nvidia"
	}
	return ""
}

func fields(level level, kv ...any) *node {
	n := &node{level: level, fields: make(map[string]*node, len(kv)/2)}
	for i := 0; i < len(kv); i += 2 {
		n.fields[kv[i].(string)] = kv[i+1].(*node)
	}
	return n
}

func rec(kv ...any) *node     { return fields(strict, kv...) }
func laxRec(kv ...any) *node  { return fields(lax, kv...) }
func openRec(kv ...any) *node { return fields(unsettled, kv...) }
func val() *node              { return &node{level: leaf} }
func valSince(r string) *node { return &node{level: leaf, since: r} }
func mapOfVal() *node         { return &node{level: mapOf, elem: val()} }
func idMap(elem *node) *node  { return &node{level: mapOf, elem: elem, ident: true} }
func listOfRec(e *node) *node { return &node{level: listOf, elem: e} }

func since(r string, n *node) *node {
	n.since = r
	return n
}

const (
	sdk     = "bottlerocket-os/bottlerocket-settings-sdk@"
	ext     = " bottlerocket-settings-models/settings-extensions/"
	sdk2024 = sdk + "5ba2c487" + ext
)

// namespaces is the model: every top-level table of settings of the
// aws-k8s variants (and of the models no published aws-k8s plugin is
// known to include yet, unsettled).
var namespaces = map[string]namespace{
	"motd": {model: "MotdV1", node: val(), source: sdk2024 + "motd/src/lib.rs L8 (a string)", settled: true},
	"kubernetes": {model: "KubernetesSettingsV1", node: kubernetes, settled: true, source: sdk + "c135bcbc" + ext + "kubernetes/src/lib.rs KubernetesSettingsV1; " +
		sdk2024 + "kubernetes/src/lib.rs; ytsssun/bottlerocket-settings-sdk@03ea23dd (kubelet-extra-config, " +
		"topology-manager-policy-options, which Karpenter v1.14.1 bottlerocketsettings.go L84 also writes)"},
	"updates": {model: "UpdatesSettingsV1", node: rec("metadata-base-url", val(), "targets-base-url", val(), "seed", val(), "version-lock", val(),
		"ignore-waves", val()), source: sdk2024 + "updates/src/lib.rs L11", settled: true},
	"host-containers": {model: "HostContainer", node: idMap(rec("source", val(), "enabled", val(), "superpowered", val(), "user-data", val(),
		"command", valSince("1.47.0"))), settled: true,
		source: sdk + "c3fe445d" + ext + "host-containers/src/lib.rs (a map of HostContainer)"},
	"bootstrap-commands": {model: "BootstrapCommand", node: idMap(rec("commands", val(), "mode", val(), "essential", val())), settled: true,
		source: sdk2024 + "bootstrap-commands/src/lib.rs L9, L35 (a map of BootstrapCommand)"},
	"bootstrap-containers": {model: "BootstrapContainer", node: idMap(rec("source", val(), "mode", val(), "user-data", val(), "essential", val(),
		"command", valSince("1.47.0"))), settled: true,
		source: sdk + "bfbe5da4" + ext + "bootstrap-containers/src/lib.rs (a map of BootstrapContainer)"},
	"ntp": {model: "NtpSettingsV1", node: rec("time-servers", val(), "options", val(), "logging", val()), settled: true,
		source: sdk + "77cf65b0" + ext + "ntp/src/lib.rs NtpSettingsV1, NtpTimeServer"},
	"network": {model: "NetworkSettingsV1", node: rec("hostname", val(), "hosts", val(), "https-proxy", val(), "no-proxy", val(), "disable-ipv6", val()),
		settled: true, source: sdk + "923a01de" + ext + "network/src/lib.rs NetworkSettingsV1"},
	"kernel": {model: "KernelSettingsV1", node: rec("lockdown", val(), "modules", &node{level: mapOf, elem: rec("allowed", val(), "autoload", val())}, "sysctl", mapOfVal(),
		"hugepages", openRec("static", openRec("essential", val()), "transparent", openRec("enabled", val(), "defrag", val()))),
		settled: true, source: sdk + "87a3f886" + ext + "kernel/src/lib.rs KernelSettingsV1, KmodSetting (hugepages: modeled-types " +
			"HugepagesSettings, whose keys are not established: static, transparent and their test keys are known)"},
	"boot": {model: "BootSettingsV1", node: rec("reboot-to-reconcile", val(), "kernel-parameters", mapOfVal(), "kernel", mapOfVal(),
		"init-parameters", mapOfVal(), "init", mapOfVal()), settled: true,
		source: sdk + "5ba2c487 bottlerocket-settings-models/settings-models/src/boot.rs L7-L24 (kernel and init are aliases)"},
	"aws": {model: "AwsSettingsV1", node: rec("region", val(), "config", val(), "credentials", val(), "profile", val()), settled: true,
		source: sdk2024 + "aws/src/lib.rs L9"},
	"metrics": {model: "MetricsSettingsV1", node: rec("metrics-url", val(), "send-metrics", val(), "service-checks", val()), settled: true,
		source: sdk2024 + "metrics/src/lib.rs L9"},
	"pki": {model: "PemCertificate", node: idMap(rec("data", val(), "trusted", val())), settled: true,
		source: sdk2024 + "pki/src/lib.rs L9, L33 (a map of PemCertificate)"},
	"container-registry": {model: "RegistrySettingsV1", node: rec("mirrors", val(), "credentials", registryCredentials, "creds", registryCredentials),
		settled: true, source: sdk2024 + "container-registry/src/lib.rs L13-L38 (creds is an alias; mirrors has its own deserializer)"},
	"oci-defaults": {model: "OciDefaultsV1", node: rec("capabilities", mapOfVal(), "resource-limits", &node{level: mapOf,
		elem: rec("hard-limit", val(), "soft-limit", val())}), settled: true,
		source: sdk2024 + "oci-defaults/src/lib.rs L14-L28"},
	"oci-hooks": {model: "OciHooksSettingsV1", node: rec("log4j-hotpatch-enabled", val()), settled: true, source: sdk2024 + "oci-hooks/src/lib.rs L9"},
	"cloudformation": {model: "CloudFormationSettingsV1", node: rec("should-signal", val(), "stack-name", val(), "logical-resource-id", val()), settled: true,
		source: sdk2024 + "cloudformation/src/lib.rs L8"},
	"dns": {model: "DnsSettingsV1", node: rec("name-servers", val(), "search-list", val()), settled: true, source: sdk2024 + "dns/src/lib.rs L9"},
	"container-runtime": {model: "ContainerRuntimeSettingsV1", node: rec("max-container-log-line-size", val(), "max-concurrent-downloads", val(),
		"max-concurrent-unpacks", val(), "concurrent-download-chunk-size", valSince("1.47.0"),
		"concurrent-layer-fetch-buffer", valSince("1.47.0"), "enable-unprivileged-ports", val(),
		"enable-unprivileged-icmp", val(), "cgroup-writable", val(), "snapshotter", valSince("1.44.0")), settled: true,
		source: sdk + "cb410c0b" + ext + "container-runtime/src/lib.rs ContainerRuntimeSettingsV1 (concurrent-layer-fetch-buffer is an alias)"},
	"container-runtime-plugins": {model: "ContainerRuntimePluginsSettingsV1", node: since("1.44.0", openRec("soci-snapshotter", openRec("pull-mode", val(),
		"parallel-pull-unpack", openRec("max-concurrent-downloads", val(), "max-concurrent-downloads-per-image", val(),
			"concurrent-download-chunk-size", val(), "max-concurrent-unpacks", val(),
			"max-concurrent-unpacks-per-image", val(), "discard-unpacked-layers", val())))), settled: true,
		source: "bottlerocket@80378023 sources/settings-plugins/aws-k8s/src/lib.rs L26 (added by ed567ccc); keys from " +
			"bottlerocket-project-website@6102096 data/settings/1.44.x/container-runtime-plugins.toml (the extension's " +
			"source is not published in a form read here)"},
	"autoscaling": {model: "AutoScalingSettingsV1", node: rec("should-wait", val()), settled: true, source: sdk2024 + "autoscaling/src/lib.rs L7"},
	"nvidia-container-runtime": {model: "NvidiaContainerRuntimeSettingsV1", node: rec("visible-devices-as-volume-mounts", val(),
		"visible-devices-envvar-when-unprivileged", val()), variants: nvidiaVariants, settled: true,
		source: sdk2024 + "nvidia-container-runtime/src/lib.rs L8"},
	"kubelet-device-plugins": {model: "KubeletDevicePluginsV1", node: rec("nvidia", nvidiaDevicePlugin), variants: nvidiaVariants, settled: true,
		source: sdk2024 + "kubelet-device-plugins/src/lib.rs L8; nvidia: " + sdk + "25e4241f " +
			"bottlerocket-settings-models/modeled-types/src/kubernetes.rs NvidiaDevicePluginSettings, and the key list " +
			"the settings API printed in bottlerocket-os/bottlerocket-core-kit#914 (mps, 2026-04), which added enabled"},
	"image-verifier-plugins": {model: "ImageVerifierPluginsSettingsV1", node: since("1.51.0", openRec("enabled", val(), "notation", openRec("trustpolicy", val()))),
		settled: true, source: "bottlerocket-project-website@6102096 data/settings/1.51.x/image-verifier-plugins.toml " +
			"(documented from 1.51; the extension's keys changed between versions, so they are not settled)"},
	"kubelet-dra-drivers": {model: "KubeletDraDriversV1", node: openRec("nvidia", openRec("enabled", val()), "net", openRec("enabled", val(),
		"bind-address", val(), "device-filter", val())),
		source: sdk + "09fb002e bottlerocket-settings-models/settings-models/src/lib.rs (exported; no published " +
			"aws-k8s plugin is known to include it)"},
	"measurement": {model: "MeasurementSettingsV1", node: openRec(), source: sdk + "09fb002e bottlerocket-settings-models/settings-models/src/lib.rs " +
		"(exported; no published aws-k8s plugin is known to include it)"},
}

// kubernetes is settings.kubernetes: KubernetesSettingsV1, a strict
// struct, as of bottlerocket-settings-sdk@c135bcbc (with fail-cgroupv1 as
// an alias of fail-cgroup-v1) and @5ba2c487, plus kubelet-extra-config and
// topology-manager-policy-options (ytsssun/bottlerocket-settings-sdk@03ea23dd).
var kubernetes = rec(
	"cluster-name", val(), "cluster-certificate", val(), "api-server", val(),
	"node-labels", mapOfVal(), "node-taints", mapOfVal(),
	"static-pods", idMap(rec("enabled", val(), "manifest", val())),
	"authentication-mode", val(), "bootstrap-token", val(), "standalone-mode", val(),
	"eviction-hard", mapOfVal(), "eviction-soft", mapOfVal(), "eviction-soft-grace-period", mapOfVal(),
	"eviction-max-pod-grace-period", val(), "kube-reserved", mapOfVal(), "system-reserved", mapOfVal(),
	"allowed-unsafe-sysctls", val(), "server-tls-bootstrap", val(), "cloud-provider", val(),
	"registry-qps", val(), "registry-burst", val(), "event-qps", val(), "event-burst", val(),
	"kube-api-qps", val(), "kube-api-burst", val(),
	"container-log-max-size", val(), "container-log-max-files", val(),
	"container-log-max-workers", valSince("1.39.0"), "container-log-monitor-interval", valSince("1.39.0"),
	"cpu-cfs-quota-enforced", val(), "cpu-manager-policy", val(), "cpu-manager-reconcile-period", val(),
	"cpu-manager-policy-options", val(), "topology-manager-scope", val(), "topology-manager-policy", val(),
	"topology-manager-policy-options", openRec("prefer-closest-numa-nodes", val(), "max-allowable-numa-nodes", val()),
	"pod-pids-limit", val(), "image-gc-high-threshold-percent", val(), "image-gc-low-threshold-percent", val(),
	"image-minimum-gc-age", valSince("1.51.0"), "image-maximum-gc-age", valSince("1.51.0"),
	"provider-id", val(), "log-level", val(),
	// CredentialProvider has no deny_unknown_fields
	// (bottlerocket-settings-sdk@5ba2c487 modeled-types/src/kubernetes.rs L1321-L1330).
	"credential-providers", idMap(laxRec("enabled", val(), "image-patterns", val(), "cache-duration", val(), "environment", mapOfVal())),
	"server-certificate", val(), "server-key", val(),
	"shutdown-grace-period", val(), "shutdown-grace-period-for-critical-pods", val(),
	// KubernetesMemoryReservation flattens a map beside enabled (L1396-L1402).
	"memory-manager-reserved-memory", idMap(laxRec("enabled", val())), "memory-manager-policy", val(),
	"reserved-cpus", val(), "memory-swap-behavior", valSince("1.42.0"), "hostname-override-source", val(),
	"seccomp-default", val(), "device-ownership-from-security-context", val(),
	"single-process-oom-kill", valSince("1.39.0"), "static-pods-enabled", valSince("1.46.0"),
	"max-pods", val(), "cluster-dns-ip", val(), "cluster-domain", val(), "node-ip", val(),
	"pod-infra-container-image", val(), "hostname-override", val(),
	"ids-per-pod", valSince("1.51.0"), "max-parallel-image-pulls", valSince("1.51.0"),
	"fail-cgroup-v1", val(), "fail-cgroupv1", val(),
	"kubelet-extra-config", val(),
)

// registryCredentials is container-registry.credentials, a list of
// RegistryCredentialV1.
var registryCredentials = listOfRec(rec("registry", val(), "username", val(), "password", val(), "auth", val(), "identitytoken", val()))

// nvidiaDevicePlugin is kubelet-device-plugins.nvidia,
// NvidiaDevicePluginSettings, a strict struct.
var nvidiaDevicePlugin = rec(
	"pass-device-specs", val(), "device-id-strategy", val(), "device-list-strategy", val(),
	"device-sharing-strategy", val(),
	"time-slicing", rec("replicas", val(), "rename-by-default", val(), "fail-requests-greater-than-one", val()),
	"device-partitioning-strategy", valSince("1.34.0"),
	"mig", since("1.34.0", rec("profile", mapOfVal())),
	"mps", since("1.54.0", openRec("replicas", val(), "rename-by-default", val())),
	"enabled", val(),
)
