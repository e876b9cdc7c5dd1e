package ec2fake

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// The public SSM parameters AWS publishes for the EKS-optimized AMIs, derived
// from the names of the Amazon images a Backend holds. Each image feeds a
// "series" directory that always names the newest release (recommended or
// latest) and, for the families that publish them, directories of its own
// release. Names that fit none of the patterns below feed nothing: an AMI
// whose parameter path is not known gets no parameter rather than a guessed
// one.
//
//	AL2023        /aws/service/eks/optimized-ami/K/amazon-linux-2023/ARCH/VARIANT/{recommended,NAME}/...
//	AL2           /aws/service/eks/optimized-ami/K/amazon-linux-2{,-arm64,-gpu}/{recommended,NAME}/...
//	Bottlerocket  /aws/service/bottlerocket/aws-k8s-K{,-nvidia,-fips}/{x86_64,arm64}/{latest,X.Y.Z,X.Y.Z-BUILD}/...
//	Windows       /aws/service/ami-windows-latest/Windows_Server-YEAR-English-{Core,Full}-EKS_Optimized-K/image_id
//
// What each directory holds (publishedNames):
//
//   - AL2 and AL2023: recommended/image_id, recommended/image_name,
//     recommended/release_version, and the JSON parent "recommended" itself
//     (amazon-eks-ami issues #423 and #531: get-parameters-by-path under
//     .../amazon-linux-2/recommended, and the parent's value
//     {"schema_version":"2","image_id":...,"image_name":...,"release_version":...});
//     NAME/image_id for each release (karpenter-provider-aws
//     pkg/providers/amifamily/al2023.go:79, al2.go:46-56 at v1.14.1).
//     release_version ("1.32.3-20250715", as amazon-eks-ami's changelog
//     spells it) comes from the image description's "(k8s: 1.32.3" and the
//     name's day; an image whose description carries no patch version
//     publishes no release_version.
//   - Bottlerocket: image_id and image_version ("1.39.1-fe9ebb75") in every
//     directory (bottlerocket-os/bottlerocket tools/pubsys/policies/ssm/
//     defaults.toml at 91632ff5: "{variant}/{arch}/{image_version}/image_id"
//     and ".../image_version"; PUBLISHING-AWS.md: promotion copies them to
//     "latest"); the X.Y.Z directory is the one Karpenter reads
//     (pkg/providers/amifamily/bottlerocket.go:49-52 at v1.14.1).
//   - Windows: image_id of the newest release only (windows.go:52 at v1.14.1;
//     the EKS user guide, "Retrieve recommended Microsoft Windows AMI IDs").
const (
	eksParameterRoot          = "/aws/service/eks/optimized-ami/"
	bottlerocketParameterRoot = "/aws/service/bottlerocket/"
	windowsParameterRoot      = "/aws/service/ami-windows-latest/"
	publicParameterRoot       = "/aws/service/"
)

// paramField is what a public parameter holds of the image it names.
type paramField uint8

const (
	fieldImageID paramField = iota
	fieldImageName
	fieldReleaseVersion
	fieldRecommended // the AL2/AL2023 JSON parent
	fieldImageVersion
)

type amiFamily uint8

const (
	familyEKS amiFamily = iota + 1
	familyBottlerocket
	familyWindows
)

// amiParameters is what one image's name says about its public parameters.
type amiParameters struct {
	family amiFamily
	series string   // directory of the newest release, ending in "/"
	dirs   []string // directories of this release, each ending in "/"
	arch   ec2types.ArchitectureValues
	// version orders releases within a series: numeric fields compared in
	// turn (a date, or a semantic version's major, minor, patch).
	version []int
	// k8s and day (YYYYMMDD) of an AL2/AL2023 name, for its release version.
	k8s, day string
	// imageVersion is Bottlerocket's "X.Y.Z-BUILD".
	imageVersion string
}

