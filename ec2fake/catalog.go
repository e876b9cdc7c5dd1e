package ec2fake

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
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

//go:embed catalog/images.json
var catalogImages []byte

//go:embed catalog/instance_types.json
var catalogInstanceTypes []byte

// DefaultCatalog returns the embedded catalog, freshly decoded on every call
// so callers may modify what they get. The data is written in the AWS CLI's
// output shape (aws ec2 describe-images / describe-instance-types), which
// encoding/json decodes straight into the SDK types. See the package
// documentation for its contents.
func DefaultCatalog() ([]ec2types.Image, []ec2types.InstanceTypeInfo) {
	var images struct{ Images []ec2types.Image }
	var types struct{ InstanceTypes []ec2types.InstanceTypeInfo }
	if err := decodeStrict(catalogImages, &images); err != nil {
		panic(fmt.Sprintf("ec2fake: embedded catalog/images.json: %v", err)) // guarded by TestCatalogLoads
	}
	if err := decodeStrict(catalogInstanceTypes, &types); err != nil {
		panic(fmt.Sprintf("ec2fake: embedded catalog/instance_types.json: %v", err)) // guarded by TestCatalogLoads
	}
	return images.Images, types.InstanceTypes
}

// decodeStrict rejects unknown fields, so a misspelt key in the catalog
// fails the tests instead of silently dropping a fact.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
