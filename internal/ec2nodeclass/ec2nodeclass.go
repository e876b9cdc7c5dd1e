package ec2nodeclass

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/manifest"
	"github.com/ec2select/ec2select/internal/schema"
	"github.com/ec2select/ec2select/userdata"
)

// The resource this package reads.
const (
	APIVersion = "karpenter.k8s.aws/v1"
	Kind       = "EC2NodeClass"
)

// EC2NodeClass is what ec2select reads of an EC2NodeClass.
type EC2NodeClass struct {
	Name string
	// AMIFamily is spec.amiFamily as written, "" when it is not.
	AMIFamily        string
	AMISelectorTerms []amiselect.Term
	// UserData is spec.userData; HasUserData says whether it is written
	// (an empty userData is written).
	UserData    string
	HasUserData bool
	// Kubelet is spec.kubelet; HasKubelet says whether it is written.
	Kubelet             userdata.KubeletConfig
	HasKubelet          bool
	InstanceStorePolicy userdata.InstanceStorePolicy
	Role                string
	InstanceProfile     string
	// Spec is the whole spec as written (nulls removed), for the fields
	// the type does not map.
	Spec map[string]any
}

// Family is the family that writes the node's userData, as Karpenter's
// EC2NodeClass.AMIFamily decides it (karpenter-provider-aws v1.14.1,
// pkg/apis/v1/ec2nodeclass.go L666-675): spec.amiFamily when written (so
// Custom with an alias passes spec.userData through unchanged), else the
// alias's family.
func (c EC2NodeClass) Family() compat.AMIFamily {
	if c.AMIFamily != "" {
		f, _ := compat.ParseAMIFamily(c.AMIFamily) // the CRD's enum has checked it
		return f
	}
	if a := c.Alias(); a != "" {
		family, _, _ := strings.Cut(a, "@")
		f, _ := compat.ParseAMIFamily(family)
		return f
	}
	return compat.Custom
}

// Alias is the alias term's alias, or "".
func (c EC2NodeClass) Alias() string {
	for _, t := range c.AMISelectorTerms {
		if t.Alias != "" {
			return t.Alias
		}
	}
	return ""
}

// Error is a decoding error: the problems found, each with its field.
type Error struct {
	Name     string
	Problems []schema.Error
}

func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	name := e.Name
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("ec2nodeclass: EC2NodeClass %s: %s", name, strings.Join(msgs, "; "))
}

