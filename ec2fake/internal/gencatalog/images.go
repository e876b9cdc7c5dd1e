package main

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Owners of the public EKS AMIs in us-east-1 (as ec2fake's catalog.go).
const (
	eksOwner          = "602401143452"
	bottlerocketOwner = "092701018921"
	windowsOwner      = "801119661308"
)

// release is one line of the image spec:
//
//	family release date first-k8s last-k8s
//
// family is al2, al2023, bottlerocket or windows; release is the name's
// release part (v20260714, v1.61.0-3f9e2c71, 2026.10.15); date is the
// creation day (YYYY-MM-DD); the Kubernetes versions are minor versions
// (1.31) and the range is inclusive. '#' starts a comment.
type release struct {
	family, name string
	date         time.Time
	k8s          []string
}

func parseSpec(text string) ([]release, error) {
	var out []release
	for n, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("spec line %d: %d fields; want family release date first-k8s last-k8s", n+1, len(f))
		}
		date, err := time.Parse(time.DateOnly, f[2])
		if err != nil {
			return nil, fmt.Errorf("spec line %d: date %q is not YYYY-MM-DD", n+1, f[2])
		}
		k8s, err := minorRange(f[3], f[4])
		if err != nil {
			return nil, fmt.Errorf("spec line %d: %w", n+1, err)
		}
		switch f[0] {
		case "al2", "al2023", "bottlerocket", "windows":
		default:
			return nil, fmt.Errorf("spec line %d: family %q is not al2, al2023, bottlerocket or windows", n+1, f[0])
		}
		out = append(out, release{family: f[0], name: f[1], date: date, k8s: k8s})
	}
	return out, nil
}

func minorRange(first, last string) ([]string, error) {
	lo, err1 := minor(first)
	hi, err2 := minor(last)
	if err1 != nil || err2 != nil || lo > hi {
		//lint:ignore ST1005 Kubernetes is a proper noun
		return nil, fmt.Errorf("Kubernetes range %s..%s is not two 1.N versions in order", first, last)
	}
	var out []string
	for m := lo; m <= hi; m++ {
		out = append(out, "1."+strconv.Itoa(m))
	}
	return out, nil
}

// minor reads a Kubernetes minor version "1.N" (N of one or two digits).
func minor(v string) (int, error) {
	rest, ok := strings.CutPrefix(v, "1.")
	if !ok || len(rest) == 0 || len(rest) > 2 || strings.Trim(rest, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not 1.N", v)
	}
	return strconv.Atoi(rest)
}

// variant is one image a family publishes per release and Kubernetes
// version: its name, architecture, description and disks.
type variant struct {
	name, arch, desc string
	offset           time.Duration // after the release's first image
}

