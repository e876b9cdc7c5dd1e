package main

import (
	"regexp"
	"strings"
)

// preflight renders each EC2NodeClass's userData with userdata.Render,
// which models what Karpenter writes; Render's errors speak of its own
// inputs (Config.CustomUserData, Config.Kubelet...) and of itself. Said to
// the person who wrote the manifests, each is the field it came from, and
// what Render does is what Karpenter does.

// karpenterTerms are Render's words and the manifest's, longest first.
var karpenterTerms = strings.NewReplacer(
	"Config.CustomUserData", "spec.userData",
	"Config.Kubelet.ClusterDNS", "spec.kubelet.clusterDNS",
	"Config.Kubelet.PodsPerCore", "spec.kubelet.podsPerCore",
	"Config.Kubelet", "spec.kubelet",
	"Config.InstanceStorePolicy", "spec.instanceStorePolicy",
	"Config.StartupTaints", "the NodePool's spec.template.spec.startupTaints",
	"Config.Taints", "the NodePool's spec.template.spec.taints",
	"Config.Labels", "the NodePool's labels",
	"kubelet settings in Config", "kubelet settings in spec.kubelet",
	"Render cannot tell", "preflight cannot tell",
	"Render's", "Karpenter's",
	"Render ", "Karpenter ",
)

// allowUnresolved is Render's advice to accept userData it cannot follow,
// an option of the library that Karpenter does not have.
var allowUnresolved = regexp.MustCompile(`(,? or|;) set Config\.AllowUnresolved[^;)]*`)

// inManifestTerms is a userdata error in the manifest's words, without
// the package prefix.
func inManifestTerms(err error) string {
	s := strings.TrimPrefix(err.Error(), "userdata: ")
	s = allowUnresolved.ReplaceAllString(s, "")
	return karpenterTerms.Replace(s)
}
