package ec2fake

import (
	_ "embed"
	"fmt"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/ec2fake/internal/catalogfile"
)

// Owners of the catalog's public AMIs in us-east-1. All three carry the
// owner alias "amazon", so Owners: ["amazon"] finds them.
const (
	// EKSOwnerID owns the EKS-optimized Amazon Linux 2 and 2023 AMIs.
	EKSOwnerID = "602401143452"
	// BottlerocketOwnerID owns the Bottlerocket AMIs.
	BottlerocketOwnerID = "092701018921"
	// WindowsOwnerID owns the EKS-optimized Windows Server AMIs.
	WindowsOwnerID = "801119661308"
)

// The catalog's custom AMIs: the "team-base-al2023" family owned by
// DefaultAccountID (private), tagged team=platform and
// image-family=team-base-al2023, each reproducing a failure seen in the field.
const (
	// ImageTeamBaseAvailable (team-base-al2023-20250301, x86_64) is the
	// only image of the family a correct selector may pick for x86_64.
	ImageTeamBaseAvailable = "ami-0c0ffee0000000301"
	// ImageTeamBaseArm64 (team-base-al2023-arm64-20250310) is the family's
	// available arm64 image.
	ImageTeamBaseArm64 = "ami-0c0ffee0000000310"
	// ImageTeamBaseDeprecated (team-base-al2023-20250315) is available and
	// newer than ImageTeamBaseAvailable but was deprecated on
	// 2025-06-01T00:00:00Z: a selector must prefer the older image.
	ImageTeamBaseDeprecated = "ami-0c0ffee0000000315"
	// ImageTeamBasePending (team-base-al2023-20250401) is the newest image
	// of the family and still "pending": Packer is building it
	// (karpenter-provider-aws #7652). It must never be selected.
	ImageTeamBasePending = "ami-0c0ffee0000000401"
	// ImageTeamBaseMalformedDate (team-base-al2023-broken) is available but
	// its CreationDate is in time.UnixDate form ("Sat Mar 22 09:30:00 UTC
	// 2025"), not ISO 8601. Parsing it with time.RFC3339 fails; code that
	// panics on that (lo.Must) crashes.
	ImageTeamBaseMalformedDate = "ami-0c0ffee0000000322"
	// ImageTeamBaseDisabled (team-base-al2023-20250201) is in state
	// "disabled"; DescribeImages hides it unless IncludeDisabled is set.
	ImageTeamBaseDisabled = "ami-0c0ffee0000000201"
)

//go:generate go run ./internal/gencatalog -page catalog/upstream/karpenter-v1.14-instance-types.md -base-types catalog/upstream/first-wave-instance-types.json -base-images catalog/upstream/first-wave-images.json -image-spec catalog/upstream/images.spec -history catalog/upstream -out catalog -network catalog/upstream/moto-instance-types-network.jsonl -nodeadm ../capacity/upstream/al2023-instance-info.txt -vpc-limits catalog/upstream/karpenter-v1.14.1-vpc-limits.tsv -eni-max-pods ../capacity/upstream/al2-eni-max-pods.txt

//go:embed catalog/images.tsv
var catalogImages string

//go:embed catalog/instance_types.tsv
var catalogInstanceTypes string

//go:embed catalog/images_full.tsv
var catalogImagesFull string

// DefaultCatalog returns the embedded catalog: every instance type in
// Karpenter's generated instance-types reference (v1.14) and the public
// EKS AMIs for every Kubernetes version EKS supports on 2026-11-22, plus
// the custom images named by the Image* constants. Nothing is decoded
// until the first call, and every call decodes afresh (decoding is faster
// than deep-copying a cached copy), so callers may modify what they get.
// Provenance, and which facts are synthetic: catalog/README.md.
func DefaultCatalog() ([]ec2types.Image, []ec2types.InstanceTypeInfo) {
	images, err := catalogfile.DecodeImages(catalogImages)
	if err != nil {
		panic(fmt.Sprintf("ec2fake: embedded catalog/images.tsv: %v", err)) // guarded by TestCatalogLoads
	}
	types, err := catalogfile.DecodeTypes(catalogInstanceTypes)
	if err != nil {
		panic(fmt.Sprintf("ec2fake: embedded catalog/instance_types.tsv: %v", err)) // guarded by TestCatalogLoads
	}
	return images, types
}

// FullCatalog returns the embedded full history: every EKS AMI release
// recorded in the projects' changelogs and release notes for Kubernetes
// 1.29 to 1.36 — AL2023 and AL2 (amazon-eks-ami's changelog, complete to
// v20260714), Bottlerocket (v1.18.0 to v1.61.0) and Windows (every release
// the EKS user guide lists for Server 2019 and 2022 up to 2026.01.22, and
// Server 2025 Core for 1.35) — each in every variant and architecture it shipped in, with
// real names and release days; plus the custom images named by the Image*
// constants and the same instance types as DefaultCatalog. Releases pinned
// in published manifests (al2023@v20240625, al2023@v20250715,
// bottlerocket@v1.39.1) resolve against it. It is about ten times the size
// of DefaultCatalog, which stays the small, fast default; like it, every
// call decodes afresh. Coverage, and which facts are synthetic:
// catalog/README.md.
func FullCatalog() ([]ec2types.Image, []ec2types.InstanceTypeInfo) {
	images, err := catalogfile.DecodeImages(catalogImagesFull)
	if err != nil {
		panic(fmt.Sprintf("ec2fake: embedded catalog/images_full.tsv: %v", err)) // guarded by TestFullCatalogLoads
	}
	types, err := catalogfile.DecodeTypes(catalogInstanceTypes)
	if err != nil {
		panic(fmt.Sprintf("ec2fake: embedded catalog/instance_types.tsv: %v", err)) // guarded by TestCatalogLoads
	}
	return images, types
}