// The variants each family publishes, as the AMI names in
// awslabs/amazon-eks-ami CHANGELOG.md list them for AL2 and AL2023 (no
// arm64 Neuron image; AL2 has one x86_64 GPU image), and as Bottlerocket
// ships aws-k8s-X.Y, -nvidia and -fips for both architectures. Windows
// publishes Server 2019, 2022 and 2025, each Core and Full, x86_64 only;
// Server 2025 only from Kubernetes 1.35 (karpenter-provider-aws
// pkg/providers/amifamily/ami.go at 1d927085 refuses windows2025 below it).
// AL2 and AL2023 descriptions carry the release version recorded for the
// name in eks-ami-releases.tsv (versions); a name not recorded there is an
// error, so the default catalog names only real releases.
func variants(family, rel, k8s string, versions map[string]string) ([]variant, error) {
	switch family {
	case "al2":
		var out []variant
		for i, p := range [][2]string{{"amazon-eks-node-", "x86_64"}, {"amazon-eks-arm64-node-", "arm64"}, {"amazon-eks-gpu-node-", "x86_64"}} {
			name := p[0] + k8s + "-" + rel
			v, ok := versions[name]
			if !ok {
				return nil, fmt.Errorf("%s is not in %s", name, eksHistoryFile)
			}
			full, _, _ := strings.Cut(v, "-")
			out = append(out, variant{name, p[1], al2Description(full), time.Duration(i) * time.Minute})
		}
		return out, nil
	case "al2023":
		var out []variant
		for i, av := range [][2]string{{"x86_64", "standard"}, {"x86_64", "nvidia"}, {"x86_64", "neuron"}, {"arm64", "standard"}, {"arm64", "nvidia"}} {
			name := "amazon-eks-node-al2023-" + av[0] + "-" + av[1] + "-" + k8s + "-" + rel
			v, ok := versions[name]
			if !ok {
				return nil, fmt.Errorf("%s is not in %s", name, eksHistoryFile)
			}
			full, _, _ := strings.Cut(v, "-")
			out = append(out, variant{name, av[0], al2023Description(full), time.Duration(i) * time.Minute})
		}
		return out, nil
	case "bottlerocket":
		return bottlerocketVariants(k8s, rel, []string{"", "-nvidia", "-fips"}), nil
	case "windows":
		var out []variant
		for i, year := range []string{"2019", "2022", "2025"} {
			if m, _ := minor(k8s); year == "2025" && m < 35 {
				continue // Server 2025 images start with Kubernetes 1.35
			}
			for j, edition := range []string{"Core", "Full"} {
				out = append(out, variant{"Windows_Server-" + year + "-English-" + edition + "-EKS_Optimized-" + k8s + "-" + rel, "x86_64",
					"Microsoft Windows Server " + year + " " + edition + " optimized for EKS and Kubernetes " + k8s,
					time.Duration(2*i+j) * time.Minute})
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("family %q is not al2, al2023, bottlerocket or windows", family)
}

// bottlerocketVariants names a Bottlerocket release's images for one
// Kubernetes version and the given flavours ("", "-nvidia", "-fips"), each
// for x86_64 and aarch64; NVIDIA images are four minutes newer than
// standard ones (karpenter-provider-aws #7925).
func bottlerocketVariants(k8s, rel string, flavours []string) []variant {
	version, _, _ := strings.Cut(rel, "-")
	var out []variant
	for i, arch := range []string{"x86_64", "aarch64"} {
		for j, flavour := range flavours {
			out = append(out, variant{"bottlerocket-aws-k8s-" + k8s + flavour + "-" + arch + "-" + rel, map[string]string{"x86_64": "x86_64", "aarch64": "arm64"}[arch],
				"bottlerocket-aws-k8s-" + k8s + flavour + " " + version + " (" + arch + ")",
				time.Duration(i)*time.Minute + time.Duration(j)*4*time.Minute})
		}
	}
	return out
}

// buildImages expands the spec. IDs and creation times are synthetic: the
// ID is "ami-0" and 16 hex digits of an FNV-1a hash of the name, and each
// image is created on its release day from 16:00 UTC, a few minutes apart
// (each Kubernetes version ten minutes after the previous one).
func buildImages(spec []release, versions map[string]string) ([]ec2types.Image, error) {
	var out []ec2types.Image
	for _, r := range spec {
		for ki, k8s := range r.k8s {
			vs, err := variants(r.family, r.name, k8s, versions)
			if err != nil {
				return nil, err
			}
			for _, v := range vs {
				created := r.date.Add(16*time.Hour + time.Duration(ki)*10*time.Minute + v.offset + time.Duration(ki*7%60)*time.Second)
				out = append(out, publicImage(r.family, v, created))
			}
		}
	}
	return out, nil
}

func publicImage(family string, v variant, created time.Time) ec2types.Image {
	h := fnv.New64a()
	h.Write([]byte(v.name))
	img := ec2types.Image{
		ImageId: aws.String(fmt.Sprintf("ami-0%016x", h.Sum64())), Name: aws.String(v.name),
		Architecture: ec2types.ArchitectureValues(v.arch), CreationDate: aws.String(created.UTC().Format("2006-01-02T15:04:05.000Z")),
		State: ec2types.ImageStateAvailable, ImageOwnerAlias: aws.String("amazon"), Public: aws.Bool(true),
		PlatformDetails: aws.String("Linux/UNIX"), UsageOperation: aws.String("RunInstances"),
		Description: aws.String(v.desc), RootDeviceName: aws.String("/dev/xvda"),
	}
	vol := func(dev string, gib int32, vt ec2types.VolumeType) ec2types.BlockDeviceMapping {
		return ec2types.BlockDeviceMapping{DeviceName: aws.String(dev), Ebs: &ec2types.EbsBlockDevice{VolumeSize: aws.Int32(gib), VolumeType: vt}}
	}
	switch family {
	case "al2":
		img.OwnerId = aws.String(eksOwner)
		img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{vol("/dev/xvda", 20, "gp2")}
	case "al2023":
		img.OwnerId = aws.String(eksOwner)
		img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{vol("/dev/xvda", 20, "gp3")}
	case "bottlerocket":
		img.OwnerId = aws.String(bottlerocketOwner)
		img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{vol("/dev/xvda", 2, "gp2"), vol("/dev/xvdb", 20, "gp2")}
	case "windows":
		img.OwnerId = aws.String(windowsOwner)
		img.Platform, img.PlatformDetails, img.UsageOperation = "windows", aws.String("Windows"), aws.String("RunInstances:0002")
		img.RootDeviceName = aws.String("/dev/sda1")
		img.BlockDeviceMappings = []ec2types.BlockDeviceMapping{vol("/dev/sda1", 50, "gp2")}
	}
	return img
}
