package ec2fake_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
)

func TestFullCatalogLoads(t *testing.T) {
	images, types := ec2fake.FullCatalog()
	if len(images) != 4105 {
		t.Errorf("FullCatalog has %d images; want 4105", len(images))
	}
	if err := ec2fake.New(ec2fake.Options{}).Load(images, types); err != nil {
		t.Fatalf("FullCatalog does not load: %v", err)
	}
	byID := map[string]bool{}
	for _, img := range images {
		byID[*img.ImageId] = true
	}
	for _, id := range []string{ec2fake.ImageTeamBaseAvailable, ec2fake.ImageTeamBaseArm64, ec2fake.ImageTeamBaseDeprecated,
		ec2fake.ImageTeamBasePending, ec2fake.ImageTeamBaseMalformedDate, ec2fake.ImageTeamBaseDisabled} {
		if !byID[id] {
			t.Errorf("custom image %s is missing", id)
		}
	}
	images[0].Name = aws.String("changed")
	if again, _ := ec2fake.FullCatalog(); *again[0].Name == "changed" {
		t.Error("FullCatalog returned shared memory")
	}
}

// pinnedRelease is a release a published manifest pins, with the
// Kubernetes versions it shipped for.
type pinnedRelease struct {
	alias, where string
	k8s          []string
}

// The releases pinned in published manifests, and the Kubernetes versions
// each shipped for:
//   - al2023@v20240625: aws/karpenter-provider-aws examples/v1/
//     min-values-family.yaml and min-values-multiple-keys.yaml at 1d927085;
//     amazon-eks-ami CHANGELOG.md (81fec2e8) "AMI Release v20240625" lists
//     AL2023 images for 1.23-1.30.
//   - al2023@v20250715: aws-samples/karpenter-blueprints
//     blueprints/dynamic-disk-ebs-volume/ebs-dynamic-resize.yaml at 529b88cf;
//     "AMI Release v20250715" lists 1.27-1.33.
//   - bottlerocket@v1.39.1: karpenter-blueprints blueprints/multi-ebs/
//     multi-ebs.yaml at 529b88cf; 1.33 arrived in v1.39.0 (bottlerocket #4515)
//     and 1.29 left in v1.58.0 (#4797).
//   - bottlerocket@v1.20.4: karpenter-provider-aws
//     website/content/en/docs/concepts/nodeclasses.md at 1d927085; a
//     bottlerocket tag (b6163b2a) carrying 1.23-1.30.
//
// The same page pins al2023@v20240807: amazon-eks-ami has a v20240807 tag
// and its AMIs were public, but CHANGELOG.md has no entry for it, so the
// catalog, which follows the changelog, lacks it (catalog/README.md).
var pinnedReleases = []pinnedRelease{
	{"al2023@v20240625", "karpenter-provider-aws examples/v1", []string{"1.29", "1.30"}},
	{"al2023@v20250715", "karpenter-blueprints", []string{"1.29", "1.30", "1.31", "1.32", "1.33"}},
	{"al2@v20250715", "(same release, AL2)", []string{"1.29", "1.30", "1.31", "1.32"}},
	{"bottlerocket@v1.39.1", "karpenter-blueprints", []string{"1.29", "1.30", "1.31", "1.32", "1.33"}},
	{"bottlerocket@v1.20.4", "karpenter-provider-aws docs", []string{"1.29", "1.30"}},
}