var (
	// amazon-eks-node-al2023-x86_64-standard-1.32-v20250403
	al2023Name = regexp.MustCompile(`^amazon-eks-node-al2023-(x86_64|arm64)-(standard|nvidia|neuron)-([0-9]+\.[0-9]+)-v([0-9]{8})$`)
	// amazon-eks-node-1.32-v20250403, amazon-eks-arm64-node-..., amazon-eks-gpu-node-...
	al2Name = regexp.MustCompile(`^amazon-eks-(arm64-|gpu-)?node-([0-9]+\.[0-9]+)-v([0-9]{8})$`)
	// bottlerocket-aws-k8s-1.32-nvidia-aarch64-v1.49.0-713f44ce
	bottlerocketName = regexp.MustCompile(`^bottlerocket-aws-k8s-([0-9]+\.[0-9]+)(-nvidia|-fips)?-(x86_64|aarch64)-v([0-9]+)\.([0-9]+)\.([0-9]+)-([0-9a-f]{8})$`)
	// Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14
	windowsName = regexp.MustCompile(`^(Windows_Server-(?:2019|2022|2025)-English-(?:Core|Full)-EKS_Optimized-[0-9]+\.[0-9]+)-([0-9]{4})[.-]([0-9]{2})[.-]([0-9]{2})$`)
	// "EKS-optimized Kubernetes node based on Amazon Linux 2023, (k8s: 1.32.3, containerd: 2.*)"
	descriptionK8s = regexp.MustCompile(`\(k8s: ([0-9]+\.[0-9]+)\.([0-9]+)[,)]`)
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

// parseAMIParameters derives the public parameter directories of an EKS
// AMI from its name. ok is false for names of no known family.
func parseAMIParameters(name string) (amiParameters, bool) {
	if m := al2023Name.FindStringSubmatch(name); m != nil {
		dir := eksParameterRoot + m[3] + "/amazon-linux-2023/" + m[1] + "/" + m[2] + "/"
		return amiParameters{family: familyEKS, series: dir + "recommended/", dirs: []string{dir + name + "/"},
			arch: ec2types.ArchitectureValues(m[1]), version: atois(m[4]), k8s: m[3], day: m[4]}, true
	}
	if m := al2Name.FindStringSubmatch(name); m != nil {
		p := al2Paths[m[1]]
		dir := eksParameterRoot + m[2] + "/" + p.dir + "/"
		return amiParameters{family: familyEKS, series: dir + "recommended/", dirs: []string{dir + name + "/"},
			arch: p.arch, version: atois(m[3]), k8s: m[2], day: m[3]}, true
	}
	if m := bottlerocketName.FindStringSubmatch(name); m != nil {
		arch, dirArch := ec2types.ArchitectureValuesX8664, "x86_64"
		if m[3] == "aarch64" {
			arch, dirArch = ec2types.ArchitectureValuesArm64, "arm64"
		}
		dir := bottlerocketParameterRoot + "aws-k8s-" + m[1] + m[2] + "/" + dirArch + "/"
		semver := m[4] + "." + m[5] + "." + m[6]
		return amiParameters{family: familyBottlerocket, series: dir + "latest/", dirs: []string{dir + semver + "/", dir + semver + "-" + m[7] + "/"},
			arch: arch, version: atois(m[4], m[5], m[6]), imageVersion: semver + "-" + m[7]}, true
	}
	if m := windowsName.FindStringSubmatch(name); m != nil {
		return amiParameters{family: familyWindows, series: windowsParameterRoot + m[1] + "/", arch: ec2types.ArchitectureValuesX8664, version: atois(m[2], m[3], m[4])}, true
	}
	return amiParameters{}, false
}

// releaseVersion is an AL2/AL2023 image's release version, "1.32.3-20250715",
// from its description's Kubernetes version, or "" if the description has
// none for the name's minor version.
func (p amiParameters) releaseVersion(description *string) string {
	if p.family != familyEKS || description == nil {
		return ""
	}
	m := descriptionK8s.FindStringSubmatch(*description)
	if m == nil || m[1] != p.k8s {
		return ""
	}
	return m[1] + "." + m[2] + "-" + p.day
}

// publishedName is one public parameter an image feeds.
type publishedName struct {
	name  string
	field paramField
}

// publishedNames lists the parameters an image with these directories
// feeds; rv is its release version ("" if unknown).
func (p amiParameters) publishedNames(rv string) []publishedName {
	switch p.family {
	case familyEKS:
		out := []publishedName{
			{p.series + "image_id", fieldImageID}, {p.series + "image_name", fieldImageName},
			{strings.TrimSuffix(p.series, "/"), fieldRecommended},
		}
		if rv != "" {
			out = append(out, publishedName{p.series + "release_version", fieldReleaseVersion})
		}
		for _, d := range p.dirs {
			out = append(out, publishedName{d + "image_id", fieldImageID})
		}
		return out
	case familyBottlerocket:
		out := make([]publishedName, 0, 2+2*len(p.dirs))
		for _, d := range append([]string{p.series}, p.dirs...) {
			out = append(out, publishedName{d + "image_id", fieldImageID}, publishedName{d + "image_version", fieldImageVersion})
		}
		return out
	}
	return []publishedName{{p.series + "image_id", fieldImageID}}
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
// its name and description once; names are the parameters it feeds. The
// caller holds b.mu for writing.
func (s *storedImage) publishedParameters() (p amiParameters, releaseVersion string, names []publishedName, ok bool) {
	if !mayPublish(&s.img) {
		return amiParameters{}, "", nil, false
	}
	if !s.paramsParsed {
		s.params, s.paramsOK = parseAMIParameters(*s.img.Name)
		s.releaseVersion = s.params.releaseVersion(s.img.Description)
		if s.paramsOK {
			s.published = s.params.publishedNames(s.releaseVersion)
		}
		s.paramsParsed = true
	}
	return s.params, s.releaseVersion, s.published, s.paramsOK && s.img.Architecture == s.params.arch
}

// isPublicParameterPath reports whether a GetParametersByPath path lists
// the public namespace rather than the account's own parameters.
func isPublicParameterPath(path string) bool {
	return strings.HasPrefix(path+"/", publicParameterRoot)
}

// release is one image feeding a public parameter.
type release struct {
	img            *ec2types.Image
	version        []int
	created        time.Time
	releaseVersion string
	imageVersion   string
}

// compareReleases orders releases oldest first, breaking every tie:
// release, then creation date, then image ID.
func compareReleases(a, b release) int {
	if c := compareVersions(a.version, b.version); c != 0 {
		return c
	}
	if c := a.created.Compare(b.created); c != 0 {
		return c
	}
	return strings.Compare(*a.img.ImageId, *b.img.ImageId)
}

// publicParameter is one public parameter and every release it has named,
// oldest first; the last is its value now, and its Version is their count.
type publicParameter struct {
	name     string
	field    paramField
	releases []release
}

// value is what the parameter held when it named r.
func (p *publicParameter) value(r release) string {
	switch p.field {
	case fieldImageName:
		return aws.ToString(r.img.Name)
	case fieldReleaseVersion:
		return r.releaseVersion
	case fieldImageVersion:
		return r.imageVersion
	case fieldRecommended:
		return recommendedJSON(r)
	}
	return *r.img.ImageId
}

// recommendedJSON is the value of the AL2/AL2023 "recommended" parent
// (amazon-eks-ami issue #531).
func recommendedJSON(r release) string {
	doc := struct {
		SchemaVersion  string `json:"schema_version"`
		ImageID        string `json:"image_id"`
		ImageName      string `json:"image_name"`
		ReleaseVersion string `json:"release_version,omitempty"`
	}{"2", *r.img.ImageId, aws.ToString(r.img.Name), r.releaseVersion}
	out, _ := json.Marshal(doc)
	return string(out)
}

// version returns the parameter as it was at version v (1-based), in
// region.
func (p *publicParameter) version(v int, region string) ssmtypes.Parameter {
	r := p.releases[v-1]
	out := ssmtypes.Parameter{
		Name: aws.String(p.name), Value: aws.String(p.value(r)), Type: ssmtypes.ParameterTypeString, DataType: aws.String(parameterDataTypeText),
		Version: int64(v), ARN: aws.String(parameterARN(region, "", p.name, true)),
	}
	if !r.created.IsZero() {
		t := r.created.UTC()
		out.LastModifiedDate = &t
	}
	return out
}

func (p *publicParameter) current(region string) ssmtypes.Parameter {
	return p.version(len(p.releases), region)
}

// publicIndex is every public parameter the backend's images feed, sorted
// by name. It is immutable once built; a Backend rebuilds it on the first
// SSM call after its images change.
type publicIndex struct {
	sorted []*publicParameter
	byName map[string]*publicParameter
}

func buildPublicIndex(images []*storedImage) *publicIndex {
	idx := &publicIndex{byName: map[string]*publicParameter{}}
	for _, s := range images {
		p, rv, names, ok := s.publishedParameters()
		if !ok {
			continue
		}
		r := release{img: &s.img, version: p.version, releaseVersion: rv, imageVersion: p.imageVersion}
		if s.img.CreationDate != nil {
			r.created, _ = time.Parse(time.RFC3339, *s.img.CreationDate)
		}
		for _, n := range names {
			pp := idx.byName[n.name]
			if pp == nil {
				pp = &publicParameter{name: n.name, field: n.field}
				idx.byName[n.name] = pp
				idx.sorted = append(idx.sorted, pp)
			}
			pp.releases = append(pp.releases, r)
		}
	}
	for _, pp := range idx.sorted {
		slices.SortFunc(pp.releases, compareReleases)
	}
	slices.SortFunc(idx.sorted, func(x, y *publicParameter) int { return strings.Compare(x.name, y.name) })
	return idx
}
