package karpenter_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

func TestTermsFromKarpenter(t *testing.T) {
	in := []v1.AMISelectorTerm{
		{ID: "ami-0123456789abcdef0"},
		{Name: "my-ami-*", Owner: "self", Tags: map[string]string{"team": "ml"}},
		{SSMParameter: "/my/golden/ami"},
	}
	terms := karpenter.TermsFromKarpenter(in)
	want := []amiselect.Term{
		{ID: "ami-0123456789abcdef0"},
		{Name: "my-ami-*", Owner: "self", Tags: map[string]string{"team": "ml"}},
		{SSMParameter: "/my/golden/ami"},
	}
	if diff := cmp.Diff(want, terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
}

func TestTaints(t *testing.T) {
	in := []corev1.Taint{
		{Key: "a", Value: "b", Effect: corev1.TaintEffectNoSchedule},
		{Key: "c", Effect: corev1.TaintEffectPreferNoSchedule},
	}
	got, err := karpenter.TaintsFromKarpenter(in)
	if err != nil {
		t.Fatal(err)
	}
	want := []userdata.Taint{{Key: "a", Value: "b", Effect: userdata.NoSchedule}, {Key: "c", Effect: userdata.PreferNoSchedule}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = karpenter.TaintsFromKarpenter([]corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoSchedule}, {Key: "", Effect: corev1.TaintEffectNoSchedule}})
	if err == nil || !strings.Contains(err.Error(), "taint 1") {
		t.Errorf("error = %v, want one naming taint 1", err)
	}
}

func TestKubeletFromKarpenter(t *testing.T) {
	k := &v1.KubeletConfiguration{
		ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](110), PodsPerCore: ptr[int32](10),
		SystemReserved: map[string]string{"cpu": "100m"}, KubeReserved: map[string]string{"memory": "1Gi"},
		EvictionHard: map[string]string{"nodefs.available": "10%"}, EvictionSoft: map[string]string{"nodefs.available": "15%"},
		EvictionSoftGracePeriod:   map[string]metav1.Duration{"nodefs.available": {Duration: 90 * time.Second}},
		EvictionMaxPodGracePeriod: ptr[int32](60), ImageGCHighThresholdPercent: ptr[int32](90),
		ImageGCLowThresholdPercent: ptr[int32](70), CPUCFSQuota: ptr(false),
	}
	got, err := karpenter.KubeletFromKarpenter(k)
	if err != nil {
		t.Fatal(err)
	}
	want := userdata.KubeletConfig{
		ClusterDNS: []string{"10.100.0.10"}, MaxPods: ptr[int32](110), PodsPerCore: ptr[int32](10),
		SystemReserved: map[string]string{"cpu": "100m"}, KubeReserved: map[string]string{"memory": "1Gi"},
		EvictionHard: map[string]string{"nodefs.available": "10%"}, EvictionSoft: map[string]string{"nodefs.available": "15%"},
		EvictionSoftGracePeriod:   map[string]time.Duration{"nodefs.available": 90 * time.Second},
		EvictionMaxPodGracePeriod: ptr[int32](60), ImageGCHighThresholdPercent: ptr[int32](90),
		ImageGCLowThresholdPercent: ptr[int32](70), CPUCFSQuota: ptr(false),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if z, err := karpenter.KubeletFromKarpenter(nil); err != nil || !z.IsZero() {
		t.Errorf("nil spec.kubelet = %+v, %v; want the zero config", z, err)
	}
	k.ImageGCLowThresholdPercent = ptr[int32](95)
	if _, err := karpenter.KubeletFromKarpenter(k); err == nil || !strings.Contains(err.Error(), "karpenter: spec.kubelet:") {
		t.Errorf("low above high: error = %v, want a spec.kubelet error", err)
	}
}

func TestFamily(t *testing.T) {
	tests := []struct {
		name string
		spec v1.EC2NodeClassSpec
		want compat.AMIFamily
	}{
		{"alias", v1.EC2NodeClassSpec{AMISelectorTerms: []v1.AMISelectorTerm{{Alias: "al2023@v20250403"}}}, compat.AL2023},
		{"amiFamily with terms", v1.EC2NodeClassSpec{AMIFamily: ptr("Bottlerocket"), AMISelectorTerms: []v1.AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}}, compat.Bottlerocket},
		{"custom", v1.EC2NodeClassSpec{AMISelectorTerms: []v1.AMISelectorTerm{{ID: "ami-0123456789abcdef0"}}}, compat.Custom},
		{"windows", v1.EC2NodeClassSpec{AMISelectorTerms: []v1.AMISelectorTerm{{Alias: "windows2022@latest"}}}, compat.Windows2022},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := karpenter.Family(&v1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "nc"}, Spec: tc.spec})
			if err != nil || got != tc.want {
				t.Errorf("Family = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	_, err := karpenter.Family(&v1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "nc"}, Spec: v1.EC2NodeClassSpec{AMIFamily: ptr("Ubuntu")}})
	if err == nil || !strings.Contains(err.Error(), "EC2NodeClass nc") {
		t.Errorf("Ubuntu: error = %v, want one naming the EC2NodeClass", err)
	}
}

func TestAMIsFromStatusRejects(t *testing.T) {
	tests := []struct {
		name   string
		status []v1.AMI
		want   string
	}{
		{"no id", []v1.AMI{{Name: "x"}}, "status.amis[0]"},
		{"bad requirement", []v1.AMI{{ID: "ami-1", Requirements: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/arch", Operator: "Gt", Values: []string{"a"}}}}}, "status.amis[0] (ami-1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := karpenter.AMIsFromStatus(compat.AL2023, tc.status)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// An EC2NodeClass's ssmParameter term resolves through a real *ssm.Client
// against ec2fake's public parameters.
func TestSSMParameterTerm(t *testing.T) {
	srv := ec2fake.NewServer(ec2fake.NewWithCatalog(ec2fake.Options{}))
	t.Cleanup(srv.Close)
	terms := karpenter.TermsFromKarpenter([]v1.AMISelectorTerm{{SSMParameter: "/aws/service/bottlerocket/aws-k8s-1.32/arm64/latest/image_id"}})
	sel, err := amiselect.Resolve(context.Background(), ec2fake.NewClient(srv.URL), terms, amiselect.Options{SSM: ec2fake.NewSSMClient(srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.AMIs) == 0 {
		t.Fatalf("no AMI selected; rejected %v", sel.Rejected)
	}
	for _, a := range sel.AMIs {
		if a.Arch != "arm64" || a.Family != compat.Bottlerocket || !strings.Contains(a.Name, "aws-k8s-1.32-aarch64") {
			t.Errorf("selected %s (%s), want the arm64 Bottlerocket 1.32 image", a.Name, a)
		}
	}
}
