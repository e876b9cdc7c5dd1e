package nodeadm

import "sigs.k8s.io/yaml"

// NodeConfig is the node.eks.aws/v1alpha1 NodeConfig userdata's Render
// writes: the fields it sets, with nodeadm's JSON names.
type NodeConfig struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       Spec   `json:"spec"`
}

// Spec is NodeConfig.spec.
type Spec struct {
	Cluster  Cluster   `json:"cluster"`
	Instance *Instance `json:"instance,omitempty"`
	Kubelet  Kubelet   `json:"kubelet"`
}

// Cluster is spec.cluster, every field of which nodeadm requires.
type Cluster struct {
	Name                 string `json:"name"`
	APIServerEndpoint    string `json:"apiServerEndpoint"`
	CertificateAuthority string `json:"certificateAuthority"`
	CIDR                 string `json:"cidr"`
}

// Instance is spec.instance; Render sets only localStorage.strategy
// (nodeadm api/v1alpha1 LocalStorageOptions, which Karpenter's nodeadm
// bootstrap sets to RAID0 for instanceStorePolicy RAID0).
type Instance struct {
	LocalStorage struct {
		Strategy string `json:"strategy"`
	} `json:"localStorage"`
}

// Kubelet is spec.kubelet: a KubeletConfiguration fragment nodeadm merges
// into the kubelet's config file, and flags it appends to the command
// line.
type Kubelet struct {
	Config map[string]any `json:"config,omitempty"`
	Flags  []string       `json:"flags,omitempty"`
}

// Taint is an entry of spec.kubelet.config.registerWithTaints.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// New returns a NodeConfig for the cluster.
func New(c Cluster) NodeConfig {
	return NodeConfig{APIVersion: APIVersion, Kind: "NodeConfig", Spec: Spec{Cluster: c}}
}

// Encode writes n as YAML (sigs.k8s.io/yaml: through JSON, keys sorted).
func (n NodeConfig) Encode() ([]byte, error) {
	return yaml.Marshal(n)
}
