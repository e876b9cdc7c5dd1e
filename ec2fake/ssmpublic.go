package ec2fake

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// The public SSM parameters AWS publishes for the EKS-optimized AMIs, derived
// from the names of the Amazon images a Backend holds. Each image feeds a
// "series" parameter that always names the newest release (recommended or
// latest) and, for the families that publish one, a parameter for its own
// release. Names that fit none of the patterns below feed nothing: an AMI
// whose parameter path is not known gets no parameter rather than a guessed
// one.
//
//	AL2023        /aws/service/eks/optimized-ami/K/amazon-linux-2023/ARCH/VARIANT/{recommended,NAME}/image_id
//	AL2           /aws/service/eks/optimized-ami/K/amazon-linux-2{,-arm64,-gpu}/{recommended,NAME}/image_id
//	Bottlerocket  /aws/service/bottlerocket/aws-k8s-K{,-nvidia,-fips}/{x86_64,arm64}/{latest,X.Y.Z}/image_id
//	Windows       /aws/service/ami-windows-latest/Windows_Server-YEAR-English-{Core,Full}-EKS_Optimized-K/image_id
const (
	eksParameterRoot          = "/aws/service/eks/optimized-ami/"
	bottlerocketParameterRoot = "/aws/service/bottlerocket/"
	windowsParameterRoot      = "/aws/service/ami-windows-latest/"
	publicParameterRoot       = "/aws/service/"
)

// amiParameters is what one image's name says about its public parameters.
type amiParameters struct {
	series  string // recommended/latest parameter name
	release string // per-release parameter name; "" when the family publishes none
	arch    ec2types.ArchitectureValues
	// version orders releases within a series: numeric fields compared in
	// turn (a date, or a semantic version's major, minor, patch).
	version []int
}

var (
	// amazon-eks-node-al2023-x86_64-standard-1.32-v20250403
	al2023Name = regexp.MustCompile(`^amazon-eks-node-al2023-(x86_64|arm64)-(standard|nvidia|neuron)-([0-9]+\.[0-9]+)-v([0-9]{8})$`)
	// amazon-eks-node-1.32-v20250403, amazon-eks-arm64-node-..., amazon-eks-gpu-node-...
	al2Name = regexp.MustCompile(`^amazon-eks-(arm64-|gpu-)?node-([0-9]+\.[0-9]+)-v([0-9]{8})$`)
	// bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce
	bottlerocketName = regexp.MustCompile(`^bottlerocket-aws-k8s-([0-9]+\.[0-9]+)(-nvidia|-fips)?-(x86_64|aarch64)-v([0-9]+)\.([0-9]+)\.([0-9]+)-[0-9a-f]{8}$`)
	// Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14
	windowsName = regexp.MustCompile(`^(Windows_Server-(?:2019|2022|2025)-English-(?:Core|Full)-EKS_Optimized-[0-9]+\.[0-9]+)-([0-9]{4})\.([0-9]{2})\.([0-9]{2})$`)
)

// al2Paths maps the AL2 name prefix to its parameter directory and
// architecture (karpenter-provider-aws pkg/providers/amifamily/al2.go).
var al2Paths = map[string]struct {
	dir  string
	arch ec2types.ArchitectureValues
}{
	"":       {"amazon-linux-2", ec2types.ArchitectureValuesX8664},
	"arm64-": {"amazon-linux-2-arm64", ec2types.ArchitectureValuesArm64},
	"gpu-":   {"amazon-linux-2-gpu", ec2types.ArchitectureValuesX8664},
}

// parseAMIParameters derives the public parameter names of an EKS AMI from
// its name. ok is false for names of no known family.
func parseAMIParameters(name string) (amiParameters, bool) {
	if m := al2023Name.FindStringSubmatch(name); m != nil {
		dir := eksParameterRoot + m[3] + "/amazon-linux-2023/" + m[1] + "/" + m[2] + "/"
		return amiParameters{
			series: dir + "recommended/image_id", release: dir + name + "/image_id",
			arch: ec2types.ArchitectureValues(m[1]), version: atois(m[4]),
		}, true
	}
	if m := al2Name.FindStringSubmatch(name); m != nil {
		p := al2Paths[m[1]]
		dir := eksParameterRoot + m[2] + "/" + p.dir + "/"
		return amiParameters{series: dir + "recommended/image_id", release: dir + name + "/image_id", arch: p.arch, version: atois(m[3])}, true
	}
	if m := bottlerocketName.FindStringSubmatch(name); m != nil {
		arch := ec2types.ArchitectureValuesX8664
		dirArch := "x86_64"
		if m[3] == "aarch64" {
			arch, dirArch = ec2types.ArchitectureValuesArm64, "arm64"
		}
		dir := bottlerocketParameterRoot + "aws-k8s-" + m[1] + m[2] + "/" + dirArch + "/"
		semver := m[4] + "." + m[5] + "." + m[6]
		return amiParameters{
			series: dir + "latest/image_id", release: dir + semver + "/image_id",
			arch: arch, version: atois(m[4], m[5], m[6]),
		}, true
	}
	if m := windowsName.FindStringSubmatch(name); m != nil {
		return amiParameters{series: windowsParameterRoot + m[1] + "/image_id", arch: ec2types.ArchitectureValuesX8664, version: atois(m[2], m[3], m[4])}, true
	}
	return amiParameters{}, false
}

// atois converts fields the patterns above guarantee to be short digit runs.
func atois(fields ...string) []int {
	out := make([]int, len(fields))
	for i, f := range fields {
		out[i], _ = strconv.Atoi(f)
	}
	return out
}

func compareVersions(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// publishesParameters reports whether img is an image AWS would publish
// parameters for: public, owned by Amazon, available, and of the
// architecture its name says.
func publishesParameters(img *ec2types.Image) (amiParameters, bool) {
	if !mayPublish(img) {
		return amiParameters{}, false
	}
	p, ok := parseAMIParameters(*img.Name)
	return p, ok && img.Architecture == p.arch
}

func mayPublish(img *ec2types.Image) bool {
	return img.Public != nil && *img.Public && img.ImageOwnerAlias != nil && *img.ImageOwnerAlias == "amazon" &&
		img.State == ec2types.ImageStateAvailable && img.Name != nil
}

// publishedParameters is publishesParameters for a stored image, parsing
// its name once. The caller holds b.mu for writing.
func (s *storedImage) publishedParameters() (amiParameters, bool) {
	if !mayPublish(&s.img) {
		return amiParameters{}, false
	}
	if !s.paramsParsed {
		s.params, s.paramsOK = parseAMIParameters(*s.img.Name)
		s.paramsParsed = true
	}
	return s.params, s.paramsOK && s.img.Architecture == s.params.arch
}

// isPublicParameterPath reports whether a GetParametersByPath path lists
// the public namespace rather than the account's own parameters.
func isPublicParameterPath(path string) bool {
	return strings.HasPrefix(path+"/", publicParameterRoot)
}
