package ec2fake

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

func TestCatalogLoads(t *testing.T) {
	images, types := DefaultCatalog()
	if len(images) != 60 {
		t.Errorf("catalog has %d images; want 60", len(images))
	}
	if len(types) < 80 {
		t.Errorf("catalog has %d instance types; want at least 80", len(types))
	}
	if err := New(Options{}).Load(images, types); err != nil {
		t.Fatalf("the catalog does not load: %v", err)
	}
	// Every call decodes afresh.
	images[0].Name = aws.String("changed")
	again, _ := DefaultCatalog()
	if *again[0].Name == "changed" {
		t.Error("DefaultCatalog returned shared memory")
	}
}

func catalogByName(t *testing.T) map[string]ec2types.Image {
	t.Helper()
	images, _ := DefaultCatalog()
	out := map[string]ec2types.Image{}
	for _, img := range images {
		if _, dup := out[*img.Name]; dup {
			t.Fatalf("image name %q appears twice", *img.Name)
		}
		out[*img.Name] = img
	}
	return out
}

// The EKS families publish these variants for Kubernetes 1.31 and 1.32, and
// only these: AL2 has no arm64 GPU AMI; AL2023 publishes arm64 NVIDIA only
// from release v20250403; Bottlerocket has NVIDIA variants for both
// architectures.
func TestCatalogPublicImageNames(t *testing.T) {
	var want []string
	for _, k := range []string{"1.31", "1.32"} {
		for _, rel := range []string{"v20250317", "v20250403"} {
			want = append(want,
				"amazon-eks-node-"+k+"-"+rel, "amazon-eks-arm64-node-"+k+"-"+rel, "amazon-eks-gpu-node-"+k+"-"+rel,
				"amazon-eks-node-al2023-x86_64-standard-"+k+"-"+rel, "amazon-eks-node-al2023-x86_64-nvidia-"+k+"-"+rel,
				"amazon-eks-node-al2023-x86_64-neuron-"+k+"-"+rel, "amazon-eks-node-al2023-arm64-standard-"+k+"-"+rel)
			if rel >= "v20250403" {
				want = append(want, "amazon-eks-node-al2023-arm64-nvidia-"+k+"-"+rel)
			}
		}
		for _, rel := range []string{"v1.42.0-5ed15786", "v1.49.0-713f44ce"} {
			for _, arch := range []string{"x86_64", "aarch64"} {
				want = append(want, "bottlerocket-aws-k8s-"+k+"-"+arch+"-"+rel, "bottlerocket-aws-k8s-"+k+"-nvidia-"+arch+"-"+rel)
			}
		}
		for _, rel := range []string{"2025.03.12", "2025.04.14"} {
			for _, ws := range []string{"2019", "2022"} {
				want = append(want, "Windows_Server-"+ws+"-English-Core-EKS_Optimized-"+k+"-"+rel)
			}
		}
	}
	slices.Sort(want)
	var got []string
	for name, img := range catalogByName(t) {
		if aws.ToBool(img.Public) {
			got = append(got, name)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("public images (-want +got):\n%s", diff)
	}
}

func TestCatalogImageAttributes(t *testing.T) {
	archOf := regexp.MustCompile(`(^amazon-eks-arm64-|-arm64-|-aarch64-)`)
	for name, img := range catalogByName(t) {
		wantArch := ec2types.ArchitectureValuesX8664
		if archOf.MatchString(name) {
			wantArch = ec2types.ArchitectureValuesArm64
		}
		if img.Architecture != wantArch {
			t.Errorf("%s: architecture %s; want %s", name, img.Architecture, wantArch)
		}
		if img.ImageType != "machine" || img.VirtualizationType != "hvm" {
			t.Errorf("%s: image type %q, virtualization %q; want machine and hvm", name, img.ImageType, img.VirtualizationType)
		}
		wantPlatform := ec2types.PlatformValues("")
		if strings.HasPrefix(name, "Windows_") {
			// DescribeImages reports "windows" in lower case, unlike the
			// SDK's PlatformValuesWindows ("Windows") used elsewhere.
			wantPlatform = "windows"
		}
		if img.Platform != wantPlatform {
			t.Errorf("%s: platform %q; want %q", name, img.Platform, wantPlatform)
		}
		var wantOwner string
		switch {
		case strings.HasPrefix(name, "amazon-eks-"):
			wantOwner = EKSOwnerID
		case strings.HasPrefix(name, "bottlerocket-"):
			wantOwner = BottlerocketOwnerID
		case strings.HasPrefix(name, "Windows_"):
			wantOwner = WindowsOwnerID
		default:
			wantOwner = DefaultAccountID
		}
		if aws.ToString(img.OwnerId) != wantOwner {
			t.Errorf("%s: owner %s; want %s", name, aws.ToString(img.OwnerId), wantOwner)
		}
		public := wantOwner != DefaultAccountID
		if aws.ToBool(img.Public) != public || (aws.ToString(img.ImageOwnerAlias) == "amazon") != public {
			t.Errorf("%s: public %v, alias %q; want public=%v with alias amazon exactly for the public images", name, aws.ToBool(img.Public), aws.ToString(img.ImageOwnerAlias), public)
		}
	}
}

func TestCatalogCreationDates(t *testing.T) {
	for name, img := range catalogByName(t) {
		_, err := time.Parse(time.RFC3339, aws.ToString(img.CreationDate))
		if *img.ImageId == ImageTeamBaseMalformedDate {
			if err == nil {
				t.Errorf("%s: the deliberately malformed date %q parses", name, *img.CreationDate)
			}
			if _, err := time.Parse(time.UnixDate, *img.CreationDate); err != nil {
				t.Errorf("%s: %q is not in time.UnixDate form: %v", name, *img.CreationDate, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: creation date %q does not parse: %v", name, aws.ToString(img.CreationDate), err)
		}
		if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(*img.CreationDate) {
			t.Errorf("%s: creation date %q is not in EC2's format (2024-11-13T21:04:43.000Z)", name, *img.CreationDate)
		}
	}
}

// Within each Bottlerocket release the NVIDIA image is a few minutes newer
// than the standard image of the same architecture, which is what makes
// "newest first" pick the NVIDIA AMI (karpenter-provider-aws #7925).
func TestCatalogBottlerocketNvidiaIsNewer(t *testing.T) {
	byName := catalogByName(t)
	checked := 0
	for name, img := range byName {
		if !strings.HasPrefix(name, "bottlerocket-") || strings.Contains(name, "-nvidia-") {
			continue
		}
		nvidia, ok := byName[strings.Replace(name, "-x86_64-", "-nvidia-x86_64-", 1)]
		if strings.Contains(name, "-aarch64-") {
			nvidia, ok = byName[strings.Replace(name, "-aarch64-", "-nvidia-aarch64-", 1)]
		}
		if !ok {
			t.Fatalf("%s has no NVIDIA counterpart", name)
		}
		std, _ := time.Parse(time.RFC3339, *img.CreationDate)
		nv, _ := time.Parse(time.RFC3339, *nvidia.CreationDate)
		if d := nv.Sub(std); d <= 0 || d > 15*time.Minute {
			t.Errorf("%s: NVIDIA image is %v newer; want a few minutes", name, d)
		}
		checked++
	}
	if checked != 8 {
		t.Errorf("checked %d Bottlerocket pairs; want 8", checked)
	}
}

func TestCatalogCustomImages(t *testing.T) {
	b := NewWithCatalog(Options{Now: func() time.Time { return testNow }})
	tests := []struct {
		id          string
		name        string
		state       ec2types.ImageState
		arch        ec2types.ArchitectureValues
		deprecated  bool
		creationISO string
	}{
		{ImageTeamBaseDisabled, "team-base-al2023-20250201", "disabled", "x86_64", false, "2025-02-01T09:30:00.000Z"},
		{ImageTeamBaseAvailable, "team-base-al2023-20250301", "available", "x86_64", false, "2025-03-01T09:30:00.000Z"},
		{ImageTeamBaseArm64, "team-base-al2023-arm64-20250310", "available", "arm64", false, "2025-03-10T09:30:00.000Z"},
		{ImageTeamBaseDeprecated, "team-base-al2023-20250315", "available", "x86_64", true, "2025-03-15T09:30:00.000Z"},
		{ImageTeamBaseMalformedDate, "team-base-al2023-broken", "available", "x86_64", false, ""},
		{ImageTeamBasePending, "team-base-al2023-20250401", "pending", "x86_64", false, "2025-04-01T09:30:00.000Z"},
	}
	for _, tc := range tests {
		img, ok := b.Image(tc.id)
		if !ok {
			t.Fatalf("%s (%s) is not in the catalog", tc.id, tc.name)
		}
		s := &storedImage{}
		if img.DeprecationTime != nil {
			s.deprecatesAt, _ = time.Parse(time.RFC3339, *img.DeprecationTime)
			s.hasDeprecated = true
		}
		if *img.Name != tc.name || img.State != tc.state || img.Architecture != tc.arch || s.deprecated(testNow) != tc.deprecated ||
			(tc.creationISO != "" && *img.CreationDate != tc.creationISO) || aws.ToBool(img.Public) {
			t.Errorf("%s: name %s, state %s, arch %s, deprecated %v, created %s, public %v; want %+v",
				tc.id, *img.Name, img.State, img.Architecture, s.deprecated(testNow), *img.CreationDate, aws.ToBool(img.Public), tc)
		}
	}
}

// Published specs, spot-checked: karpenter-provider-aws instance-types.md
// (generated from DescribeInstanceTypes), its fake's generated
// DescribeInstanceTypes output, and aws-cli #9659 for g6f.
func TestCatalogInstanceTypeFacts(t *testing.T) {
	_, types := DefaultCatalog()
	byName := map[string]ec2types.InstanceTypeInfo{}
	for _, info := range types {
		byName[string(info.InstanceType)] = info
	}
	type fact struct {
		vcpu       int32
		memMiB     int64
		arch       string
		manuf      string
		ghz        float64
		hypervisor string
		gpuCount   int32
		gpuName    string
		gpuMfr     string
		gpuMemMiB  int32
		nvmeGB     int64
		ebsMbps    int32
		eit        bool
	}
	facts := map[string]fact{
		"m5.large":          {2, 8192, "x86_64", "Intel", 3.1, "nitro", 0, "", "", 0, 0, 4750, false},
		"m5.metal":          {96, 393216, "x86_64", "Intel", 3.1, "", 0, "", "", 0, 0, 19000, false},
		"c5.12xlarge":       {48, 98304, "x86_64", "Intel", 3.6, "nitro", 0, "", "", 0, 0, 9500, false},
		"r5.large":          {2, 16384, "x86_64", "Intel", 3.1, "nitro", 0, "", "", 0, 0, 4750, false},
		"m6i.large":         {2, 8192, "x86_64", "Intel", 3.5, "nitro", 0, "", "", 0, 0, 10000, true},
		"c6g.metal":         {64, 131072, "arm64", "AWS", 2.5, "", 0, "", "", 0, 0, 19000, false},
		"m7g.2xlarge":       {8, 32768, "arm64", "AWS", 2.6, "nitro", 0, "", "", 0, 0, 10000, true},
		"c7i-flex.large":    {2, 4096, "x86_64", "Intel", 3.2, "nitro", 0, "", "", 0, 0, 10000, true},
		"m7i-flex.16xlarge": {64, 262144, "x86_64", "Intel", 3.2, "nitro", 0, "", "", 0, 0, 20000, true},
		"t3.micro":          {2, 1024, "x86_64", "Intel", 2.5, "nitro", 0, "", "", 0, 0, 2085, false},
		"t4g.medium":        {2, 4096, "arm64", "AWS", 2.5, "nitro", 0, "", "", 0, 0, 2085, false},
		"a1.metal":          {16, 32768, "arm64", "AWS", 2.3, "", 0, "", "", 0, 0, 3500, false},
		"g4dn.xlarge":       {4, 16384, "x86_64", "Intel", 2.5, "nitro", 1, "T4", "NVIDIA", 16384, 125, 3500, true},
		"g5.48xlarge":       {192, 786432, "x86_64", "AMD", 3.3, "nitro", 8, "A10G", "NVIDIA", 22888, 7600, 19000, true},
		"g6.xlarge":         {4, 16384, "x86_64", "AMD", 3.4, "nitro", 1, "L4", "NVIDIA", 22888, 250, 5000, true},
		"g6f.xlarge":        {4, 16384, "x86_64", "AMD", 3.4, "nitro", 0, "L4", "NVIDIA", 2861, 100, 5000, true},
		"g5g.xlarge":        {4, 8192, "arm64", "AWS", 2.5, "nitro", 1, "T4g", "NVIDIA", 16384, 0, 4750, false},
		"g4ad.16xlarge":     {64, 262144, "x86_64", "AMD", 3.0, "nitro", 4, "Radeon Pro V520", "AMD", 8192, 2400, 6300, true},
		"dl1.24xlarge":      {96, 786432, "x86_64", "Intel", 3.0, "nitro", 8, "Gaudi HL-205", "Habana", 32768, 4000, 19000, true},
		"p4d.24xlarge":      {96, 1179648, "x86_64", "Intel", 3.0, "nitro", 8, "A100", "NVIDIA", 40960, 8000, 19000, true},
		"p5.48xlarge":       {192, 2097152, "x86_64", "AMD", 3.6, "nitro", 8, "H100", "NVIDIA", 81920, 30400, 80000, true},
		"p5.4xlarge":        {16, 262144, "x86_64", "AMD", 3.6, "nitro", 0, "H100", "NVIDIA", 81920, 3800, 10000, true},
		"inf1.xlarge":       {4, 8192, "x86_64", "Intel", 2.5, "nitro", 0, "", "", 0, 0, 4750, true},
		"inf2.xlarge":       {4, 16384, "x86_64", "AMD", 3.6, "nitro", 0, "", "", 0, 0, 10000, true},
		"trn1.32xlarge":     {128, 524288, "x86_64", "Intel", 3.5, "nitro", 0, "", "", 0, 7600, 80000, true},
		"t2.micro":          {1, 1024, "x86_64", "Intel", 2.5, "xen", 0, "", "", 0, 0, 0, false},
	}
	for name, want := range facts {
		info, ok := byName[name]
		if !ok {
			t.Errorf("%s is not in the catalog", name)
			continue
		}
		got := fact{
			vcpu: aws.ToInt32(info.VCpuInfo.DefaultVCpus), memMiB: aws.ToInt64(info.MemoryInfo.SizeInMiB),
			arch:  string(info.ProcessorInfo.SupportedArchitectures[len(info.ProcessorInfo.SupportedArchitectures)-1]),
			manuf: aws.ToString(info.ProcessorInfo.Manufacturer), ghz: aws.ToFloat64(info.ProcessorInfo.SustainedClockSpeedInGhz),
			hypervisor: string(info.Hypervisor), eit: aws.ToBool(info.NetworkInfo.EncryptionInTransitSupported),
		}
		if g := info.GpuInfo; g != nil {
			got.gpuCount, got.gpuName, got.gpuMfr = aws.ToInt32(g.Gpus[0].Count), aws.ToString(g.Gpus[0].Name), aws.ToString(g.Gpus[0].Manufacturer)
			got.gpuMemMiB = aws.ToInt32(g.Gpus[0].MemoryInfo.SizeInMiB)
		}
		if s := info.InstanceStorageInfo; s != nil {
			got.nvmeGB = aws.ToInt64(s.TotalSizeInGB)
		}
		if e := info.EbsInfo.EbsOptimizedInfo; e != nil {
			got.ebsMbps = aws.ToInt32(e.MaximumBandwidthInMbps)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(fact{})); diff != "" {
			t.Errorf("%s (-published +catalog):\n%s", name, diff)
		}
		if got.hypervisor == "" != aws.ToBool(info.BareMetal) {
			t.Errorf("%s: bare metal %v with hypervisor %q", name, aws.ToBool(info.BareMetal), got.hypervisor)
		}
	}
}

func TestCatalogInstanceTypeFamilies(t *testing.T) {
	_, types := DefaultCatalog()
	sizes := map[string][]string{}
	for _, info := range types {
		family, size, _ := strings.Cut(string(info.InstanceType), ".")
		sizes[family] = append(sizes[family], size)
	}
	flex := []string{"12xlarge", "16xlarge", "2xlarge", "4xlarge", "8xlarge", "large", "xlarge"}
	for _, family := range []string{"c7i-flex", "m7i-flex"} {
		got := slices.Sorted(slices.Values(sizes[family]))
		if diff := cmp.Diff(flex, got); diff != "" {
			t.Errorf("%s sizes (-every published size +catalog):\n%s", family, diff)
		}
	}
	for _, family := range []string{"m5", "c5", "r5", "m6i", "c6i", "r6i", "m6g", "c6g", "r6g", "m7i", "c7i", "r7i", "m7g", "c7g", "r7g",
		"t3", "t4g", "a1", "g4dn", "g5", "g6", "g6f", "p4d", "p5", "g5g", "g4ad", "dl1", "inf1", "inf2", "trn1", "mac1", "mac2", "t2"} {
		if len(sizes[family]) == 0 {
			t.Errorf("family %s is missing", family)
		}
	}
	var metal int
	for family, ss := range sizes {
		for _, s := range ss {
			if strings.HasPrefix(s, "metal") && family != "mac1" && family != "mac2" {
				metal++
			}
		}
	}
	if metal < 10 {
		t.Errorf("only %d bare-metal sizes outside mac", metal)
	}
}

func TestCatalogSpecialInstanceTypes(t *testing.T) {
	_, types := DefaultCatalog()
	byName := map[string]ec2types.InstanceTypeInfo{}
	for _, info := range types {
		byName[string(info.InstanceType)] = info
	}
	// EC2 reports a GPU count of 0 for fractional GPUs, with the logical
	// count beside it (karpenter-provider-aws #8368, aws-cli #9659).
	for name, part := range map[string]float64{"g6f.xlarge": 0.125, "g6f.2xlarge": 0.25, "g6f.4xlarge": 0.5} {
		g := byName[name].GpuInfo.Gpus[0]
		if aws.ToInt32(g.Count) != 0 || aws.ToInt32(g.LogicalGpuCount) != 1 || aws.ToFloat64(g.GpuPartitionSize) != part {
			t.Errorf("%s: count %d, logical %d, partition %v; want 0, 1, %v", name, aws.ToInt32(g.Count), aws.ToInt32(g.LogicalGpuCount), aws.ToFloat64(g.GpuPartitionSize), part)
		}
	}
	if got := byName["mac1.metal"].ProcessorInfo.SupportedArchitectures; !slices.Equal(got, []ec2types.ArchitectureType{"x86_64_mac"}) {
		t.Errorf("mac1.metal architectures %v", got)
	}
	if got := byName["mac2.metal"].ProcessorInfo.SupportedArchitectures; !slices.Equal(got, []ec2types.ArchitectureType{"arm64_mac"}) {
		t.Errorf("mac2.metal architectures %v", got)
	}
	if got := byName["t2.micro"].ProcessorInfo.SupportedArchitectures; !slices.Equal(got, []ec2types.ArchitectureType{"i386", "x86_64"}) {
		t.Errorf("t2.micro architectures %v", got)
	}
	if n := byName["inf1.xlarge"]; n.InferenceAcceleratorInfo == nil || aws.ToString(n.InferenceAcceleratorInfo.Accelerators[0].Name) != "Inferentia" || n.NeuronInfo == nil {
		t.Errorf("inf1.xlarge lacks its Inferentia accelerator")
	}
	for _, name := range []string{"inf2.xlarge", "trn1.2xlarge"} {
		if n := byName[name]; n.NeuronInfo == nil || n.GpuInfo != nil || n.InferenceAcceleratorInfo != nil {
			t.Errorf("%s: want Neuron devices only", name)
		}
	}
}

// Every catalog item must reach an SDK client over HTTP exactly as it is in
// process.
func TestCatalogSurvivesHTTP(t *testing.T) {
	p := newPair(t, NewWithCatalog(Options{Now: func() time.Time { return testNow }}))
	out, err := describeImagesBoth(t, p, &ec2.DescribeImagesInput{IncludeDeprecated: aws.Bool(true), IncludeDisabled: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	images, types := DefaultCatalog()
	slices.SortFunc(images, func(a, b ec2types.Image) int { return strings.Compare(*a.ImageId, *b.ImageId) })
	if diff := cmp.Diff(images, out.Images, ignoreUnexported); diff != "" {
		t.Errorf("catalog images as described (-catalog +described):\n%s", diff)
	}
	var got []ec2types.InstanceTypeInfo
	in := &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(100)}
	for {
		page, err := describeTypesBoth(t, p, in)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.InstanceTypes...)
		if page.NextToken == nil {
			break
		}
		in.NextToken = page.NextToken
	}
	slices.SortFunc(types, func(a, b ec2types.InstanceTypeInfo) int {
		return strings.Compare(string(a.InstanceType), string(b.InstanceType))
	})
	if diff := cmp.Diff(types, got, ignoreUnexported); diff != "" {
		t.Errorf("catalog instance types as described (-catalog +described):\n%s", diff)
	}
}