// Each pinned release resolves for every Kubernetes version it shipped for,
// by name (DescribeImages) and through SSM (the public parameters Karpenter
// reads), to the same images; for the versions it did not ship for, and for
// releases that never existed, both find nothing.
func TestFullCatalogResolvesPinnedReleases(t *testing.T) {
	b := ec2fake.New(ec2fake.Options{})
	if err := b.Load(ec2fake.FullCatalog()); err != nil {
		t.Fatal(err)
	}
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)
	resolve := func(alias, k8s string, source amiselect.AliasSource) ([]string, error) {
		sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: alias}},
			amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: k8s}, SSM: ssmc, Aliases: source})
		var names []string
		for _, a := range sel.AMIs {
			names = append(names, a.Name)
		}
		slices.Sort(names)
		return names, err
	}
	for _, p := range pinnedReleases {
		for _, k8s := range []string{"1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34"} {
			t.Run(p.alias+"/"+k8s, func(t *testing.T) {
				byName, err := resolve(p.alias, k8s, amiselect.AliasByName)
				bySSM, ssmErr := resolve(p.alias, k8s, amiselect.AliasBySSM)
				if !slices.Contains(p.k8s, k8s) {
					// Refused (AL2 past 1.32) or nothing found.
					if len(byName) != 0 || ssmErr == nil {
						t.Errorf("%s did not ship for %s, yet by name %v (err %v), through SSM %v (err %v)", p.alias, k8s, byName, err, bySSM, ssmErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("by name: %v", err)
				}
				if len(byName) == 0 {
					t.Fatalf("%s (%s) for Kubernetes %s: no AMI by name", p.alias, p.where, k8s)
				}
				release := strings.TrimPrefix(p.alias[strings.IndexByte(p.alias, '@')+1:], "v")
				for _, n := range byName {
					if !strings.Contains(n, "-"+k8s+"-") || !strings.Contains(n, release) {
						t.Errorf("%s for %s selected %s", p.alias, k8s, n)
					}
				}
				if ssmErr != nil {
					t.Fatalf("through SSM: %v", ssmErr)
				}
				if diff := cmp.Diff(byName, bySSM); diff != "" {
					t.Errorf("by name and through SSM differ (-by name +through SSM):\n%s", diff)
				}
			})
		}
	}
	// Releases that never existed: a day with neither tag nor changelog
	// entry, one abandoned before publication (CHANGELOG.md "[ABANDONED] AMI
	// Release v20260311"), a Bottlerocket patch release that was never made
	// (bottlerocket.dev/en/os/1.39.x/version-information/packages lists
	// 1.39.0 and 1.39.1 only), and v1.39.1 with another build's suffix.
	for _, alias := range []string{"al2023@v20250716", "al2023@v20260311", "al2@v20250716", "bottlerocket@v1.39.2", "bottlerocket@v1.39.1-00000000"} {
		for _, k8s := range []string{"1.30", "1.32"} {
			t.Run(fmt.Sprintf("never %s/%s", alias, k8s), func(t *testing.T) {
				byName, err := resolve(alias, k8s, amiselect.AliasByName)
				if err != nil || len(byName) != 0 {
					t.Errorf("by name: %v, %v; want no AMI", byName, err)
				}
				if bySSM, err := resolve(alias, k8s, amiselect.AliasBySSM); err == nil || !strings.Contains(err.Error(), "SSM has none of its") {
					t.Errorf("through SSM: %v, %v; want the error that SSM has none of its parameters", bySSM, err)
				}
			})
		}
	}
}

// The Windows releases FullCatalog records, per Server year, edition and
// Kubernetes version: every row of the EKS user guide's tables for 1.29-1.34
// (awsdocs/amazon-eks-user-guide latest/ug/nodes/eks-ami-versions-windows.adoc
// at 178d2ee7, from 1.29-2024.01.09 to 2026.01.22), and the Server 2025 Core
// table for 1.35 (docs.amazonaws.cn's copy of the page); see
// catalog/upstream/windows-ami-releases.tsv.
var windowsReleases = map[string]int{
	"2019 Core 1.29": 27, "2019 Core 1.30": 22, "2019 Core 1.31": 19, "2019 Core 1.32": 13, "2019 Core 1.33": 9, "2019 Core 1.34": 5,
	"2019 Full 1.29": 27, "2019 Full 1.30": 22, "2019 Full 1.31": 19, "2019 Full 1.32": 13, "2019 Full 1.33": 9, "2019 Full 1.34": 5,
	"2022 Core 1.29": 27, "2022 Core 1.30": 22, "2022 Core 1.31": 19, "2022 Core 1.32": 13, "2022 Core 1.33": 9, "2022 Core 1.34": 5,
	"2022 Full 1.29": 27, "2022 Full 1.30": 22, "2022 Full 1.31": 19, "2022 Full 1.32": 13, "2022 Full 1.33": 9, "2022 Full 1.34": 5,
	"2025 Core 1.35": 3,
}

var windowsName = regexp.MustCompile(`^Windows_Server-(2019|2022|2025)-English-(Core|Full)-EKS_Optimized-(1\.[0-9]+)-([0-9]{4})\.([0-9]{2})\.([0-9]{2})$`)

// Every Windows image of FullCatalog is a recorded release, dated on the
// day its name carries (the AMI version is K-YYYY.MM.DD, the release date:
// eks-ami-versions-windows.adoc), and each table is complete.
func TestFullCatalogWindowsReleases(t *testing.T) {
	images, _ := ec2fake.FullCatalog()
	got := map[string]int{}
	for _, img := range images {
		if img.Platform != "windows" { // EC2 writes it in lower case
			continue
		}
		m := windowsName.FindStringSubmatch(*img.Name)
		if m == nil {
			t.Errorf("%s: not an EKS-optimized Windows AMI name with a dotted release date", *img.Name)
			continue
		}
		got[m[1]+" "+m[2]+" "+m[3]]++
		if day := strings.Join(m[4:7], "-"); !strings.HasPrefix(*img.CreationDate, day+"T") {
			t.Errorf("%s was created %s, not on its release day %s", *img.Name, *img.CreationDate, day)
		}
	}
	if diff := cmp.Diff(windowsReleases, got); diff != "" {
		t.Errorf("Windows releases per Server, edition and Kubernetes version (-recorded +FullCatalog):\n%s", diff)
	}
}

// windowsY@latest (Server Y Core, amiselect/doc.go) resolves, by name and
// through SSM's ami-windows-latest parameter, to the newest recorded
// release for each Kubernetes version it shipped for, and to nothing where
// none is recorded (Server 2019/2022 for 1.35; Server 2025 before 1.35).
func TestFullCatalogResolvesWindowsLatest(t *testing.T) {
	b := ec2fake.New(ec2fake.Options{})
	if err := b.Load(ec2fake.FullCatalog()); err != nil {
		t.Fatal(err)
	}
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	ec2c, ssmc := ec2fake.NewClient(srv.URL), ec2fake.NewSSMClient(srv.URL)
	for _, tc := range []struct{ alias, k8s, want string }{
		{"windows2019@latest", "1.29", "Windows_Server-2019-English-Core-EKS_Optimized-1.29-2026.01.22"},
		{"windows2019@latest", "1.34", "Windows_Server-2019-English-Core-EKS_Optimized-1.34-2026.01.22"},
		{"windows2022@latest", "1.30", "Windows_Server-2022-English-Core-EKS_Optimized-1.30-2026.01.22"},
		{"windows2022@latest", "1.33", "Windows_Server-2022-English-Core-EKS_Optimized-1.33-2026.01.22"},
		{"windows2025@latest", "1.35", "Windows_Server-2025-English-Core-EKS_Optimized-1.35-2026.04.18"},
		{"windows2022@latest", "1.35", ""},
		{"windows2019@latest", "1.36", ""},
	} {
		t.Run(tc.alias+"/"+tc.k8s, func(t *testing.T) {
			for _, source := range []amiselect.AliasSource{amiselect.AliasByName, amiselect.AliasBySSM} {
				sel, err := amiselect.Resolve(context.Background(), ec2c, []amiselect.Term{{Alias: tc.alias}},
					amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: tc.k8s}, SSM: ssmc, Aliases: source})
				var names []string
				for _, a := range sel.AMIs {
					names = append(names, a.Name)
				}
				switch {
				case tc.want == "" && len(names) != 0:
					t.Errorf("%s: %v; want no AMI (none recorded)", source, names)
				case tc.want != "" && err != nil:
					t.Errorf("%s: %v", source, err)
				case tc.want != "" && !slices.Equal(names, []string{tc.want}):
					t.Errorf("%s: %v; want [%s]", source, names, tc.want)
				}
			}
		})
	}
}

