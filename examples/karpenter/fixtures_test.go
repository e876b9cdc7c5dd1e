package karpenter_test

// Karpenter's own fixtures through the adapter, beside Karpenter's own
// code on the same input: its fake EC2 and SSM APIs
// (github.com/aws/karpenter-provider-aws/pkg/fake), the instance types
// its fake EC2 API describes (zz_generated.describe_instance_types.go) and
// MakeInstances, and Karpenter core's fake instance types
// (sigs.k8s.io/karpenter/pkg/cloudprovider/fake). Line numbers are
// karpenter-provider-aws and karpenter v1.14.1.

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/google/go-cmp/cmp"
	"github.com/patrickmn/go-cache"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	corefake "sigs.k8s.io/karpenter/pkg/cloudprovider/fake"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	sdk "github.com/aws/karpenter-provider-aws/pkg/aws"
	awsfake "github.com/aws/karpenter-provider-aws/pkg/fake"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/ssm"
)

// Karpenter's SDK interfaces and its fakes are the clients amiselect
// takes, as they are (pkg/aws/sdk.go:68-70 SSMAPI is GetParameter alone;
// pkg/fake/ssmapi.go:31-46, ec2api.go:78,416).
var (
	_ amiselect.SSMClient                = sdk.SSMAPI(nil)
	_ amiselect.SSMClient                = (*awsfake.SSMAPI)(nil)
	_ ec2.DescribeImagesAPIClient        = sdk.EC2API(nil)
	_ ec2.DescribeImagesAPIClient        = (*awsfake.EC2API)(nil)
	_ ec2.DescribeInstanceTypesAPIClient = sdk.EC2API(nil)
)

// k8sVersion is the Kubernetes version the fixtures' images are for.
const k8sVersion = "1.32"

// suiteImages are the amifamily suite's images (pkg/providers/amifamily/
// suite_test.go:77-146): IDs and names that are no EKS names, creation
// dates at the zero time plus minutes, as RFC 3339.
func suiteImages() []ec2types.Image {
	image := func(id, arch string, minutes int) ec2types.Image {
		return ec2types.Image{
			Name: aws.String(id), ImageId: aws.String(id), Architecture: ec2types.ArchitectureValues(arch),
			CreationDate: aws.String(time.Time{}.Add(time.Duration(minutes) * time.Minute).Format(time.RFC3339)),
			Tags:         []ec2types.Tag{{Key: aws.String("Name"), Value: aws.String(id)}, {Key: aws.String("foo"), Value: aws.String("bar")}},
			State:        ec2types.ImageStateAvailable,
		}
	}
	return []ec2types.Image{
		image("ami-id-amd64", "x86_64", 0), image("ami-id-arm64", "arm64", 1),
		image("ami-id-amd64-nvidia", "x86_64", 2), image("ami-id-arm64-nvidia", "arm64", 2),
	}
}

// eksImage is an image of the suite's kind (its ID scheme, an RFC 3339
// date) under the name EKS publishes it by, so that its role can be read
// from it as from a real EKS AMI.
type eksImage struct{ id, name, arch, parameter string }

