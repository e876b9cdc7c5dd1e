package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/ec2nodeclass"
	"github.com/ec2select/ec2select/userdata"
)

// Launch takes ephemeral storage's volume as Karpenter v1.14.1's
// ephemeralStorage does (karpenter-provider-aws bde00654
// pkg/providers/instancetype/types.go:376-403).
func TestLaunch(t *testing.T) {
	const gi = int64(1) << 30
	for _, tc := range []struct {
		name, family, mappings string
		want                   int64
	}{
		{"no mappings: the family's default", "AL2023", "", 0},
		{"the root volume", "AL2023", "[{deviceName: /dev/xvdc, ebs: {volumeSize: 30Gi}}, {deviceName: /dev/xvdb, rootVolume: true, ebs: {volumeSize: 80Gi}}]", 80 * gi},
		{"AL2023's /dev/xvda", "AL2023", "[{deviceName: /dev/xvdc, ebs: {volumeSize: 30Gi}}, {deviceName: /dev/xvda, ebs: {volumeSize: 100G}}]", 100_000_000_000},
		{"Bottlerocket's data volume /dev/xvdb", "Bottlerocket", "[{deviceName: /dev/xvda, ebs: {volumeSize: 4Gi}}, {deviceName: /dev/xvdb, ebs: {volumeSize: 1Ti}}]", 1 << 40},
		{"Windows' /dev/sda1", "Windows2022", "[{deviceName: /dev/sda1, ebs: {volumeSize: 120Gi}}]", 120 * gi},
		{"Custom: the last mapping", "Custom", "[{deviceName: /dev/xvda, ebs: {volumeSize: 30Gi}}, {deviceName: /dev/xvdb, ebs: {volumeSize: 60Gi}}]", 60 * gi},
		{"no mapping of the family's device", "AL2023", "[{deviceName: /dev/xvdb, ebs: {volumeSize: 60Gi}}]", 0},
		{"a snapshot without a size", "AL2023", "[{deviceName: /dev/xvda, rootVolume: true, ebs: {snapshotID: snap-0123}}]", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nmetadata: {name: c}\nspec:\n  amiFamily: " + tc.family +
				"\n  role: r\n  amiSelectorTerms: [{id: ami-0123}]\n  subnetSelectorTerms: [{id: subnet-1}]\n  securityGroupSelectorTerms: [{id: sg-1}]\n" +
				"  instanceStorePolicy: RAID0\n  kubelet: {maxPods: 50}\n"
			if tc.mappings != "" {
				doc += "  blockDeviceMappings: " + tc.mappings + "\n"
			}
			nc, err := ec2nodeclass.Decode([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Launch(nc, compat.AL2023)
			if err != nil {
				t.Fatal(err)
			}
			fifty := int32(50)
			want := capacity.Launch{Family: compat.AL2023, Kubelet: userdata.KubeletConfig{MaxPods: &fifty}, InstanceStorePolicy: userdata.RAID0, RootVolumeBytes: tc.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Launch mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
