package weighting

import (
	"github.com/ec2select/ec2select/compat"
	"sigs.k8s.io/yaml"
)

// fataler is what the helpers need of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// mkType builds an instance type from its name, as a catalog would: amd64
// unless the family is a Graviton one, with a vCPU count from the size.
func mkType(t fataler, name string) compat.InstanceType {
	t.Helper()
	n, err := compat.ParseInstanceTypeName(name)
	if err != nil {
		t.Fatalf("mkType(%q): %v", name, err)
	}
	arch := compat.ArchAMD64
	if len(n.Family) > 2 && n.Family[2] == 'g' {
		arch = compat.ArchARM64
	}
	vcpu := map[string]int{"medium": 1, "large": 2, "xlarge": 4, "2xlarge": 8, "4xlarge": 16, "8xlarge": 32, "metal": 96}[n.Size]
	if vcpu == 0 {
		vcpu = 2
	}
	return compat.InstanceType{
		Name: name, Family: n.Family, Category: n.Category, Generation: n.Generation, Size: n.Size,
		Arch: arch, VCPU: vcpu, MemoryMiB: int64(vcpu) * 4096, Flex: len(n.Family) > 5 && n.Family[len(n.Family)-5:] == "-flex",
		Hypervisor: "nitro", OS: []string{compat.OSLinux},
	}
}

func mkTypes(t fataler, names ...string) []compat.InstanceType {
	t.Helper()
	out := make([]compat.InstanceType, len(names))
	for i, n := range names {
		out[i] = mkType(t, n)
	}
	return out
}

func names(types []compat.InstanceType) []string {
	out := make([]string, len(types))
	for i := range types {
		out[i] = types[i].Name
	}
	return out
}

// flexPolicy is the policy of the issue: flex first, anything else after.
func flexPolicy() Policy {
	return Policy{Tiers: []Tier{
		{Name: "flex", Weight: 100, Families: []string{"c7i-flex", "m7i-flex"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}},
	}}
}

// decodeStored reads a NodePool as the API server holds it, YAML as
// kubectl get -o yaml prints it, through UnmarshalJSON.
func decodeStored(data []byte) (NodePool, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return NodePool{}, err
	}
	var np NodePool
	err = np.UnmarshalJSON(j)
	return np, err
}
