package ec2fake_test

import (
	"os"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/ec2fake/internal/karpenterpage"
)

// notEKS lists the catalog's types no EKS node runs on, each with the
// reason compat.InstanceTypeFromEC2 gives: the Mac types report
// x86_64_mac and arm64_mac, which are neither amd64 nor arm64. The catalog
// has no i386-only type; t2's i386+x86_64 converts as amd64.
var notEKS = map[ec2types.InstanceType]string{
	"mac1.metal": "architectures [x86_64_mac] are not supported",
	"mac2.metal": "architectures [arm64_mac] are not supported",
}

func TestCatalogInstanceTypesConvert(t *testing.T) {
	_, types := ec2fake.DefaultCatalog()
	converted := 0
	for _, info := range types {
		got, err := compat.InstanceTypeFromEC2(info)
		if reason, ok := notEKS[info.InstanceType]; ok {
			if err == nil || !strings.Contains(err.Error(), string(info.InstanceType)) || !strings.Contains(err.Error(), reason) {
				t.Errorf("InstanceTypeFromEC2(%s) = %v; want an error naming the type and %q", info.InstanceType, err, reason)
			}
			continue
		}
		if err != nil {
			t.Errorf("InstanceTypeFromEC2(%s): %v", info.InstanceType, err)
			continue
		}
		if got.Name != string(info.InstanceType) || got.VCPU <= 0 || got.MemoryMiB <= 0 {
			t.Errorf("InstanceTypeFromEC2(%s) = %+v", info.InstanceType, got)
		}
		converted++
	}
	if converted != len(types)-len(notEKS) || converted < 750 {
		t.Errorf("converted %d of %d types; want all but %d, and at least 750", converted, len(types), len(notEKS))
	}
	for _, info := range types {
		if info.InstanceType == "t2.micro" {
			got, err := compat.InstanceTypeFromEC2(info)
			if err != nil || got.Arch != compat.ArchAMD64 {
				t.Errorf("t2.micro (i386 and x86_64) = %+v, %v; want amd64", got, err)
			}
		}
	}
}

// The catalog is built from Karpenter's instance-types reference, which
// Karpenter generates by labelling real DescribeInstanceTypes output
// (hack/docs/instancetypes_gen, aws/karpenter-provider-aws 1d927085). So
// each type, converted back, must carry exactly the labels the page
// lists: this checks every fact the generator maps, for all 1363 types.
func TestCatalogReproducesKarpenterLabels(t *testing.T) {
	text, err := os.ReadFile("catalog/upstream/karpenter-v1.14-instance-types.md")
	if err != nil {
		t.Fatal(err)
	}
	page, err := karpenterpage.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	_, types := ec2fake.DefaultCatalog()
	byName := map[string]ec2types.InstanceTypeInfo{}
	for _, info := range types {
		byName[string(info.InstanceType)] = info
	}
	for _, want := range page {
		info, ok := byName[want.Name]
		if !ok {
			t.Errorf("%s is on Karpenter's page but not in the catalog", want.Name)
			continue
		}
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			t.Errorf("%s: %v", want.Name, err)
			continue
		}
		got := it.Labels()
		// The page is written for Linux (AL2023) nodes; compat lists the
		// OS a type can run, which for x86 types includes windows.
		delete(got, compat.LabelOS)
		delete(want.Labels, compat.LabelOS)
		if diff := cmp.Diff(want.Labels, got); diff != "" {
			t.Errorf("%s labels (-Karpenter +catalog through compat):\n%s", want.Name, diff)
		}
	}
	if len(page) < 750 {
		t.Errorf("the page lists %d types; want at least 750", len(page))
	}
}
