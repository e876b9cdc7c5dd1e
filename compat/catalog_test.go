package compat_test

import (
	"slices"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// catalogTypes converts every instance type of ec2fake's catalog that runs
// an EKS node (the Mac types do not).
func catalogTypes(t testing.TB) []compat.InstanceType {
	t.Helper()
	_, infos := ec2fake.DefaultCatalog()
	var out []compat.InstanceType
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			if strings.HasPrefix(string(info.InstanceType), "mac") {
				continue
			}
			t.Fatalf("InstanceTypeFromEC2(%s): %v", info.InstanceType, err)
		}
		out = append(out, it)
	}
	if len(out) < 80 {
		t.Fatalf("the catalog converts to %d types; want at least 80", len(out))
	}
	return out
}

// TestInstanceTypeFromLabelsCatalog: every catalog type comes back from its
// labels, with nothing to note, and so do its labels.
func TestInstanceTypeFromLabelsCatalog(t *testing.T) {
	for _, it := range catalogTypes(t) {
		t.Run(it.Name, func(t *testing.T) {
			got, notes, err := compat.ReadInstanceTypeLabels(it.Labels())
			if err != nil || len(notes) > 0 {
				t.Fatalf("ReadInstanceTypeLabels(%v): %v, notes %v", it.Labels(), err, notes)
			}
			if diff := cmp.Diff(labelFacts(it), got); diff != "" {
				t.Errorf("InstanceTypeFromLabels(Labels()) mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(it.Labels(), got.Labels()); diff != "" {
				t.Errorf("labels do not round-trip (-want +got):\n%s", diff)
			}
		})
	}
}

// labelFacts is it with only the facts labels carry: its network limits
// and instance-store size are no label, so no label brings them back.
func labelFacts(it compat.InstanceType) compat.InstanceType {
	it.Network = compat.Network{}
	it.InstanceStoreGB = 0
	return it
}

// nodeLabels draws the labels of a node of type it as Karpenter and the
// kubelet write them: the type's labels, the node's OS (and Windows build),
// its instance's tenancy (karpenter-provider-aws 1d927085dd81,
// pkg/cloudprovider/cloudprovider.go:465 labels the instance's Placement
// tenancy), and labels that are no instance fact.
func nodeLabels(t *rapid.T, it compat.InstanceType) map[string]string {
	labels := it.Labels()
	os := compat.OSLinux
	if slices.Contains(it.OS, compat.OSWindows) && rapid.Bool().Draw(t, "windows") {
		os = compat.OSWindows
		labels[compat.LabelWindowsBuild] = rapid.SampledFrom([]string{compat.WindowsBuild2019, compat.WindowsBuild2022, compat.WindowsBuild2025}).Draw(t, "build")
	}
	labels[compat.LabelOS] = os
	if it.Tenancy == "" {
		labels[compat.LabelInstanceTenancy] = rapid.SampledFrom([]string{compat.TenancyDefault, compat.TenancyDedicated}).Draw(t, "tenancy")
	}
	labels[compat.LabelZone] = "us-east-1a"
	labels[compat.LabelCapacityType] = rapid.SampledFrom([]string{"spot", "on-demand"}).Draw(t, "capacityType")
	labels["example.com/team"] = "a"
	return labels
}

func TestPropertyInstanceTypeFromLabels(t *testing.T) {
	types := catalogTypes(t)
	rapid.Check(t, func(t *rapid.T) {
		it := rapid.SampledFrom(types).Draw(t, "type")
		it.Tenancy = rapid.SampledFrom([]string{"", compat.TenancyDefault, compat.TenancyDedicated}).Draw(t, "typeTenancy")
		got, notes, err := compat.ReadInstanceTypeLabels(it.Labels())
		if err != nil || len(notes) > 0 {
			t.Fatalf("ReadInstanceTypeLabels(%v): %v, notes %v", it.Labels(), err, notes)
		}
		if diff := cmp.Diff(labelFacts(it), got); diff != "" {
			t.Fatalf("InstanceTypeFromLabels(Labels()) mismatch (-want +got):\n%s", diff)
		}
		node := nodeLabels(t, it)
		if err := compat.FromNodeLabels(node).Compatible(it.Requirements()); err != nil {
			t.Fatalf("a node of %s (%v) is not strictly compatible with the type's requirements: %v", it.Name, node, err)
		}
		if !it.Requirements().Matches(node) {
			t.Fatalf("%s's requirements do not match its node's labels %v", it.Name, node)
		}
		// A node's other labels are no instance facts.
		fromNode, err := compat.InstanceTypeFromLabels(node)
		if err != nil {
			t.Fatalf("InstanceTypeFromLabels(%v): %v", node, err)
		}
		if fromNode.Name != it.Name || fromNode.Tenancy != node[compat.LabelInstanceTenancy] {
			t.Fatalf("InstanceTypeFromLabels(%v) = %+v", node, fromNode)
		}
	})
}

// TestCatalogNetworkBandwidth pins the bandwidth Karpenter labels: EC2 gives
// m5.large no baseline figure, and karpenter-provider-aws labels it 750
// from its generated table (7f27b4e85d31,
// pkg/providers/instancetype/zz_generated.bandwidth.go:126, read by
// pkg/providers/instancetype/types.go:423-424 at 1d927085dd81). Where EC2
// does state a baseline, it agrees with the table.
func TestCatalogNetworkBandwidth(t *testing.T) {
	_, infos := ec2fake.DefaultCatalog()
	stated := 0
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			continue
		}
		var gbps float64
		for _, card := range info.NetworkInfo.NetworkCards {
			if card.BaselineBandwidthInGbps != nil {
				gbps += *card.BaselineBandwidthInGbps
			}
		}
		if gbps == 0 {
			continue
		}
		stated++
		if want := int(gbps*1000 + 0.5); it.NetworkBandwidthMbps != want {
			t.Errorf("%s: bandwidth %d Mbps; EC2 states %d", it.Name, it.NetworkBandwidthMbps, want)
		}
	}
	if stated < 100 {
		t.Errorf("only %d catalog types state a baseline; the comparison is too thin", stated)
	}
	for name, want := range map[string]string{"m5.large": "750", "m5.xlarge": "1250", "p5.4xlarge": "100000", "g6f.xlarge": "2500", "c7i-flex.large": "390"} {
		i := slices.IndexFunc(infos, func(i ec2types.InstanceTypeInfo) bool { return string(i.InstanceType) == name })
		if i < 0 {
			t.Fatalf("the catalog has no %s", name)
		}
		it, err := compat.InstanceTypeFromEC2(infos[i])
		if err != nil {
			t.Fatal(err)
		}
		if got := it.Labels()[compat.LabelInstanceNetworkBandwidth]; got != want {
			t.Errorf("%s labels instance-network-bandwidth=%q; Karpenter labels %q", name, got, want)
		}
	}
}
