package ec2fake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
	"github.com/google/go-cmp/cmp"
)

func TestCatalogLoads(t *testing.T) {
	images, types := DefaultCatalog()
	if len(images) != 387 {
		t.Errorf("catalog has %d images; want 387", len(images))
	}
	if len(types) < 750 {
		t.Errorf("catalog has %d instance types; want at least 750", len(types))
	}
	if err := New(Options{}).Load(images, types); err != nil {
		t.Fatalf("the catalog does not load: %v", err)
	}
	// Every call decodes afresh.
	images[0].Name = aws.String("changed")
	types[0].VCpuInfo.DefaultVCpus = aws.Int32(-1)
	again, againTypes := DefaultCatalog()
	if *again[0].Name == "changed" || *againTypes[0].VCpuInfo.DefaultVCpus == -1 {
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

// supportedKubernetes are the versions EKS supports on the catalog date,
// 2026-11-22: 1.34-1.36 in standard support, 1.31-1.33 in extended
// support (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html,
// release calendar; Karpenter v1.14's compatibility matrix lists 1.30-1.36,
// and 1.30's extended support ended 2026-07-23).
var supportedKubernetes = []string{"1.31", "1.32", "1.33", "1.34", "1.35", "1.36"}

// publicVariants names, per family, the images AWS publishes for one
// Kubernetes version and release: AL2023 has no arm64 Neuron image
// (awslabs/amazon-eks-ami CHANGELOG.md, "AMI Details" of every release);
// Bottlerocket ships aws-k8s-X.Y, -nvidia and -fips for both
// architectures; Windows Server 2019, 2022 and 2025 each come as Core and
// Full. AL2 is published only up to Kubernetes 1.32 (its last images are
// in release v20251209), Windows Server 2025 only from 1.35
// (karpenter-provider-aws pkg/providers/amifamily/ami.go at 1d927085).
var publicVariants = map[string][]string{
	"al2023": {"amazon-eks-node-al2023-x86_64-standard-K-", "amazon-eks-node-al2023-x86_64-nvidia-K-", "amazon-eks-node-al2023-x86_64-neuron-K-",
		"amazon-eks-node-al2023-arm64-standard-K-", "amazon-eks-node-al2023-arm64-nvidia-K-"},
	"al2": {"amazon-eks-node-K-", "amazon-eks-arm64-node-K-", "amazon-eks-gpu-node-K-"},
	"bottlerocket": {"bottlerocket-aws-k8s-K-x86_64-", "bottlerocket-aws-k8s-K-nvidia-x86_64-", "bottlerocket-aws-k8s-K-fips-x86_64-",
		"bottlerocket-aws-k8s-K-aarch64-", "bottlerocket-aws-k8s-K-nvidia-aarch64-", "bottlerocket-aws-k8s-K-fips-aarch64-"},
	"windows": {"Windows_Server-2019-English-Core-EKS_Optimized-K-", "Windows_Server-2019-English-Full-EKS_Optimized-K-",
		"Windows_Server-2022-English-Core-EKS_Optimized-K-", "Windows_Server-2022-English-Full-EKS_Optimized-K-",
		"Windows_Server-2025-English-Core-EKS_Optimized-K-", "Windows_Server-2025-English-Full-EKS_Optimized-K-"},
}

// Every supported Kubernetes version has several releases of every
// variant (Bottlerocket 1.36 has one: its variants arrived in v1.61.0),
// and the newest release of each is from 2026.
func TestCatalogPublicImagesPerKubernetesVersion(t *testing.T) {
	byName := catalogByName(t)
	for _, k8s := range supportedKubernetes {
		for family, prefixes := range publicVariants {
			for _, prefix := range prefixes {
				prefix := strings.Replace(prefix, "-K-", "-"+k8s+"-", 1)
				var releases []string
				for name, img := range byName {
					if strings.HasPrefix(name, prefix) && aws.ToBool(img.Public) {
						releases = append(releases, *img.CreationDate)
					}
				}
				want := 3
				switch {
				case family == "al2" && k8s > "1.32", strings.Contains(prefix, "-2025-") && k8s < "1.35":
					want = 0
				case family == "al2", family == "bottlerocket" && k8s == "1.36":
					want = 1
				}
				if len(releases) < want || want == 0 && len(releases) > 0 {
					t.Errorf("%s*: %d releases; want %s", prefix, len(releases), map[bool]string{true: "none", false: fmt.Sprint("at least ", want)}[want == 0])
					continue
				}
				if want > 0 && family != "al2" && slices.Max(releases) < "2026" {
					t.Errorf("%s*: newest release created %s; want one from 2026", prefix, slices.Max(releases))
				}
			}
		}
	}
}

// No image is published for a variant AWS does not build.
func TestCatalogPublicImageNames(t *testing.T) {
	known := regexp.MustCompile(`^(amazon-eks-node-al2023-(x86_64-(standard|nvidia|neuron)|arm64-(standard|nvidia))-1\.3[1-6]-v20\d{6}` +
		`|amazon-eks-(arm64-|gpu-)?node-1\.3[12]-v20\d{6}` +
		`|bottlerocket-aws-k8s-1\.3[1-6]-(nvidia-|fips-)?(x86_64|aarch64)-v1\.\d+\.\d+-[0-9a-f]{8}` +
		`|Windows_Server-20(19|22)-English-(Core|Full)-EKS_Optimized-1\.3[1-6]-20\d\d\.\d\d\.\d\d` +
		`|Windows_Server-2025-English-(Core|Full)-EKS_Optimized-1\.3[56]-20\d\d\.\d\d\.\d\d)$`)
	firstWave, _ := firstWaveCatalog(t)
	byName := catalogByName(t)
	public := 0
	for name, img := range byName {
		if aws.ToBool(img.Public) {
			public++
			if !known.MatchString(name) {
				t.Errorf("public image %s is not a variant AWS publishes", name)
			}
		}
	}
	for _, img := range firstWave {
		if _, ok := byName[*img.Name]; !ok {
			t.Errorf("first-wave image %s is gone", *img.Name)
		}
	}
	if public != 381 {
		t.Errorf("%d public images; want 381 (54 first-wave, 327 generated)", public)
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
		if !strings.HasPrefix(name, "bottlerocket-") || strings.Contains(name, "-nvidia-") || strings.Contains(name, "-fips-") {
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
	if checked != 40 {
		t.Errorf("checked %d Bottlerocket pairs; want 40 (8 first-wave, 32 generated)", checked)
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

// Published specs, spot-checked across families. Values are as the EC2
// instance-type specifications publish them (docs.aws.amazon.com/ec2/
// latest/instancetypes/: vCPUs, memory, instance store, EBS and network
// bandwidth, accelerators) and as Karpenter v1.14's generated reference
// labels them (website/content/en/v1.14/reference/instance-types.md,
// aws/karpenter-provider-aws 1d927085); dl1 is the first-wave record
// (Karpenter v1.3 reference), g6f's fractions aws-cli #9659.
// TestCatalogReproducesKarpenterLabels checks every type against the
// page; this table pins the EC2 side: field names, units and spellings.
func TestCatalogInstanceTypeFacts(t *testing.T) {
	byName := catalogTypes(t)
	facts := map[string]publishedFact{
		"a1.metal":           {16, 32768, "arm64", "AWS", 2.3, "", "", 0, 3500, 5, 0, false, ""},
		"c5.12xlarge":        {48, 98304, "x86_64", "Intel", 3.6, "nitro", "", 0, 9500, 12, 0, false, ""},
		"c6g.metal":          {64, 131072, "arm64", "AWS", 2.5, "", "", 0, 19000, 25, 0, false, ""},
		"c7a.xlarge":         {4, 8192, "x86_64", "AMD", 3.7, "nitro", "", 0, 10000, 1.562, 0, true, ""},
		"c7g.medium":         {1, 2048, "arm64", "AWS", 2.6, "nitro", "", 0, 10000, 0.52, 0, true, ""},
		"c7i-flex.large":     {2, 4096, "x86_64", "Intel", 3.2, "nitro", "", 0, 10000, 0.39, 0, true, ""},
		"c7i.large":          {2, 4096, "x86_64", "Intel", 3.2, "nitro", "", 0, 10000, 0.781, 0, true, ""},
		"c8g.large":          {2, 4096, "arm64", "AWS", 2.8, "nitro", "", 0, 10000, 0.937, 0, true, ""},
		"c8i.large":          {2, 4096, "x86_64", "Intel", 3.9, "nitro", "", 0, 10000, 0.937, 0, true, ""},
		"d3.xlarge":          {4, 32768, "x86_64", "Intel", 3.1, "nitro", "", 5940, 2800, 3, 0, true, ""},
		"dl1.24xlarge":       {96, 786432, "x86_64", "Intel", 3.0, "nitro", "8 Habana Gaudi HL-205 32768", 4000, 19000, 400, 4, true, ""},
		"g4ad.16xlarge":      {64, 262144, "x86_64", "AMD", 3.0, "nitro", "4 AMD Radeon Pro V520 8192", 2400, 6300, 25, 0, true, ""},
		"g4ad.xlarge":        {4, 16384, "x86_64", "AMD", 3.0, "nitro", "1 AMD Radeon Pro V520 8192", 150, 3170, 2, 0, true, ""},
		"g4dn.xlarge":        {4, 16384, "x86_64", "Intel", 2.5, "nitro", "1 NVIDIA T4 16384", 125, 3500, 5, 0, true, ""},
		"g5.48xlarge":        {192, 786432, "x86_64", "AMD", 3.3, "nitro", "8 NVIDIA A10G 22888", 7600, 19000, 100, 1, true, ""},
		"g5g.xlarge":         {4, 8192, "arm64", "AWS", 2.5, "nitro", "1 NVIDIA T4g 16384", 0, 4750, 1.25, 0, false, ""},
		"g6.xlarge":          {4, 16384, "x86_64", "AMD", 3.4, "nitro", "1 NVIDIA L4 22888", 250, 5000, 2.5, 0, true, ""},
		"g6e.xlarge":         {4, 32768, "x86_64", "AMD", 3.4, "nitro", "1 NVIDIA L40S 45776", 250, 5000, 2.5, 0, true, ""},
		"g6f.xlarge":         {4, 16384, "x86_64", "AMD", 3.4, "nitro", "0 NVIDIA L4 2861", 100, 5000, 2.5, 0, true, ""},
		"hpc7g.16xlarge":     {64, 131072, "arm64", "AWS", 2.6, "nitro", "", 0, 2085, 200, 1, true, ""},
		"i3en.large":         {2, 16384, "x86_64", "Intel", 3.1, "nitro", "", 1250, 4750, 2.1, 0, true, ""},
		"i4i.large":          {2, 16384, "x86_64", "Intel", 3.5, "nitro", "", 468, 10000, 0.781, 0, true, ""},
		"inf1.xlarge":        {4, 8192, "x86_64", "Intel", 2.5, "nitro", "", 0, 4750, 5, 0, true, "1 Inferentia 4"},
		"inf2.xlarge":        {4, 16384, "x86_64", "AMD", 3.6, "nitro", "", 0, 10000, 2.083, 0, true, "1 Inferentia2 2"},
		"m5.large":           {2, 8192, "x86_64", "Intel", 3.1, "nitro", "", 0, 4750, 0.75, 0, false, ""},
		"m5.metal":           {96, 393216, "x86_64", "Intel", 3.1, "", "", 0, 19000, 25, 0, false, ""},
		"m6g.medium":         {1, 4096, "arm64", "AWS", 2.5, "nitro", "", 0, 4750, 0.5, 0, false, ""},
		"m6i.large":          {2, 8192, "x86_64", "Intel", 3.5, "nitro", "", 0, 10000, 0.781, 0, true, ""},
		"m7a.large":          {2, 8192, "x86_64", "AMD", 3.7, "nitro", "", 0, 10000, 0.781, 0, true, ""},
		"m7g.2xlarge":        {8, 32768, "arm64", "AWS", 2.6, "nitro", "", 0, 10000, 3.75, 0, true, ""},
		"m7i-flex.16xlarge":  {64, 262144, "x86_64", "Intel", 3.2, "nitro", "", 0, 20000, 12.5, 0, true, ""},
		"m8g.xlarge":         {4, 16384, "arm64", "AWS", 2.8, "nitro", "", 0, 10000, 1.875, 0, true, ""},
		"m8i-flex.large":     {2, 8192, "x86_64", "Intel", 3.9, "nitro", "", 0, 10000, 0.468, 0, true, ""},
		"p4d.24xlarge":       {96, 1179648, "x86_64", "Intel", 3.0, "nitro", "8 NVIDIA A100 40960", 8000, 19000, 400, 4, true, ""},
		"p5.48xlarge":        {192, 2097152, "x86_64", "AMD", 3.6, "nitro", "8 NVIDIA H100 81920", 30400, 80000, 3200, 32, true, ""},
		"p5.4xlarge":         {16, 262144, "x86_64", "AMD", 3.6, "nitro", "1 NVIDIA H100 81920", 3800, 10000, 100, 1, true, ""},
		"p6-b200.48xlarge":   {192, 2097152, "x86_64", "Intel", 2.4, "nitro", "8 NVIDIA B200 183359", 30400, 100000, 3200, 8, true, ""},
		"r5.large":           {2, 16384, "x86_64", "Intel", 3.1, "nitro", "", 0, 4750, 0.75, 0, false, ""},
		"r7iz.large":         {2, 16384, "x86_64", "Intel", 3.9, "nitro", "", 0, 10000, 0.781, 0, true, ""},
		"r8g.2xlarge":        {8, 65536, "arm64", "AWS", 2.8, "nitro", "", 0, 10000, 3.75, 0, true, ""},
		"t2.micro":           {1, 1024, "x86_64", "Intel", 2.5, "xen", "", 0, 0, 0, 0, false, ""},
		"t3.micro":           {2, 1024, "x86_64", "Intel", 2.5, "nitro", "", 0, 2085, 0.064, 0, false, ""},
		"t4g.medium":         {2, 4096, "arm64", "AWS", 2.5, "nitro", "", 0, 2085, 0.256, 0, false, ""},
		"trn1.32xlarge":      {128, 524288, "x86_64", "Intel", 3.5, "nitro", "", 7600, 80000, 800, 8, true, "16 Trainium 2"},
		"trn2.48xlarge":      {192, 2097152, "x86_64", "Intel", 3.5, "nitro", "", 7600, 80000, 3200, 16, true, "16 Trainium2 8"},
		"u7i-12tb.224xlarge": {896, 12582912, "x86_64", "Intel", 1.9, "nitro", "", 0, 100000, 100, 1, true, ""},
		"x2idn.16xlarge":     {64, 1048576, "x86_64", "Intel", 3.5, "nitro", "", 1900, 40000, 50, 0, true, ""},
		"z1d.large":          {2, 16384, "x86_64", "Intel", 4.0, "nitro", "", 75, 3170, 0.75, 0, false, ""},
	}
	for name, want := range facts {
		t.Run(name, func(t *testing.T) {
			info, ok := byName[name]
			if !ok {
				t.Fatalf("%s is not in the catalog", name)
			}
			got := typeFact(info)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-published +catalog):\n%s", name, diff)
			}
			if got.Hypervisor == "" != aws.ToBool(info.BareMetal) {
				t.Errorf("%s: bare metal %v with hypervisor %q", name, aws.ToBool(info.BareMetal), got.Hypervisor)
			}
		})
	}
}

// publishedFact is TestCatalogInstanceTypeFacts's row, read from the
// DescribeInstanceTypes fields.
type publishedFact struct {
	VCPU       int32
	MemMiB     int64
	Arch       string
	Mfr        string
	GHz        float64
	Hypervisor string
	GPU        string
	NVMeGB     int64
	EBSMbps    int32
	NetGbps    float64
	EFA        int32
	EIT        bool
	Neuron     string
}

func typeFact(info ec2types.InstanceTypeInfo) publishedFact {
	archs := info.ProcessorInfo.SupportedArchitectures
	f := publishedFact{
		VCPU: aws.ToInt32(info.VCpuInfo.DefaultVCpus), MemMiB: aws.ToInt64(info.MemoryInfo.SizeInMiB), Arch: string(archs[len(archs)-1]),
		Mfr: aws.ToString(info.ProcessorInfo.Manufacturer), GHz: aws.ToFloat64(info.ProcessorInfo.SustainedClockSpeedInGhz),
		Hypervisor: string(info.Hypervisor),
	}
	if g := info.GpuInfo; g != nil {
		d := g.Gpus[0]
		f.GPU = fmt.Sprintf("%d %s %s %d", aws.ToInt32(d.Count), aws.ToString(d.Manufacturer), aws.ToString(d.Name), aws.ToInt32(d.MemoryInfo.SizeInMiB))
	}
	if n := info.NeuronInfo; n != nil {
		d := n.NeuronDevices[0]
		f.Neuron = fmt.Sprintf("%d %s %d", aws.ToInt32(d.Count), aws.ToString(d.Name), aws.ToInt32(d.CoreInfo.Count))
	}
	if s := info.InstanceStorageInfo; s != nil {
		f.NVMeGB = aws.ToInt64(s.TotalSizeInGB)
	}
	if e := info.EbsInfo; e != nil && e.EbsOptimizedInfo != nil {
		f.EBSMbps = aws.ToInt32(e.EbsOptimizedInfo.MaximumBandwidthInMbps)
	}
	if n := info.NetworkInfo; n != nil {
		f.EIT = aws.ToBool(n.EncryptionInTransitSupported)
		for _, c := range n.NetworkCards {
			f.NetGbps += aws.ToFloat64(c.BaselineBandwidthInGbps)
		}
		if n.EfaInfo != nil {
			f.EFA = aws.ToInt32(n.EfaInfo.MaximumEfaInterfaces)
		}
	}
	return f
}

func catalogTypes(t *testing.T) map[string]ec2types.InstanceTypeInfo {
	t.Helper()
	_, types := DefaultCatalog()
	byName := map[string]ec2types.InstanceTypeInfo{}
	for _, info := range types {
		if _, dup := byName[string(info.InstanceType)]; dup {
			t.Fatalf("instance type %s appears twice", info.InstanceType)
		}
		byName[string(info.InstanceType)] = info
	}
	return byName
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
		"t3", "t4g", "a1", "g4dn", "g5", "g6", "g6f", "p4d", "p5", "g5g", "g4ad", "dl1", "inf1", "inf2", "trn1", "mac1", "mac2", "t2",
		"c8g", "m8g", "r8g", "c8i", "m8i", "r8i", "c8i-flex", "m8i-flex", "r8i-flex", "c9g", "m9g", "g6e", "g7e", "gr6", "gr6f",
		"p5e", "p5en", "p6-b200", "p6-b300", "trn2", "dl2q", "u-6tb1", "u7i-12tb", "u7in-32tb", "x8g", "i8g", "hpc7g", "f2", "vt1"} {
		if len(sizes[family]) == 0 {
			t.Errorf("family %s is missing", family)
		}
	}
	// Sizes the first-wave catalog lacked.
	for _, name := range []string{"g4ad.xlarge", "c7i.large", "m6g.medium", "c7g.medium", "c7g.large", "c7g.xlarge"} {
		family, size, _ := strings.Cut(name, ".")
		if !slices.Contains(sizes[family], size) {
			t.Errorf("%s is missing", name)
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
	if metal < 100 {
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
		logical, ok := sdkfield.Get[*int32](&g, "LogicalGpuCount")
		partition, _ := sdkfield.Get[*float64](&g, "GpuPartitionSize")
		if !ok {
			t.Logf("%s: the SDK release in use has no GpuDeviceInfo.LogicalGpuCount (ec2 v1.281.0 on); only its count is checked", name)
		}
		if aws.ToInt32(g.Count) != 0 || ok && (aws.ToInt32(logical) != 1 || aws.ToFloat64(partition) != part) {
			t.Errorf("%s: count %d, logical %d, partition %v; want 0, 1, %v", name, aws.ToInt32(g.Count), aws.ToInt32(logical), aws.ToFloat64(partition), part)
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
	if a := byName["dl2q.24xlarge"].InferenceAcceleratorInfo; a == nil || aws.ToString(a.Accelerators[0].Manufacturer) != "Qualcomm" || aws.ToInt32(a.Accelerators[0].Count) != 8 {
		t.Errorf("dl2q.24xlarge lacks its eight Qualcomm AI100 accelerators")
	}
	if g := byName["dl1.24xlarge"].GpuInfo; g == nil || aws.ToString(g.Gpus[0].Manufacturer) != "Habana" {
		t.Errorf("dl1.24xlarge lacks its Habana Gaudi accelerators")
	}
	// High-memory types are not sold as Spot; others are (a derived fact,
	// see catalog/README.md).
	for name, want := range map[string][]ec2types.UsageClassType{"u7i-12tb.224xlarge": {"on-demand"}, "u-6tb1.56xlarge": {"on-demand"},
		"c7i.large": {"on-demand", "spot"}, "mac1.metal": {"on-demand"}} {
		if got := byName[name].SupportedUsageClasses; !slices.Equal(got, want) {
			t.Errorf("%s usage classes %v; want %v", name, got, want)
		}
	}
	for _, name := range []string{"inf2.xlarge", "trn1.2xlarge", "trn2.48xlarge"} {
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
