package amiselect

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

var equalRequirements = cmp.Comparer(func(a, b compat.Requirements) bool { return a.Equal(b) })

// brief is what a test usually wants to see of a selected AMI.
type brief struct {
	ID         string
	Family     compat.AMIFamily
	Variant    Variant
	Arch       string
	Deprecated bool
}

func briefs(amis []AMI) []brief {
	var out []brief
	for _, a := range amis {
		out = append(out, brief{a.ID, a.Family, a.Variant, a.Arch, a.Deprecated})
	}
	return out
}

type rejected struct {
	ImageID string
	Kind    RejectionKind
}

func rejections(rs []Rejection) []rejected {
	var out []rejected
	for _, r := range rs {
		out = append(out, rejected{r.ImageID, r.Kind})
	}
	return out
}

func TestSelect(t *testing.T) {
	custom := func(id, created string) ec2types.Image {
		return image(id, "team-base-al2023-"+id, "x86_64", created)
	}
	tests := []struct {
		name     string
		images   []ec2types.Image
		want     []brief
		rejected []rejected
	}{
		{
			name: "a pending image newer than the available one is never selected",
			images: []ec2types.Image{
				custom("ami-0available", "2025-03-01T09:30:00.000Z"),
				withState(custom("ami-0pending", "2025-04-01T09:30:00.000Z"), ec2types.ImageStatePending),
			},
			want:     []brief{{"ami-0available", compat.Custom, Unspecified, "amd64", false}},
			rejected: []rejected{{"ami-0pending", NotAvailable}},
		},
		{
			name: "every state but available is refused",
			images: []ec2types.Image{
				withState(custom("ami-01", "2025-03-01T09:30:00Z"), ec2types.ImageStateFailed),
				withState(custom("ami-02", "2025-03-01T09:30:00Z"), ec2types.ImageStateDisabled),
				withState(custom("ami-03", "2025-03-01T09:30:00Z"), ec2types.ImageStateDeregistered),
				withState(custom("ami-04", "2025-03-01T09:30:00Z"), ec2types.ImageStateError),
				withState(custom("ami-05", "2025-03-01T09:30:00Z"), ec2types.ImageStateInvalid),
				withState(custom("ami-06", "2025-03-01T09:30:00Z"), ec2types.ImageStateTransient),
				withState(custom("ami-07", "2025-03-01T09:30:00Z"), ""),
			},
			rejected: []rejected{
				{"ami-01", NotAvailable}, {"ami-02", NotAvailable}, {"ami-03", NotAvailable}, {"ami-04", NotAvailable},
				{"ami-05", NotAvailable}, {"ami-06", NotAvailable}, {"ami-07", NotAvailable},
			},
		},
		{
			name: "a deprecated image loses to an older one that is not",
			images: []ec2types.Image{
				custom("ami-0older", "2025-03-01T09:30:00.000Z"),
				withDeprecation(custom("ami-0newer", "2025-03-15T09:30:00.000Z"), "2025-06-01T00:00:00.000Z"),
			},
			want: []brief{{"ami-0older", compat.Custom, Unspecified, "amd64", false}},
		},
		{
			name: "a deprecation in the future does not count",
			images: []ec2types.Image{
				custom("ami-0older", "2025-03-01T09:30:00.000Z"),
				withDeprecation(custom("ami-0newer", "2025-03-15T09:30:00.000Z"), "2027-01-01T00:00:00.000Z"),
			},
			want: []brief{{"ami-0newer", compat.Custom, Unspecified, "amd64", false}},
		},
		{
			name: "a deprecated image is kept when nothing replaces it, and goes last",
			images: []ec2types.Image{
				withDeprecation(image("ami-0arm", "team-arm", "arm64", "2025-05-01T00:00:00Z"), "2025-06-01T00:00:00Z"),
				image("ami-0amd", "team-amd", "x86_64", "2025-01-01T00:00:00Z"),
			},
			want: []brief{{"ami-0amd", compat.Custom, Unspecified, "amd64", false}, {"ami-0arm", compat.Custom, Unspecified, "arm64", true}},
		},
		{
			name: "a malformed date is rejected with a reason, not a panic",
			images: []ec2types.Image{
				custom("ami-0good", "2025-03-01T09:30:00.000Z"),
				custom("ami-0broken", "Sat Mar 22 09:30:00 UTC 2025"),
				{ImageId: aws.String("ami-0nodate"), Name: aws.String("x"), Architecture: "x86_64", State: "available"},
				withDeprecation(custom("ami-0baddep", "2025-03-01T09:30:00.000Z"), "soon"),
			},
			want: []brief{{"ami-0good", compat.Custom, Unspecified, "amd64", false}},
			rejected: []rejected{
				{"ami-0baddep", InvalidDeprecationTime}, {"ami-0broken", InvalidCreationDate}, {"ami-0nodate", InvalidCreationDate},
			},
		},
		{
			name: "architectures no EKS node runs, and a missing id",
			images: []ec2types.Image{
				image("ami-01", "x", "i386", "2025-03-01T09:30:00Z"),
				image("ami-02", "x", "x86_64_mac", "2025-03-01T09:30:00Z"),
				image("ami-03", "x", "arm64_mac", "2025-03-01T09:30:00Z"),
				image("ami-04", "x", "", "2025-03-01T09:30:00Z"),
				{Name: aws.String("no-id"), State: "available", Architecture: "x86_64", CreationDate: aws.String("2025-03-01T09:30:00Z")},
			},
			rejected: []rejected{
				{"", MissingID},
				{"ami-01", UnsupportedArchitecture}, {"ami-02", UnsupportedArchitecture},
				{"ami-03", UnsupportedArchitecture}, {"ami-04", UnsupportedArchitecture},
			},
		},
		{
			name:   "AL2: the GPU image serves NVIDIA and Neuron, with one entry each",
			images: al2Images(),
			want: []brief{
				{"ami-0a200000000000003", compat.AL2, NVIDIA, "amd64", false},
				{"ami-0a200000000000003", compat.AL2, Neuron, "amd64", false},
				{"ami-0a200000000000002", compat.AL2, Standard, "arm64", false},
				{"ami-0a200000000000001", compat.AL2, Standard, "amd64", false},
			},
		},
		{
			name:   "AL2023: one variant per image",
			images: al2023Images(),
			want: []brief{
				{"ami-0a230000000000005", compat.AL2023, NVIDIA, "arm64", false},
				{"ami-0a230000000000004", compat.AL2023, Standard, "arm64", false},
				{"ami-0a230000000000003", compat.AL2023, Neuron, "amd64", false},
				{"ami-0a230000000000002", compat.AL2023, NVIDIA, "amd64", false},
				{"ami-0a230000000000001", compat.AL2023, Standard, "amd64", false},
			},
		},
		{
			name:   "Bottlerocket: five entries, the x86_64 standard image also serving Neuron",
			images: bottlerocketImages(),
			want: []brief{
				{"ami-0b000000000000004", compat.Bottlerocket, NVIDIA, "arm64", false},
				{"ami-0b000000000000003", compat.Bottlerocket, NVIDIA, "amd64", false},
				{"ami-0b000000000000002", compat.Bottlerocket, Standard, "arm64", false},
				{"ami-0b000000000000001", compat.Bottlerocket, Standard, "amd64", false},
				{"ami-0b000000000000001", compat.Bottlerocket, Neuron, "amd64", false},
			},
		},
		{
			name: "latest: the newest release wins per variant and architecture",
			images: append(al2023Images(),
				image("ami-0old1", "amazon-eks-node-al2023-x86_64-standard-1.32-v20250317", "x86_64", "2025-03-17T16:40:40.000Z"),
				image("ami-0old2", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250317", "arm64", "2025-03-17T16:44:08.000Z"),
			),
			want: []brief{
				{"ami-0a230000000000005", compat.AL2023, NVIDIA, "arm64", false},
				{"ami-0a230000000000004", compat.AL2023, Standard, "arm64", false},
				{"ami-0a230000000000003", compat.AL2023, Neuron, "amd64", false},
				{"ami-0a230000000000002", compat.AL2023, NVIDIA, "amd64", false},
				{"ami-0a230000000000001", compat.AL2023, Standard, "amd64", false},
			},
		},
		{
			name: "Windows AMIs of different builds are different sets",
			images: []ec2types.Image{
				image("ami-0w19", "Windows_Server-2019-English-Core-EKS_Optimized-1.32-2025.04.14", "x86_64", "2025-04-14T16:10:10.000Z"),
				image("ami-0w22", "Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14", "x86_64", "2025-04-14T16:11:17.000Z"),
			},
			want: []brief{{"ami-0w22", compat.Windows2022, Unspecified, "amd64", false}, {"ami-0w19", compat.Windows2019, Unspecified, "amd64", false}},
		},
		{
			name: "equal dates: the greater name wins the set; then the smaller id",
			images: []ec2types.Image{
				image("ami-0b", "team-a", "x86_64", "2025-03-01T00:00:00Z"),
				image("ami-0a", "team-b", "x86_64", "2025-03-01T00:00:00Z"),
				image("ami-0d", "team-z", "arm64", "2025-03-01T00:00:00+00:00"),
				image("ami-0c", "team-z", "arm64", "2025-03-01T01:00:00+01:00"),
			},
			want: []brief{{"ami-0a", compat.Custom, Unspecified, "amd64", false}, {"ami-0c", compat.Custom, Unspecified, "arm64", false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Select(tt.images, at(fixedNow))
			if diff := cmp.Diff(tt.want, briefs(got.AMIs)); diff != "" {
				t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.rejected, rejections(got.Rejected)); diff != "" {
				t.Errorf("Rejected mismatch (-want +got):\n%s", diff)
			}
			for _, r := range got.Rejected {
				if r.Reason == "" || strings.Contains(r.Reason, "%!") {
					t.Errorf("rejection of %s has a bad reason %q", r.ImageID, r.Reason)
				}
			}
		})
	}
}

func TestSelectAMIFields(t *testing.T) {
	img := image("ami-0a230000000000005", "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403", "arm64", "2025-04-03T18:44:08.5+02:00")
	got := Select([]ec2types.Image{img}, SelectOptions{})
	want := []AMI{{
		ID:           "ami-0a230000000000005",
		Name:         "amazon-eks-node-al2023-arm64-nvidia-1.32-v20250403",
		Arch:         "arm64",
		Family:       compat.AL2023,
		Variant:      NVIDIA,
		Created:      time.Date(2025, 4, 3, 16, 44, 8, 500000000, time.UTC),
		CreationDate: "2025-04-03T18:44:08.5+02:00", // as EC2 gave it
		Release:      "v20250403",
		Requirements: NVIDIA.Requirements().Intersect(compat.FromLabels(map[string]string{compat.LabelArch: "arm64"})),
	}}
	if diff := cmp.Diff(want, got.AMIs, equalRequirements); diff != "" {
		t.Errorf("Select mismatch (-want +got):\n%s", diff)
	}
	if got.AMIs[0].Created.Location() != time.UTC {
		t.Errorf("Created is in %v, want UTC", got.AMIs[0].Created.Location())
	}
}

func TestSelectRejectionReasons(t *testing.T) {
	images := []ec2types.Image{
		withState(image("ami-01", "team-next", "x86_64", "2025-04-01T09:30:00Z"), ec2types.ImageStatePending),
		image("ami-02", "team-mac", "arm64_mac", "2025-04-01T09:30:00Z"),
		image("ami-03", "team-broken", "x86_64", "Sat Mar 22 09:30:00 UTC 2025"),
	}
	want := []Rejection{
		{ImageID: "ami-01", Name: "team-next", Kind: NotAvailable, State: ec2types.ImageStatePending, Reason: `state is "pending", not "available"; only available images can be launched`},
		{ImageID: "ami-02", Name: "team-mac", Kind: UnsupportedArchitecture, Reason: `architecture "arm64_mac" is not supported; EKS nodes run x86_64 or arm64`},
		{ImageID: "ami-03", Name: "team-broken", Kind: InvalidCreationDate, Reason: `CreationDate "Sat Mar 22 09:30:00 UTC 2025" is not an RFC 3339 time, so the image cannot be ordered`},
	}
	if diff := cmp.Diff(want, Select(images, SelectOptions{}).Rejected); diff != "" {
		t.Errorf("Rejected mismatch (-want +got):\n%s", diff)
	}
}

// TestSelectDefaultClock checks that the zero SelectOptions judges
// deprecation against the real clock.
func TestSelectDefaultClock(t *testing.T) {
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	got := Select([]ec2types.Image{
		withDeprecation(image("ami-0past", "a", "x86_64", "2025-01-01T00:00:00Z"), past),
		withDeprecation(image("ami-0future", "b", "arm64", "2025-01-01T00:00:00Z"), future),
	}, SelectOptions{})
	want := []brief{{"ami-0future", compat.Custom, Unspecified, "arm64", false}, {"ami-0past", compat.Custom, Unspecified, "amd64", true}}
	if diff := cmp.Diff(want, briefs(got.AMIs)); diff != "" {
		t.Errorf("AMIs mismatch (-want +got):\n%s", diff)
	}
}

func TestSelectDoesNotModifyInput(t *testing.T) {
	images := append(bottlerocketImages(), withState(image("ami-0p", "p", "x86_64", "2025-01-01T00:00:00Z"), "pending"))
	before := cmp.Diff(nil, images)
	Select(images, at(fixedNow))
	if after := cmp.Diff(nil, images); after != before {
		t.Errorf("Select modified its input")
	}
}

func TestAMIString(t *testing.T) {
	tests := []struct {
		ami  AMI
		want string
	}{
		{AMI{ID: "ami-01", Family: compat.AL2023, Arch: "amd64", Variant: NVIDIA}, "ami-01 (al2023 amd64 nvidia)"},
		{AMI{ID: "ami-02", Arch: "arm64"}, "ami-02 (custom arm64)"},
		{AMI{ID: "ami-03", Family: compat.Windows2022, Arch: "amd64", Deprecated: true}, "ami-03 (windows2022 amd64, deprecated)"},
	}
	for _, tt := range tests {
		if got := tt.ami.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestSelectSuperseded: each image that won no requirement set is listed
// once per set it lost, with the set's winner and the deciding rule.
func TestSelectSuperseded(t *testing.T) {
	type loss struct {
		Loser, Winner string
		Variant       Variant
		Reason        string
	}
	older := image("ami-0old", "amazon-eks-gpu-node-1.32-v20250317", "x86_64", "2025-03-17T10:00:00Z")
	tests := []struct {
		name   string
		images []ec2types.Image
		want   []loss
	}{
		{
			name:   "an older release loses both sets of the accelerated image",
			images: append(al2Images(), older),
			want: []loss{
				{"ami-0old", "ami-0a200000000000003", NVIDIA, "ami-0a200000000000003 is a newer release (v20250403 over v20250317): created 2025-04-03T16:33:51Z, after 2025-03-17T10:00:00Z"},
				{"ami-0old", "ami-0a200000000000003", Neuron, "ami-0a200000000000003 is a newer release (v20250403 over v20250317): created 2025-04-03T16:33:51Z, after 2025-03-17T10:00:00Z"},
			},
		},
		{
			name: "a deprecated image loses to an older one that is not",
			images: []ec2types.Image{
				withDeprecation(image("ami-0new", "team-base-2", "arm64", "2025-05-01T00:00:00Z"), "2025-06-01T00:00:00Z"),
				image("ami-0kept", "team-base-1", "arm64", "2025-01-01T00:00:00Z"),
			},
			want: []loss{{"ami-0new", "ami-0kept", Unspecified, "ami-0new is deprecated and ami-0kept is not"}},
		},
		{
			name: "ties: the greater name, then the smaller ID, then a duplicate",
			images: []ec2types.Image{
				image("ami-0b", "team-base-a", "x86_64", "2025-01-01T00:00:00Z"),
				image("ami-0a", "team-base-b", "x86_64", "2025-01-01T00:00:00Z"),
				image("ami-0c", "team-base-b", "x86_64", "2025-01-01T00:00:00Z"),
				image("ami-0a", "team-base-b", "x86_64", "2025-01-01T00:00:00Z"),
			},
			want: []loss{
				{"ami-0a", "ami-0a", Unspecified, "ami-0a appears more than once in the input; one copy is kept"},
				{"ami-0b", "ami-0a", Unspecified, `both were created 2025-01-01T00:00:00Z; ami-0a's name "team-base-b" sorts after "team-base-a"`},
				{"ami-0c", "ami-0a", Unspecified, "both were created 2025-01-01T00:00:00Z with the same name; ami-0a has the smaller ID"},
			},
		},
		{
			name: "an image that wins one set is not superseded in another",
			images: append(bottlerocketImages(),
				image("ami-0fips", "bottlerocket-aws-k8s-1.32-fips-x86_64-v1.50.0-0123abcd", "x86_64", "2025-11-01T00:00:00Z")),
			want: nil, // ami-0b…01 lost standard to FIPS but still serves Neuron
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []loss
			for _, s := range Select(tt.images, at(fixedNow)).Superseded() {
				got = append(got, loss{s.AMI.ID, s.Winner.ID, s.AMI.Variant, s.Reason()})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Superseded mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
