package weighting_test

import (
	"errors"
	"fmt"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/offerings"
	"github.com/ec2select/ec2select/weighting"
	"sigs.k8s.io/yaml"
)

// catalog is a few instance types as compat.InstanceTypeFromEC2 would
// describe them (only the facts this example needs).
func catalog() []compat.InstanceType {
	var types []compat.InstanceType
	for _, name := range []string{"c7i-flex.large", "c7i-flex.xlarge", "m7i-flex.large", "c7i.large", "m7i.large", "c6g.large"} {
		n, _ := compat.ParseInstanceTypeName(name)
		types = append(types, compat.InstanceType{Name: name, Family: n.Family, Size: n.Size, Arch: compat.ArchAMD64})
	}
	return types
}

// Flex first, anything else when flex has no capacity: two NodePools,
// disjoint, with the family lists written from the catalog.
func Example() {
	policy := weighting.Policy{Tiers: []weighting.Tier{
		{Name: "flex", Weight: 100, Families: []string{"c7i-flex", "m7i-flex"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}},
	}}
	pools, err := policy.NodePools(catalog(), weighting.NodePool{
		Name:         "default",
		NodeClassRef: weighting.NodeClassRef{Name: "default"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, np := range pools {
		y, err := np.EncodeYAML()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("---\n%s", y)
	}
	// Output:
	// ---
	// apiVersion: karpenter.sh/v1
	// kind: NodePool
	// metadata:
	//   name: default-flex
	// spec:
	//   template:
	//     spec:
	//       nodeClassRef:
	//         group: karpenter.k8s.aws
	//         kind: EC2NodeClass
	//         name: default
	//       requirements:
	//       - key: karpenter.k8s.aws/instance-family
	//         operator: In
	//         values:
	//         - c7i-flex
	//         - m7i-flex
	//   weight: 100
	// ---
	// apiVersion: karpenter.sh/v1
	// kind: NodePool
	// metadata:
	//   name: default-rest
	// spec:
	//   template:
	//     spec:
	//       nodeClassRef:
	//         group: karpenter.k8s.aws
	//         kind: EC2NodeClass
	//         name: default
	//       requirements:
	//       - key: karpenter.k8s.aws/instance-family
	//         operator: NotIn
	//         values:
	//         - c7i-flex
	//         - m7i-flex
	//   weight: 1
}

func ExamplePolicy_Rank() {
	policy := weighting.Policy{Tiers: []weighting.Tier{
		{Name: "flex", Weight: 100, Families: []string{"c*-flex", "m*-flex"}},
		{Name: "rest", Weight: 1, Families: []string{"*"}},
	}}
	prices := map[string]float64{"c7i-flex.large": 0.08479, "m7i-flex.large": 0.09576, "c7i.large": 0.08925, "m7i.large": 0.1008}
	ranking, err := policy.Rank(catalog(), weighting.RankOptions{
		Price: func(name string) (float64, bool) { p, ok := prices[name]; return p, ok },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rt := range ranking.Tiers {
		fmt.Printf("%s (weight %d):", rt.Tier.Name, rt.Tier.Weight)
		for _, it := range rt.InstanceTypes {
			fmt.Printf(" %s", it.Name)
		}
		fmt.Println()
	}
	fmt.Println(ranking.Explain("c7i.large"))

	// When no flex type has capacity, the provisioner falls back to the
	// rest, cheapest first.
	next, _ := weighting.Fallback(ranking, func(name string) bool {
		return name != "c7i-flex.large" && name != "c7i-flex.xlarge" && name != "m7i-flex.large"
	})
	fmt.Println("fallback:", next.Tier.Name, next.InstanceTypes[0].Name)
	// Output:
	// flex (weight 100): c7i-flex.large m7i-flex.large c7i-flex.xlarge
	// rest (weight 1): c7i.large m7i.large c6g.large
	// c7i.large: tier rest (weight 1), 1 of 3, via pattern "*"; not in tier flex (weight 100): family c7i matches none of [c*-flex m*-flex]
	// fallback: rest c7i.large
}

func ExampleOrder() {
	pools := weighting.Order([]weighting.NodePool{
		{Name: "spot", Weight: 10},
		{Name: "default"},
		{Name: "flex", Weight: 100},
		{Name: "on-demand", Weight: 10},
	})
	for _, np := range pools {
		fmt.Println(np.Weight, np.Name)
	}
	// Output:
	// 100 flex
	// 10 spot
	// 10 on-demand
	// 0 default
}

func ExampleDecodeNodePool() {
	_, err := weighting.DecodeNodePool([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: flex
spec:
  weight: 100
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - key: karpenter.k8s.aws/instance-family
        operator: In
        values: ["c7i-flex", "*"]
`))
	fmt.Println(err)
	// Output:
	// weighting: NodePool flex: spec.template.spec.requirements[0]: karpenter.k8s.aws/instance-family In [c7i-flex *]: value "*" is not a valid label value, and Karpenter has no wildcards; list the values, or write the preference as a Policy tier and let Policy.NodePools list them
}

// A base NodePool read from a cluster keeps everything it had: the tiers'
// NodePools carry its limits, disruption and annotations, and fields
// NodePool does not interpret; status and what the API server wrote about
// the base itself are left behind.
func ExampleNodePool_embedded() {
	base, err := weighting.DecodeNodePool([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
  uid: 0b2f1c8e-6a51-4f0e-9d43-2a5d8c1e7f90
  annotations: {example.com/owner: web-team}
spec:
  limits: {cpu: 1000}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 5m}
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
      expireAfter: Never
status: {nodes: 4}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(base.Unknown)
	policy := weighting.Policy{Tiers: []weighting.Tier{{Name: "flex", Weight: 100, Families: []string{"c7i-flex"}}}}
	pools, err := policy.NodePools(catalog(), base)
	if err != nil {
		fmt.Println(err)
		return
	}
	// NodePool implements json.Marshaler, so inside another value it is
	// still a whole, validated karpenter.sh/v1 resource.
	out, err := yaml.Marshal(struct {
		Pools []weighting.NodePool `json:"pools"`
	}{pools})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// map[/metadata/uid:0b2f1c8e-6a51-4f0e-9d43-2a5d8c1e7f90]
	// pools:
	// - apiVersion: karpenter.sh/v1
	//   kind: NodePool
	//   metadata:
	//     annotations:
	//       example.com/owner: web-team
	//     name: default-flex
	//   spec:
	//     disruption:
	//       consolidateAfter: 5m
	//       consolidationPolicy: WhenEmpty
	//     limits:
	//       cpu: "1000"
	//     template:
	//       spec:
	//         expireAfter: Never
	//         nodeClassRef:
	//           group: karpenter.k8s.aws
	//           kind: EC2NodeClass
	//           name: default
	//         requirements:
	//         - key: karpenter.k8s.aws/instance-family
	//           operator: In
	//           values:
	//           - c7i-flex
	//     weight: 100
}

// A refused NodePool's error lists every problem, each with its field, as
// kubectl apply would be refused or Karpenter would mark the NodePool not
// ready.
func ExampleValidationError() {
	_, err := weighting.DecodeNodePool([]byte(`
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  weight: 0
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements: []
      kubelet: {maxPods: 110}
      taints: [{key: nvidia.com/gpu, value: yes, effect: NoSchedule}]
`))
	var ve *weighting.ValidationError
	if errors.As(err, &ve) {
		for _, p := range ve.Problems {
			fmt.Println(p.Path)
		}
	}
	// Output:
	// spec.template.spec.kubelet
	// spec.template.spec.taints[0].value
	// spec.weight
}

// Effective prices as NodeOverlays: one overlay per capacity type and
// price, selecting exactly the offerings priced at it.
func ExampleNodeOverlays() {
	book := offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot())
	var os []offerings.Offering
	for _, t := range []string{"m5.large", "m5.xlarge"} {
		for _, z := range []string{"us-east-1a", "us-east-1b"} {
			os = append(os, offerings.Offering{InstanceType: t, Zone: z, CapacityType: offerings.OnDemand})
		}
	}
	prices, _ := book.PriceAll(os, offerings.PriceOptions{Discounts: offerings.Discounts{EnterprisePercent: 10}})
	plan, _ := weighting.NodeOverlays(prices, weighting.OverlayOptions{NodePools: []string{"general"}})
	for _, o := range plan.Overlays {
		y, _ := o.EncodeYAML()
		fmt.Printf("---\n%s", y)
	}
	// Output:
	// ---
	// apiVersion: karpenter.sh/v1alpha1
	// kind: NodeOverlay
	// metadata:
	//   name: ec2select-price-1
	// spec:
	//   price: "0.0864"
	//   requirements:
	//   - key: node.kubernetes.io/instance-type
	//     operator: In
	//     values:
	//     - m5.large
	//   - key: karpenter.sh/capacity-type
	//     operator: In
	//     values:
	//     - on-demand
	//   - key: karpenter.sh/nodepool
	//     operator: In
	//     values:
	//     - general
	//   weight: 1
	// ---
	// apiVersion: karpenter.sh/v1alpha1
	// kind: NodeOverlay
	// metadata:
	//   name: ec2select-price-2
	// spec:
	//   price: "0.1728"
	//   requirements:
	//   - key: node.kubernetes.io/instance-type
	//     operator: In
	//     values:
	//     - m5.xlarge
	//   - key: karpenter.sh/capacity-type
	//     operator: In
	//     values:
	//     - on-demand
	//   - key: karpenter.sh/nodepool
	//     operator: In
	//     values:
	//     - general
	//   weight: 1
}
