package capacity_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// fixture is the #7925 setup: a Bottlerocket alias resolved through a real
// *ec2.Client against ec2fake's catalog, and the catalog's instance types.
type fixture struct {
	amis    []amiselect.AMI
	mapping amiselect.Mapping
	types   map[string]compat.InstanceType
	backend *ec2fake.Backend
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	backend := ec2fake.NewWithCatalog(ec2fake.Options{})
	srv := ec2fake.NewServer(backend)
	t.Cleanup(srv.Close)
	sel, err := amiselect.Resolve(context.Background(), ec2fake.NewClient(srv.URL),
		[]amiselect.Term{{Alias: "bottlerocket@latest"}},
		amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: "1.32"}})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	_, infos := ec2fake.DefaultCatalog()
	types := map[string]compat.InstanceType{}
	var list []compat.InstanceType
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			continue // mac and i386-only types cannot run EKS nodes
		}
		types[it.Name] = it
		list = append(list, it)
	}
	return fixture{amis: sel.AMIs, mapping: amiselect.Map(list, sel.AMIs), types: types, backend: backend}
}

// nodeLabels are the labels Karpenter and the kubelet put on a node of it:
// its single-valued instance labels and the node's own, and no GPU labels
// on a type without a GPU.
func nodeLabels(it compat.InstanceType, hostname string) map[string]string {
	labels := it.Labels()
	labels[compat.LabelOS] = compat.OSLinux
	labels[compat.LabelZone] = "us-east-1a"
	labels[compat.LabelRegion] = "us-east-1"
	labels[compat.LabelCapacityType] = "on-demand"
	labels[compat.LabelNodePool] = "default"
	labels[compat.LabelHostname] = hostname
	labels["karpenter.sh/registered"] = "true"
	labels["karpenter.k8s.aws/ec2nodeclass"] = "default"
	return labels
}