// BenchmarkResolve is amiselect.Resolve of one alias against a Backend
// holding each catalog, in process: the DescribeImages query and the
// selection by name, or the public parameters then DescribeImages by ID
// (the parameter index built once, before timing).
func BenchmarkResolve(b *testing.B) {
	for _, cat := range []struct {
		name string
		load func() ([]ec2types.Image, []ec2types.InstanceTypeInfo)
	}{{"default", ec2fake.DefaultCatalog}, {"full", ec2fake.FullCatalog}} {
		bk := ec2fake.New(ec2fake.Options{})
		if err := bk.Load(cat.load()); err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			alias, k8s string
			source     amiselect.AliasSource
		}{
			{"al2023@latest", "1.32", amiselect.AliasByName},
			{"al2023@latest", "1.32", amiselect.AliasBySSM},
			{"al2023@v20250715", "1.32", amiselect.AliasByName},
			{"bottlerocket@v1.39.1", "1.32", amiselect.AliasBySSM},
		} {
			opts := amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: tc.k8s}, SSM: bk, Aliases: tc.source}
			terms := []amiselect.Term{{Alias: tc.alias}}
			b.Run(cat.name+"/"+tc.alias+"/"+tc.source.String(), func(b *testing.B) {
				if _, err := amiselect.Resolve(context.Background(), bk, terms, opts); err != nil && cat.name == "full" {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					_, _ = amiselect.Resolve(context.Background(), bk, terms, opts)
				}
			})
		}
	}
}