// Decode reads one EC2NodeClass document, YAML or JSON, as `kubectl apply`
// sends it and the API server creates it (see internal/manifest: YAML 1.1
// scalars, the last of duplicate keys, strict field validation), checks it
// against the CRD of karpenter-provider-aws v1.14.1 (schema, defaults and
// x-kubernetes-validations rules), and then refuses what the API server
// takes but Karpenter v1.14.1 cannot use:
//   - an alias with more than one '@' (al2023@v1@x): the CRD's pattern
//     takes it, and Karpenter's amiFamilyFromAlias calls log.Fatalf on it
//     (pkg/apis/v1/ec2nodeclass.go L703-707), stopping the controller;
//   - a kubelet evictionSoftGracePeriod that is not a Go duration: the CRD
//     takes any string, and Karpenter's Go type (metav1.Duration) cannot
//     decode it, so its controllers cannot read the EC2NodeClass;
//   - an integer that does not fit the int32 Karpenter's Go type holds it
//     in (kubelet maxPods, ipPrefixCount...): the CRD's int32 format does
//     not bound it, and Karpenter could not decode the EC2NodeClass;
//   - metadata only the API server writes (resourceVersion, managedFields,
//     deletionTimestamp), as for any manifest to apply.
//
// Errors are an *[Error] naming every problem, prefixed "ec2nodeclass: ".
func Decode(data []byte) (EC2NodeClass, error) {
	j, err := manifest.ToJSON(data)
	if err != nil {
		return EC2NodeClass{}, fmt.Errorf("ec2nodeclass: reading an EC2NodeClass: %v", err)
	}
	v, err := manifest.Decode(j)
	if err != nil {
		return EC2NodeClass{}, fmt.Errorf("ec2nodeclass: reading an EC2NodeClass: %v", err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return EC2NodeClass{}, errors.New("ec2nodeclass: reading an EC2NodeClass: the document is not an object; write an EC2NodeClass resource")
	}
	apiVersion, _ := doc["apiVersion"].(string)
	kind, _ := doc["kind"].(string)
	if apiVersion != APIVersion || kind != Kind {
		return EC2NodeClass{}, fmt.Errorf("ec2nodeclass: reading an EC2NodeClass: apiVersion %q, kind %q; want apiVersion %s, kind %s", apiVersion, kind, APIVersion, Kind)
	}
	return fromDocument(doc)
}

func fromDocument(doc map[string]any) (EC2NodeClass, error) {
	meta, errs := manifest.Metadata(doc["metadata"], "metadata")
	errs = append(errs, meta.ValidateCreate("metadata")...)
	errs = append(errs, schema.Prune(doc, crd)...)
	schema.PruneNulls(doc, crd)
	delete(doc, "status") // the create path drops it
	defaulted := schema.Copy(doc)
	schema.Default(defaulted, crd)
	errs = append(errs, schema.Validate(defaulted, crd, "")...)
	if len(errs) > 0 {
		return EC2NodeClass{}, &Error{Name: meta.Name, Problems: errs}
	}
	c, errs := convert(meta.Name, doc["spec"].(map[string]any))
	if len(errs) > 0 {
		return EC2NodeClass{}, &Error{Name: meta.Name, Problems: errs}
	}
	return c, nil
}

// specJSON is the part of the spec the type maps; the schema has checked
// every type.
type specJSON struct {
	AMIFamily           string       `json:"amiFamily"`
	AMISelectorTerms    []termJSON   `json:"amiSelectorTerms"`
	UserData            *string      `json:"userData"`
	Kubelet             *kubeletJSON `json:"kubelet"`
	InstanceStorePolicy string       `json:"instanceStorePolicy"`
	Role                string       `json:"role"`
	InstanceProfile     string       `json:"instanceProfile"`
}

type termJSON struct {
	Alias        string            `json:"alias"`
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Owner        string            `json:"owner"`
	SSMParameter string            `json:"ssmParameter"`
	Tags         map[string]string `json:"tags"`
}

// kubeletJSON is spec.kubelet, every field of Karpenter v1.14.1's.
type kubeletJSON struct {
	ClusterDNS                  []string          `json:"clusterDNS"`
	MaxPods                     *int32            `json:"maxPods"`
	PodsPerCore                 *int32            `json:"podsPerCore"`
	SystemReserved              map[string]string `json:"systemReserved"`
	KubeReserved                map[string]string `json:"kubeReserved"`
	EvictionHard                map[string]string `json:"evictionHard"`
	EvictionSoft                map[string]string `json:"evictionSoft"`
	EvictionSoftGracePeriod     map[string]string `json:"evictionSoftGracePeriod"`
	EvictionMaxPodGracePeriod   *int32            `json:"evictionMaxPodGracePeriod"`
	ImageGCHighThresholdPercent *int32            `json:"imageGCHighThresholdPercent"`
	ImageGCLowThresholdPercent  *int32            `json:"imageGCLowThresholdPercent"`
	CPUCFSQuota                 *bool             `json:"cpuCFSQuota"`
}

func convert(name string, spec map[string]any) (EC2NodeClass, []schema.Error) {
	b, err := json.Marshal(spec)
	if err != nil {
		return EC2NodeClass{}, []schema.Error{{Path: "spec", Problem: err.Error()}}
	}
	var s specJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return EC2NodeClass{}, []schema.Error{{Path: "spec", Problem: err.Error()}}
	}
	c := EC2NodeClass{
		Name: name, AMIFamily: s.AMIFamily, Role: s.Role, InstanceProfile: s.InstanceProfile,
		InstanceStorePolicy: userdata.InstanceStorePolicy(s.InstanceStorePolicy), Spec: spec,
	}
	var errs []schema.Error
	for i, t := range s.AMISelectorTerms {
		if strings.Count(t.Alias, "@") > 1 {
			errs = append(errs, schema.Error{Path: fmt.Sprintf("spec.amiSelectorTerms[%d].alias", i),
				Problem: fmt.Sprintf("%q has more than one '@'; the CRD takes it, and Karpenter v1.14.1 stops with a fatal error when it splits the alias (pkg/apis/v1/ec2nodeclass.go L703-707); write family@version, such as al2023@latest", t.Alias)})
		}
		c.AMISelectorTerms = append(c.AMISelectorTerms, amiselect.Term{ID: t.ID, Name: t.Name, Owner: t.Owner, Alias: t.Alias, SSMParameter: t.SSMParameter, Tags: t.Tags})
	}
	if s.UserData != nil {
		c.UserData, c.HasUserData = *s.UserData, true
	}
	if s.Kubelet != nil {
		c.HasKubelet = true
		k, kerrs := kubelet(*s.Kubelet)
		c.Kubelet = k
		errs = append(errs, kerrs...)
	}
	return c, errs
}

func kubelet(k kubeletJSON) (userdata.KubeletConfig, []schema.Error) {
	var errs []schema.Error
	var grace map[string]time.Duration
	for _, signal := range slices.Sorted(maps.Keys(k.EvictionSoftGracePeriod)) {
		s := k.EvictionSoftGracePeriod[signal]
		d, err := time.ParseDuration(s)
		if err != nil {
			errs = append(errs, schema.Error{Path: schema.Key("spec.kubelet.evictionSoftGracePeriod", signal),
				Problem: fmt.Sprintf("%q is not a duration; the CRD takes any string, but Karpenter's Go type (metav1.Duration) cannot read it, so Karpenter could not read the EC2NodeClass; write, for example, 1m30s", s)})
			continue
		}
		if grace == nil {
			grace = map[string]time.Duration{}
		}
		grace[signal] = d
	}
	return userdata.KubeletConfig{
		ClusterDNS: k.ClusterDNS, MaxPods: k.MaxPods, PodsPerCore: k.PodsPerCore,
		SystemReserved: k.SystemReserved, KubeReserved: k.KubeReserved,
		EvictionHard: k.EvictionHard, EvictionSoft: k.EvictionSoft, EvictionSoftGracePeriod: grace,
		EvictionMaxPodGracePeriod:   k.EvictionMaxPodGracePeriod,
		ImageGCHighThresholdPercent: k.ImageGCHighThresholdPercent, ImageGCLowThresholdPercent: k.ImageGCLowThresholdPercent,
		CPUCFSQuota: k.CPUCFSQuota,
	}, errs
}