// eksImages are, per alias family, the images and the public SSM
// parameter that names each for Kubernetes 1.32, as the amifamily suite
// sets them (suite_test.go:186-240) with EKS's parameter names
// (al2.go:53-61, al2023.go:40-46, bottlerocket.go:45-53, windows.go:51).
func eksImages() map[string][]eksImage {
	const eks = "/aws/service/eks/optimized-ami/1.32/"
	return map[string][]eksImage{
		"al2": {
			{"ami-id-amd64", "amazon-eks-node-1.32-v20250403", "x86_64", eks + "amazon-linux-2/recommended/image_id"},
			{"ami-id-arm64", "amazon-eks-arm64-node-1.32-v20250403", "arm64", eks + "amazon-linux-2-arm64/recommended/image_id"},
			{"ami-id-amd64-nvidia", "amazon-eks-gpu-node-1.32-v20250403", "x86_64", eks + "amazon-linux-2-gpu/recommended/image_id"},
		},
		"al2023": {
			{"ami-id-amd64", "amazon-eks-node-al2023-x86_64-standard-1.32-v20250403", "x86_64", eks + "amazon-linux-2023/x86_64/standard/recommended/image_id"},
			{"ami-id-arm64", "amazon-eks-node-al2023-arm64-standard-1.32-v20250403", "arm64", eks + "amazon-linux-2023/arm64/standard/recommended/image_id"},
			{"ami-id-amd64-nvidia", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", "x86_64", eks + "amazon-linux-2023/x86_64/nvidia/recommended/image_id"},
			{"ami-id-arm64-nvidia", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", "arm64", eks + "amazon-linux-2023/arm64/nvidia/recommended/image_id"},
			{"ami-id-amd64-neuron", "amazon-eks-node-al2023-x86_64-neuron-1.32-v20250403", "x86_64", eks + "amazon-linux-2023/x86_64/neuron/recommended/image_id"},
		},
		"bottlerocket": {
			{"ami-id-amd64", "bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce", "x86_64", "/aws/service/bottlerocket/aws-k8s-1.32/x86_64/latest/image_id"},
			{"ami-id-arm64", "bottlerocket-aws-k8s-1.32-aarch64-v1.49.0-713f44ce", "arm64", "/aws/service/bottlerocket/aws-k8s-1.32/arm64/latest/image_id"},
			{"ami-id-amd64-nvidia", "bottlerocket-aws-k8s-1.32-nvidia-x86_64-v1.49.0-713f44ce", "x86_64", "/aws/service/bottlerocket/aws-k8s-1.32-nvidia/x86_64/latest/image_id"},
			{"ami-id-arm64-nvidia", "bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce", "arm64", "/aws/service/bottlerocket/aws-k8s-1.32-nvidia/arm64/latest/image_id"},
		},
		"windows2022": {
			{"ami-id-amd64", "Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.09", "x86_64", "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.32/image_id"},
		},
	}
}

// karpenterAPIs are Karpenter's fake EC2 and SSM APIs holding images and
// parameters.
func karpenterAPIs(images []ec2types.Image, params map[string]string) (*awsfake.EC2API, *awsfake.SSMAPI) {
	ec2api := awsfake.NewEC2API()
	ec2api.DescribeImagesOutput.Set(&ec2.DescribeImagesOutput{Images: images})
	ssmapi := awsfake.NewSSMAPI()
	ssmapi.Parameters = params
	return ec2api, ssmapi
}

// fixedVersion is Karpenter's version.Provider at one version, as the
// amifamily suite's MockVersionProvider is (suite_test.go:158-164).
type fixedVersion string

func (v fixedVersion) Get(context.Context) string { return string(v) }

// karpenterList runs Karpenter's own AMI provider: List as the
// EC2NodeClass status controller calls it, then status.amis as it writes
// them (pkg/controllers/nodeclass/ami.go:73-94).
func karpenterList(t *testing.T, ec2api *awsfake.EC2API, ssmapi *awsfake.SSMAPI, nc *v1.EC2NodeClass) (amifamily.AMIs, []v1.AMI) {
	t.Helper()
	c := func() *cache.Cache { return cache.New(time.Hour, time.Hour) }
	provider := amifamily.NewDefaultProvider(clock.RealClock{}, fixedVersion(k8sVersion), ssm.NewDefaultProvider(ssmapi, c()), ec2api, c())
	amis, err := provider.List(context.Background(), nc)
	if err != nil {
		t.Fatalf("Karpenter's List: %v", err)
	}
	status := make([]v1.AMI, 0, len(amis))
	for _, a := range amis {
		var reqs []corev1.NodeSelectorRequirement
		for _, r := range a.Requirements.NodeSelectorRequirements() {
			reqs = append(reqs, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		sort.Slice(reqs, func(i, j int) bool {
			if len(reqs[i].Key) != len(reqs[j].Key) {
				return len(reqs[i].Key) < len(reqs[j].Key)
			}
			return reqs[i].Key < reqs[j].Key
		})
		status = append(status, v1.AMI{Name: a.Name, ID: a.AmiID, Deprecated: a.Deprecated, Requirements: reqs})
	}
	return amis, status
}

func nodeClassWith(terms ...v1.AMISelectorTerm) *v1.EC2NodeClass {
	return &v1.EC2NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.EC2NodeClassSpec{AMISelectorTerms: terms}}
}

// amiRow is one AMI as both sides can state it: the image, its creation
// date as EC2 wrote it, and its requirements compiled by compat.
type amiRow struct {
	ID, CreationDate string
	Deprecated       bool
	Requirements     string
}

func karpenterRows(t *testing.T, amis amifamily.AMIs) []amiRow {
	t.Helper()
	var out []amiRow
	for _, a := range amis {
		var reqs []corev1.NodeSelectorRequirement
		for _, r := range a.Requirements.NodeSelectorRequirements() {
			reqs = append(reqs, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		compiled, err := karpenter.RequirementsFromNodeSelector(reqs)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, amiRow{a.AmiID, a.CreationDate, a.Deprecated, compiled.String()})
	}
	return sortedRows(out)
}

// manufacturerKeys are the requirements amiselect adds to an accelerated
// AMI's and Karpenter does not: an NVIDIA image requires an NVIDIA GPU
// and a Neuron image an AWS accelerator, so that g4ad (AMD GPUs) does not
// take the NVIDIA image as it does in Karpenter (al2023.go:64-79 state
// only instance-gpu-count Exists).
var manufacturerKeys = []string{"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-accelerator-manufacturer"}

// ourRows states amiselect's AMIs as Karpenter's would be, the
// manufacturer requirements left out; it fails the test when one is on an
// AMI that requires no GPU or accelerator.
func ourRows(t *testing.T, amis []amiselect.AMI) []amiRow {
	t.Helper()
	var out []amiRow
	for _, a := range amis {
		var kept []compat.Requirement
		manufacturer := false
		for _, r := range a.Requirements.List() {
			if slices.Contains(manufacturerKeys, r.Key) {
				manufacturer = true
				continue
			}
			kept = append(kept, r)
		}
		reqs := compat.MustRequirements(kept...)
		if manufacturer != (a.Variant == amiselect.NVIDIA || a.Variant == amiselect.Neuron) {
			t.Errorf("%s (%s): manufacturer requirement %v on a %s image", a.ID, a.Name, manufacturer, a.Variant)
		}
		out = append(out, amiRow{a.ID, a.CreationDate, a.Deprecated, reqs.String()})
	}
	return sortedRows(out)
}

func sortedRows(rows []amiRow) []amiRow {
	slices.SortFunc(rows, func(a, b amiRow) int {
		return strings.Compare(a.ID+"|"+a.Requirements, b.ID+"|"+b.Requirements)
	})
	return rows
}

// TestListAMIsAsKarpenter: for each alias family, ID terms, tag terms and
// ssmParameter terms (present and missing), ListAMIs over Karpenter's fake
// EC2 and SSM APIs selects the images Karpenter's own
// amifamily.DefaultProvider.List selects, with the same requirements,
// deprecation and EC2 creation-date strings, when the images carry EKS's
// names.
func TestListAMIsAsKarpenter(t *testing.T) {
	t.Parallel()
	var images []ec2types.Image
	params := map[string]string{"/my/ami": "ami-id-arm64"}
	seen := map[string]bool{}
	for _, family := range slices.Sorted(maps.Keys(eksImages())) {
		for _, img := range eksImages()[family] {
			params[img.parameter] = img.id
			if seen[img.id+img.name] {
				continue
			}
			seen[img.id+img.name] = true
			images = append(images, ec2types.Image{
				ImageId: aws.String(img.id + "-" + family), Name: aws.String(img.name), Architecture: ec2types.ArchitectureValues(img.arch),
				CreationDate: aws.String(time.Date(2025, 4, 3, 16, len(images), 0, 0, time.UTC).Format(time.RFC3339)),
				State:        ec2types.ImageStateAvailable,
				Tags:         []ec2types.Tag{{Key: aws.String("family"), Value: aws.String(family)}},
			})
			params[img.parameter] = img.id + "-" + family
		}
	}
	images = append(images, suiteImages()...)
	// A deprecated image newer than the others: List's order (newest
	// first) differs from amiselect's (not deprecated first).
	images = append(images, ec2types.Image{ImageId: aws.String("ami-dep-arm64"), Name: aws.String("ami-dep-arm64"), Architecture: "arm64",
		CreationDate: aws.String("2019-01-01T00:00:00Z"), DeprecationTime: aws.String("2020-01-01T00:00:00Z"), State: ec2types.ImageStateAvailable})
	tests := []struct {
		name  string
		terms []v1.AMISelectorTerm
		// byName lists the images ListAMIs selects where Karpenter does
		// not: a term other than an alias finds EKS images, and amiselect
		// reads each one's role from its name (standard, NVIDIA, Neuron,
		// per architecture) where Karpenter states the architecture alone
		// (ami.go:195-197 with a query that has no known parameters), so
		// keeps one image per architecture and maps a non-GPU type to
		// whichever is newest, NVIDIA or not.
		byName []string
	}{
		{name: "al2@latest", terms: []v1.AMISelectorTerm{{Alias: "al2@latest"}}},
		{name: "al2023@latest", terms: []v1.AMISelectorTerm{{Alias: "al2023@latest"}}},
		{name: "bottlerocket@latest", terms: []v1.AMISelectorTerm{{Alias: "bottlerocket@latest"}}},
		{name: "windows2022@latest", terms: []v1.AMISelectorTerm{{Alias: "windows2022@latest"}}},
		{name: "ids", terms: []v1.AMISelectorTerm{{ID: "ami-id-amd64"}, {ID: "ami-id-arm64"}}},
		{name: "ids with a deprecated image", terms: []v1.AMISelectorTerm{{ID: "ami-id-amd64"}, {ID: "ami-dep-arm64"}}},
		{name: "ssmParameter", terms: []v1.AMISelectorTerm{{SSMParameter: "/my/ami"}}},
		{name: "tags", terms: []v1.AMISelectorTerm{{Tags: map[string]string{"family": "al2023"}}},
			byName: []string{"ami-id-amd64-al2023", "ami-id-amd64-nvidia-al2023", "ami-id-arm64-al2023"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ec2api, ssmapi := karpenterAPIs(images, params)
			nc := nodeClassWith(tc.terms...)
			theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
			sel, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(theirs) == 0 {
				t.Fatal("Karpenter selected nothing; the fixture is wrong")
			}
			want := karpenterRows(t, theirs)
			got := ourRows(t, sel.AMIs)
			if tc.byName != nil {
				var onlyOurs []string
				for _, r := range got {
					if !slices.ContainsFunc(want, func(w amiRow) bool { return w.ID == r.ID }) {
						onlyOurs = append(onlyOurs, r.ID)
					}
				}
				if diff := cmp.Diff(tc.byName, onlyOurs); diff != "" {
					t.Errorf("images only ListAMIs selects (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("AMIs (-Karpenter +ListAMIs):\n%s", diff)
			}
			listed := asKarpenter(karpenter.AMIsToKarpenter(sel.AMIs))
			if diff := cmp.Diff(idsOf(theirs), idsOf(listed)); diff != "" {
				t.Errorf("List's order (-Karpenter +AMIsToKarpenter):\n%s", diff)
			}
		})
	}
}

// TestListAMIsSuiteNames: the amifamily suite's own images carry names
// that are no EKS names ("ami-id-amd64-nvidia"), and Karpenter gives an
// image its role from the SSM parameter that named it (al2023.go:40-79),
// so its alias specs expect an NVIDIA role for ami-id-amd64-nvidia
// (suite_test.go:166-240: 4, 2 and 5 AMIs). amiselect reads the role from
// the name alone, whichever term found the image, so these images are
// Custom images stating their architecture, and one per architecture
// survives. A fork rewrites these specs with EKS-named images (as
// TestListAMIsAsKarpenter does); this test pins the difference.
func TestListAMIsSuiteNames(t *testing.T) {
	t.Parallel()
	params := map[string]string{}
	for _, img := range eksImages()["bottlerocket"] {
		params[img.parameter] = img.id
	}
	ec2api, ssmapi := karpenterAPIs(suiteImages(), params)
	nc := nodeClassWith(v1.AMISelectorTerm{Alias: "bottlerocket@latest"})
	theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
	sel, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(theirs) != 5 {
		t.Errorf("Karpenter selected %d AMIs, its suite says 5", len(theirs))
	}
	var got []string
	for _, a := range sel.AMIs {
		got = append(got, a.ID+" "+a.Family.String()+" "+a.Requirements.String())
	}
	want := []string{"ami-id-amd64-nvidia Custom kubernetes.io/arch In [amd64]", "ami-id-arm64-nvidia Custom kubernetes.io/arch In [arm64]"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListAMIs of the suite's images (-want +got):\n%s", diff)
	}
}

// TestListAMIsSSMErrors: Karpenter's fake SSM API says "parameter not
// found" in words (ssmapi.go:57-60), which is no ParameterNotFound: for an
// ssmParameter term both Karpenter's List (errors.IsNotFound,
// pkg/errors/errors.go:71-79) and ListAMIs fail on it rather than skip
// the term; for an alias's public parameters only ListAMIs does.
func TestListAMIsSSMErrors(t *testing.T) {
	t.Parallel()
	ec2api, ssmapi := karpenterAPIs(suiteImages(), map[string]string{"/my/ami": "ami-id-amd64"})
	nc := nodeClassWith(v1.AMISelectorTerm{SSMParameter: "/my/ami"}, v1.AMISelectorTerm{SSMParameter: "/not/there"})
	c := cache.New(time.Hour, time.Hour)
	provider := amifamily.NewDefaultProvider(clock.RealClock{}, fixedVersion(k8sVersion), ssm.NewDefaultProvider(ssmapi, c), ec2api, c)
	if _, err := provider.List(context.Background(), nc); err == nil {
		t.Error("Karpenter's List succeeded")
	}
	if _, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil); err == nil || !strings.Contains(err.Error(), "/not/there") {
		t.Errorf("ListAMIs: %v, want an error naming /not/there", err)
	}

	// An alias: Karpenter skips a public parameter on any error
	// (al2023.go:47-53) and resolves the two the suite's AL2023 spec sets
	// (suite_test.go:201-210); ListAMIs skips the fake's "parameter not
	// found" in words too (amiselect.Options.UntypedNotFound, set for an
	// alias) and selects the same two images, through Karpenter's cached
	// SSM provider as well.
	eks := "/aws/service/eks/optimized-ami/1.32/amazon-linux-2023/"
	ec2api, ssmapi = karpenterAPIs(suiteImages(), map[string]string{
		eks + "x86_64/standard/recommended/image_id": "ami-id-amd64", eks + "arm64/standard/recommended/image_id": "ami-id-arm64"})
	nc = nodeClassWith(v1.AMISelectorTerm{Alias: "al2023@latest"})
	theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
	if len(theirs) != 2 {
		t.Errorf("Karpenter's List selected %d AMIs, its suite says 2", len(theirs))
	}
	for name, client := range map[string]amiselect.SSMClient{
		"sdk":       ssmapi,
		"CachedSSM": karpenter.CachedSSM{Provider: ssm.NewDefaultProvider(ssmapi, cache.New(time.Hour, time.Hour)), NodeClass: nc},
	} {
		sel, err := karpenter.ListAMIs(context.Background(), ec2api, client, nc, k8sVersion, nil)
		if err != nil {
			t.Fatalf("%s: ListAMIs: %v", name, err)
		}
		var got []string
		for _, a := range sel.AMIs {
			got = append(got, a.ID)
		}
		slices.Sort(got)
		if diff := cmp.Diff([]string{"ami-id-amd64", "ami-id-arm64"}, got); diff != "" {
			t.Errorf("%s: images (-Karpenter's +ListAMIs):\n%s", name, diff)
		}
	}
}

// karpenterStatus is status.amis as Karpenter's status controller writes
// it for an alias family, over EKS-named images.
func karpenterStatus(t *testing.T, family string) []v1.AMI {
	t.Helper()
	var images []ec2types.Image
	params := map[string]string{}
	for i, img := range eksImages()[family] {
		params[img.parameter] = img.id
		images = append(images, ec2types.Image{
			ImageId: aws.String(img.id), Name: aws.String(img.name), Architecture: ec2types.ArchitectureValues(img.arch),
			CreationDate: aws.String(time.Date(2025, 4, 3, 16, i, 0, 0, time.UTC).Format(time.RFC3339)), State: ec2types.ImageStateAvailable,
		})
	}
	ec2api, ssmapi := karpenterAPIs(images, params)
	_, status := karpenterList(t, ec2api, ssmapi, nodeClassWith(v1.AMISelectorTerm{Alias: family + "@latest"}))
	return status
}

// namesByImage lists each image's instance type names, sorted.
func namesByImage(m map[string][]*cloudprovider.InstanceType) map[string][]string {
	out := map[string][]string{}
	for id, its := range m {
		for _, it := range its {
			out[id] = append(out[id], it.Name)
		}
		slices.Sort(out[id])
	}
	return out
}

// mapAsKarpenter maps offered onto status with Karpenter's own
// amifamily.MapToInstanceTypes and with the adapter's MapToInstanceTypes,
// and fails the test where they differ. When Karpenter maps nothing, the
// adapter must return its explanation instead.
func mapAsKarpenter(t *testing.T, family compat.AMIFamily, offered []*cloudprovider.InstanceType, status []v1.AMI) map[string][]string {
	t.Helper()
	theirs := namesByImage(amifamily.MapToInstanceTypes(offered, status))
	ours, err := karpenter.MapToInstanceTypes(offered, status)
	if len(theirs) == 0 {
		if !errors.Is(err, amiselect.ErrNoCompatibleAMI) || ours == nil || len(ours) != 0 {
			t.Errorf("Karpenter maps nothing; MapToInstanceTypes = %v, %v; want an empty map and ErrNoCompatibleAMI", namesByImage(ours), err)
		}
		return theirs
	}
	if err != nil {
		t.Fatalf("MapToInstanceTypes: %v", err)
	}
	if diff := cmp.Diff(theirs, namesByImage(ours)); diff != "" {
		t.Errorf("mapping (-Karpenter +adapter):\n%s", diff)
	}
	return theirs
}

// TestCoreFakeInstanceTypes: Karpenter core's fake instance types
// (cloudprovider/fake/instancetype.go: InstanceTypes L411-424,
// InstanceTypesAssorted L369-409, NewInstanceType L99-206), which carry
// an instance-type, an architecture, an os and the fake's own keys but no
// AWS labels, all convert, and map onto each alias family's status.amis
// as Karpenter's own MapToInstanceTypes maps them.
func TestCoreFakeInstanceTypes(t *testing.T) {
	t.Parallel()
	sets := map[string][]*cloudprovider.InstanceType{
		"InstanceTypes(20)":     corefake.InstanceTypes(20),
		"InstanceTypesAssorted": corefake.InstanceTypesAssorted(),
		"NewInstanceType arm64": {corefake.NewInstanceType("arm", corefake.WithArchitecture("arm64"), corefake.WithOperatingSystems("linux"))},
	}
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		offered := sets[name]
		for _, it := range offered {
			if _, err := karpenter.InstanceTypeFromKarpenter(it); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, family := range []string{"al2", "al2023", "bottlerocket", "windows2022"} {
			t.Run(name+"/"+family, func(t *testing.T) {
				f, err := compat.ParseAMIFamily(family)
				if err != nil {
					t.Fatal(err)
				}
				got := mapAsKarpenter(t, f, offered, karpenterStatus(t, family))
				if family == "al2023" && len(got) == 0 {
					t.Error("nothing mapped; the comparison tests nothing")
				}
			})
		}
	}
}

// TestCachedSSM: ListAMIs reading through Karpenter's own cached SSM
// provider selects what it selects from the SDK client, and leaves each
// parameter in the provider's cache tagged as Karpenter's amifamily code
// tags it, which is what its invalidation controller reads
// (pkg/controllers/providers/ssm/invalidation/controller.go:64: only
// IsMutable entries are refreshed).
func TestCachedSSM(t *testing.T) {
	t.Parallel()
	params := map[string]string{"/my/ami": "ami-id-arm64"}
	var images []ec2types.Image
	for i, img := range eksImages()["al2023"] {
		params[img.parameter] = img.id
		images = append(images, ec2types.Image{ImageId: aws.String(img.id), Name: aws.String(img.name), Architecture: ec2types.ArchitectureValues(img.arch),
			CreationDate: aws.String(time.Date(2025, 4, 3, 16, i, 0, 0, time.UTC).Format(time.RFC3339)), State: ec2types.ImageStateAvailable})
	}
	images = append(images, suiteImages()[1])
	tests := []struct {
		name    string
		terms   []v1.AMISelectorTerm
		mutable bool
		typ     string
	}{
		{"alias latest", []v1.AMISelectorTerm{{Alias: "al2023@latest"}}, true, ""},
		{"ssmParameter", []v1.AMISelectorTerm{{SSMParameter: "/my/ami"}}, false, ssm.CustomParameterType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ec2api, ssmapi := karpenterAPIs(images, params)
			nc := nodeClassWith(tc.terms...)
			direct, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := cache.New(time.Hour, time.Hour)
			cached, err := karpenter.ListAMIs(context.Background(), ec2api, karpenter.CachedSSM{Provider: ssm.NewDefaultProvider(ssmapi, c), NodeClass: nc}, nc, k8sVersion, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(ourRows(t, direct.AMIs), ourRows(t, cached.AMIs)); diff != "" {
				t.Errorf("through the cache (-SDK client +CachedSSM):\n%s", diff)
			}
			if c.ItemCount() == 0 {
				t.Fatal("nothing went through Karpenter's cache")
			}
			for key, item := range c.Items() {
				entry := item.Object.(ssm.CacheEntry)
				if entry.Parameter.IsMutable != tc.mutable || entry.Parameter.Type != tc.typ {
					t.Errorf("%s cached as %+v, want IsMutable %v, Type %q", key, entry.Parameter, tc.mutable, tc.typ)
				}
			}
		})
	}
}

// asKarpenter converts as a fork's amifamily does: karpenter.AMI has
// amifamily.AMI's fields, so the conversion compiles only while they
// match.
func asKarpenter(amis []karpenter.AMI) amifamily.AMIs {
	out := make(amifamily.AMIs, 0, len(amis))
	for _, a := range amis {
		out = append(out, amifamily.AMI(a))
	}
	return out
}

func idsOf(amis amifamily.AMIs) []string {
	var out []string
	for _, a := range amis {
		out = append(out, a.AmiID+" "+a.CreationDate)
	}
	return out
}

// TestMissingParameter: a parameter SSM does not have (ParameterNotFound,
// as the real SDK returns it) lets the ssmParameter term match nothing,
// as Karpenter skips it (ami.go:122-128), recorded in
// Selection.MissingParameters; through Karpenter's cached SSM provider
// too, whose wrapping keeps the SDK error.
func TestMissingParameter(t *testing.T) {
	t.Parallel()
	ec2api, ssmapi := karpenterAPIs(suiteImages(), nil)
	ssmapi.WantErr = &ssmtypes.ParameterNotFound{Message: aws.String("not found")}
	nc := nodeClassWith(v1.AMISelectorTerm{SSMParameter: "/not/there"})
	c := cache.New(time.Hour, time.Hour)
	for name, client := range map[string]amiselect.SSMClient{
		"sdk":       ssmapi,
		"CachedSSM": karpenter.CachedSSM{Provider: ssm.NewDefaultProvider(ssmapi, c), NodeClass: nc},
	} {
		sel, err := karpenter.ListAMIs(context.Background(), ec2api, client, nc, k8sVersion, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := []amiselect.MissingParameter{{Term: 0, Parameter: "/not/there"}}
		if diff := cmp.Diff(want, sel.MissingParameters); diff != "" || len(sel.AMIs) != 0 {
			t.Errorf("%s: %d AMIs, missing (-want +got):\n%s", name, len(sel.AMIs), diff)
		}
	}
	theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
	if len(theirs) != 0 {
		t.Errorf("Karpenter's List selected %d AMIs", len(theirs))
	}
}

// TestListAMIsFixtureValues pins three refusals a fork's suites meet in
// Karpenter's fixtures, beside Karpenter's own List on the same fakes:
// an image whose CreationDate is not EC2's RFC 3339 (Karpenter's fake
// EC2 API writes time.UnixDate for the image it returns by default,
// pkg/fake/ec2api.go:431-440, v1.14.1) is rejected with a reason, where
// Karpenter sorts it last (ami.go parseTimeWithDefault) and keeps it;
// and an alias's public parameter whose value is no AMI id (the
// cloudprovider and EC2NodeClass validation suites' "amd64-ami-id") is an
// error naming it, where Karpenter describes the value as an image id;
// and an id term that does not match the EC2NodeClass CRD's pattern is
// refused as the API server refuses it, where Karpenter describes it.
func TestListAMIsFixtureValues(t *testing.T) {
	t.Parallel()
	t.Run("creation date", func(t *testing.T) {
		img := ec2types.Image{ImageId: aws.String("ami-0123456789"), Name: aws.String("custom"), Architecture: "x86_64",
			CreationDate: aws.String(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC).Format(time.UnixDate)), State: ec2types.ImageStateAvailable}
		ec2api, ssmapi := karpenterAPIs([]ec2types.Image{img}, nil)
		nc := nodeClassWith(v1.AMISelectorTerm{ID: "ami-0123456789"})
		theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
		sel, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(theirs) != 1 || len(sel.AMIs) != 0 || len(sel.Rejected) != 1 {
			t.Errorf("Karpenter keeps %d, ListAMIs keeps %d and rejects %v; want 1, 0 and the image", len(theirs), len(sel.AMIs), sel.Rejected)
		}
	})
	t.Run("id with capitals", func(t *testing.T) {
		// Karpenter's fake SSM makes "ami-" and 16 random letters and
		// digits (pkg/fake/ssmapi.go:70); its SSM-cache invalidation lists
		// each cached value as an id term.
		img := ec2types.Image{ImageId: aws.String("ami-Y4U55xcLaUMDORs4"), Name: aws.String("custom"), Architecture: "x86_64",
			CreationDate: aws.String("2025-04-03T16:40:40.000Z"), State: ec2types.ImageStateAvailable}
		ec2api, ssmapi := karpenterAPIs([]ec2types.Image{img}, nil)
		nc := nodeClassWith(v1.AMISelectorTerm{ID: "ami-Y4U55xcLaUMDORs4"})
		theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
		_, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil)
		if len(theirs) != 1 || err == nil || !strings.Contains(err.Error(), "ami-[0-9a-z]+") {
			t.Errorf("Karpenter keeps %d images; ListAMIs: %v; want Karpenter's image and an error naming the pattern", len(theirs), err)
		}
	})
	t.Run("public parameter value", func(t *testing.T) {
		param := "/aws/service/eks/optimized-ami/" + k8sVersion + "/amazon-linux-2023/x86_64/standard/recommended/image_id"
		img := ec2types.Image{ImageId: aws.String("amd64-ami-id"), Name: aws.String("amd64-ami"), Architecture: "x86_64",
			CreationDate: aws.String("2025-04-03T16:40:40.000Z"), State: ec2types.ImageStateAvailable}
		ec2api, ssmapi := karpenterAPIs([]ec2types.Image{img}, map[string]string{param: "amd64-ami-id"})
		nc := nodeClassWith(v1.AMISelectorTerm{Alias: "al2023@latest"})
		theirs, _ := karpenterList(t, ec2api, ssmapi, nc)
		_, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, nil)
		if len(theirs) == 0 || err == nil || !strings.Contains(err.Error(), `"amd64-ami-id", not an AMI id`) {
			t.Errorf("Karpenter keeps %d images; ListAMIs: %v; want Karpenter's image and an error naming the value", len(theirs), err)
		}
	})
}

// TestListAMIsDeprecationClock: Karpenter judges deprecation on the AMI
// provider's injected clock (ami.go:213, v1.14.1), and its EC2NodeClass
// suite steps a fake clock past an image's DeprecationTime; ListAMIs
// judges it on the clock it is given, so both call the image deprecated
// 40 minutes on, and neither before.
func TestListAMIsDeprecationClock(t *testing.T) {
	t.Parallel()
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
	img := ec2types.Image{ImageId: aws.String("ami-0123456789"), Name: aws.String("custom"), Architecture: "x86_64",
		CreationDate: aws.String("2025-04-03T16:40:40.000Z"), State: ec2types.ImageStateAvailable,
		DeprecationTime: aws.String(clk.Now().Add(30 * time.Minute).Format(time.RFC3339))}
	ec2api, ssmapi := karpenterAPIs([]ec2types.Image{img}, nil)
	nc := nodeClassWith(v1.AMISelectorTerm{ID: "ami-0123456789"})
	for _, step := range []time.Duration{0, 40 * time.Minute} {
		clk.Step(step)
		c := cache.New(time.Hour, time.Hour)
		theirs, err := amifamily.NewDefaultProvider(clk, fixedVersion(k8sVersion), ssm.NewDefaultProvider(ssmapi, c), ec2api, cache.New(time.Nanosecond, time.Hour)).List(context.Background(), nc)
		if err != nil || len(theirs) != 1 {
			t.Fatalf("Karpenter's List = %v, %v", theirs, err)
		}
		sel, err := karpenter.ListAMIs(context.Background(), ec2api, ssmapi, nc, k8sVersion, clk.Now)
		if err != nil || len(sel.AMIs) != 1 {
			t.Fatalf("ListAMIs = %v, %v", sel.AMIs, err)
		}
		if theirs[0].Deprecated != sel.AMIs[0].Deprecated || sel.AMIs[0].Deprecated != (step > 0) {
			t.Errorf("at %s: Karpenter says deprecated %v, ListAMIs %v", clk.Now(), theirs[0].Deprecated, sel.AMIs[0].Deprecated)
		}
	}
}
