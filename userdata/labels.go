package userdata

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/internal/validation"
)

// ValidateLabels checks node labels the way the kubelet checks
// --node-labels before it starts: every key is a qualified name, every
// value a label value, and no key is in the kubernetes.io or k8s.io
// namespaces (or their subdomains) unless the kubelet owns it. The kubelet
// owns the node.kubernetes.io and kubelet.kubernetes.io namespaces and the
// labels kubernetes.io/hostname, kubernetes.io/arch, kubernetes.io/os,
// beta.kubernetes.io/arch, beta.kubernetes.io/os,
// beta.kubernetes.io/instance-type, node.kubernetes.io/instance-type,
// topology.kubernetes.io/region, topology.kubernetes.io/zone,
// failure-domain.beta.kubernetes.io/region and
// failure-domain.beta.kubernetes.io/zone. In particular
// node-restriction.kubernetes.io/* is refused: that prefix exists so that
// only administrators can set it.
//
// Every bad label is reported, in key order, joined with [errors.Join].
func ValidateLabels(labels map[string]string) error {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if err := checkLabel(k, labels[k]); err != nil {
			errs = append(errs, fmt.Errorf("userdata: %v", err))
		}
	}
	return errors.Join(errs...)
}

// checkLabel validates one label without the package prefix.
func checkLabel(key, value string) error {
	if err := validation.QualifiedName(key); err != nil {
		return fmt.Errorf("label %q: key: %v", key, err)
	}
	if err := validation.LabelValue(value); err != nil {
		return fmt.Errorf("label %q: value %q: %v", key, value, err)
	}
	if forbiddenLabel(key) {
		return fmt.Errorf("label %q: %s", key, forbiddenLabelAdvice(key))
	}
	return nil
}

func forbiddenLabelAdvice(key string) string {
	if ns := labelNamespace(key); ns == "node-restriction.kubernetes.io" || strings.HasSuffix(ns, ".node-restriction.kubernetes.io") {
		return "node-restriction.kubernetes.io is reserved for administrators: the kubelet refuses to start with it and the NodeRestriction admission plugin forbids kubelets to set it; set it on the Node through the API, or use your own prefix"
	}
	return "the kubelet refuses to start with labels in the kubernetes.io and k8s.io namespaces except its own (node.kubernetes.io/*, kubelet.kubernetes.io/*, kubernetes.io/arch, kubernetes.io/os, kubernetes.io/hostname, topology.kubernetes.io/region and zone, ...); use your own prefix, e.g. example.com/name"
}

// kubeletLabels are the kubernetes.io labels the kubelet may set itself
// (k8s.io/kubelet IsKubeletLabel).
var kubeletLabels = []string{
	"beta.kubernetes.io/arch",
	"beta.kubernetes.io/instance-type",
	"beta.kubernetes.io/os",
	"failure-domain.beta.kubernetes.io/region",
	"failure-domain.beta.kubernetes.io/zone",
	"kubernetes.io/arch",
	"kubernetes.io/hostname",
	"kubernetes.io/os",
	"node.kubernetes.io/instance-type",
	"topology.kubernetes.io/region",
	"topology.kubernetes.io/zone",
}

// forbiddenLabel reports whether the kubelet exits when key is passed in
// --node-labels: the key is in a kubernetes.io or k8s.io namespace and is
// not one of the kubelet's own labels or namespaces.
func forbiddenLabel(key string) bool {
	ns := labelNamespace(key)
	kube := ns == "kubernetes.io" || strings.HasSuffix(ns, ".kubernetes.io") ||
		ns == "k8s.io" || strings.HasSuffix(ns, ".k8s.io")
	if !kube {
		return false
	}
	if _, found := slices.BinarySearch(kubeletLabels, key); found {
		return false
	}
	for _, own := range []string{"kubelet.kubernetes.io", "node.kubernetes.io"} {
		if ns == own || strings.HasSuffix(ns, "."+own) {
			return false
		}
	}
	return true
}

func labelNamespace(key string) string {
	ns, _, found := strings.Cut(key, "/")
	if !found {
		return ""
	}
	return ns
}

// formatLabels writes labels as a --node-labels value: k=v pairs sorted by
// key, separated by commas.
func formatLabels(labels map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(labels)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(labels[k])
	}
	return b.String()
}