// TestIssue7925 walks the report: the NVIDIA AMIs are the newest, a plain
// m5.large node runs the standard x86_64 AMI, and its real memory must be
// learned under that AMI and used for the next launch.
func TestIssue7925(t *testing.T) {
	f := newFixture(t)
	if len(f.amis) < 4 || f.amis[0].Variant != amiselect.NVIDIA {
		t.Fatalf("the scenario needs the NVIDIA AMIs first; selection is %v", f.amis)
	}
	standard, ok := f.mapping.AMIFor("m5.large")
	if !ok || standard.Variant != amiselect.Standard || standard.Arch != compat.ArchAMD64 {
		t.Fatalf("m5.large maps to %v, %v; want the standard amd64 AMI", standard, ok)
	}
	nvidia, ok := f.mapping.AMIFor("g4dn.xlarge")
	if !ok || nvidia.Variant != amiselect.NVIDIA || nvidia.Arch != compat.ArchAMD64 {
		t.Fatalf("g4dn.xlarge maps to %v, %v; want the NVIDIA amd64 AMI", nvidia, ok)
	}

	// Karpenter before #7923: NodeClaim requirements (no GPU keys) compared
	// leniently against the AMIs in order pick the NVIDIA AMI for m5.large,
	// which the node does not run, so nothing was ever recorded.
	nodeClaim := compat.MustRequirements(
		compat.Requirement{Key: compat.LabelInstanceType, Operator: compat.In, Values: []string{"m5.large"}},
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchAMD64}},
	)
	for _, ami := range f.amis {
		if nodeClaim.Compatible(ami.Requirements, compat.AllowUndefinedWellKnown()) == nil {
			if ami.ID == standard.ID {
				t.Fatalf("expected the lenient comparison to pick an NVIDIA AMI first, as Karpenter did; it picked %v", ami)
			}
			break
		}
	}

	cache, err := capacity.New(capacity.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const m5Memory = 7_926_000_000 // what the kubelet reports, below 8 GiB
	recorded, err := cache.Observe(capacity.Observation{
		NodeLabels: nodeLabels(f.types["m5.large"], "ip-10-0-1-1"), ImageID: standard.ID, MemoryBytes: m5Memory,
	}, f.amis)
	if !recorded || err != nil {
		t.Fatalf("m5.large on the standard AMI: Observe = %v, %v; want recorded", recorded, err)
	}
	if got, ok := cache.Memory("m5.large", standard.ID); !ok || got != m5Memory {
		t.Errorf("Memory(m5.large, standard) = %d, %v; want %d", got, ok, m5Memory)
	}
	if _, ok := cache.Memory("m5.large", nvidia.ID); ok {
		t.Error("m5.large must not be filed under the NVIDIA AMI")
	}

	const g4dnMemory = 15_900_000_000
	if recorded, err := cache.Observe(capacity.Observation{
		NodeLabels: nodeLabels(f.types["g4dn.xlarge"], "ip-10-0-1-2"), ImageID: nvidia.ID, MemoryBytes: g4dnMemory,
	}, f.amis); !recorded || err != nil {
		t.Fatalf("g4dn.xlarge on the NVIDIA AMI: Observe = %v, %v; want recorded", recorded, err)
	}
	if got, ok := cache.Memory("g4dn.xlarge", nvidia.ID); !ok || got != g4dnMemory {
		t.Errorf("Memory(g4dn.xlarge, nvidia) = %d, %v; want %d", got, ok, g4dnMemory)
	}

	// A node still running last release's image is refused, with a reason.
	images, _ := ec2fake.DefaultCatalog()
	stale := ""
	for _, img := range images {
		name := *img.Name
		if strings.HasPrefix(name, "bottlerocket-aws-k8s-1.32-x86_64-") && *img.ImageId != standard.ID {
			stale = *img.ImageId
		}
	}
	if stale == "" {
		t.Fatal("the catalog needs an older Bottlerocket 1.32 x86_64 release")
	}
	_, err = cache.Observe(capacity.Observation{
		NodeLabels: nodeLabels(f.types["m5.large"], "ip-10-0-1-3"), ImageID: stale, MemoryBytes: 1,
	}, f.amis)
	if !errors.Is(err, capacity.ErrUnknownImage) || !strings.Contains(err.Error(), stale) || !strings.Contains(err.Error(), "ip-10-0-1-3") {
		t.Errorf("stale AMI: Observe error = %v; want ErrUnknownImage naming the node and image", err)
	}
	// A plain node claiming the NVIDIA AMI is refused: it is not the mapping.
	_, err = cache.Observe(capacity.Observation{
		NodeLabels: nodeLabels(f.types["m5.large"], "ip-10-0-1-4"), ImageID: nvidia.ID, MemoryBytes: 1,
	}, f.amis)
	if !errors.Is(err, capacity.ErrNotMapped) || !strings.Contains(err.Error(), standard.ID) {
		t.Errorf("m5.large on the NVIDIA AMI: Observe error = %v; want ErrNotMapped naming %s", err, standard.ID)
	}
	if got, _ := cache.Memory("m5.large", standard.ID); got != m5Memory {
		t.Errorf("refused observations changed the record to %d", got)
	}

	// The second launch sees the learned figure, beside the catalog's.
	var m5 capacity.Capacity
	for _, c := range cache.Apply(f.mapping) {
		if c.InstanceType.Name == "m5.large" {
			m5 = c
		}
	}
	if !m5.Learned || m5.MemoryBytes != m5Memory || m5.AMI.ID != standard.ID {
		t.Errorf("after Apply, m5.large has %d bytes (learned %v) under %s; want the learned %d under %s", m5.MemoryBytes, m5.Learned, m5.AMI.ID, m5Memory, standard.ID)
	}

	// A new, unrelated AMI in the list does not forget what was learned.
	custom := amiselect.AMI{ID: "ami-0123456789abcdef0", Name: "team-custom", Arch: compat.ArchARM64,
		Requirements: compat.MustRequirements(compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{compat.ArchARM64}})}
	amis := append([]amiselect.AMI{custom}, f.amis...)
	var list []compat.InstanceType
	for _, g := range f.mapping.Groups {
		list = append(list, g.InstanceTypes...)
	}
	for _, c := range cache.Apply(amiselect.Map(list, amis)) {
		if c.InstanceType.Name == "m5.large" && c.MemoryBytes != m5Memory {
			t.Errorf("after a new AMI joined the list, m5.large has %d bytes; want the learned figure kept", c.MemoryBytes)
		}
	}
	if st := cache.Stats(); st.Recorded != 2 || st.Refused != 2 {
		t.Errorf("Stats = %+v; want 2 recorded, 2 refused", st)
	}
}
