package ec2fake_test

import (
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// Every catalog instance type converts to compat facts, except the Mac
// types, whose architectures (x86_64_mac, arm64_mac) run no EKS node. The
// catalog has no i386-only type; t2's i386+x86_64 converts as amd64.
func TestCatalogInstanceTypesConvert(t *testing.T) {
	_, types := ec2fake.DefaultCatalog()
	mustFail := map[ec2types.InstanceType]bool{"mac1.metal": true, "mac2.metal": true}
	converted := 0
	for _, info := range types {
		got, err := compat.InstanceTypeFromEC2(info)
		if mustFail[info.InstanceType] {
			if err == nil || !strings.Contains(err.Error(), string(info.InstanceType)) {
				t.Errorf("InstanceTypeFromEC2(%s) = %v; want an error naming the type", info.InstanceType, err)
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
	if converted != len(types)-len(mustFail) {
		t.Errorf("converted %d of %d types", converted, len(types))
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
