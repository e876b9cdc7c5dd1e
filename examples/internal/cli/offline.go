package cli

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/ec2fake"
)

// OfflineSource describes what [Offline] answers from, for a report's
// source line.
const OfflineSource = "the fake EC2's embedded catalog, every EKS AMI release recorded for Kubernetes 1.29 to 1.36"

// OfflineRegion is the region Offline answers for: opts.Region, or
// us-east-1, ec2fake's default.
func OfflineRegion(opts ec2fake.Options) string {
	if opts.Region == "" {
		return "us-east-1"
	}
	return opts.Region
}

// Offline returns the fake EC2 an example asks without -live: ec2fake's
// full release history ([ec2fake.FullCatalog]), so that an alias pinned
// to any recorded release (al2023@v20250715, bottlerocket@v1.39.1)
// resolves as EC2 would resolve it. The history records Windows releases
// for some Kubernetes versions only (ec2fake/catalog/README.md: Server 2019
// and 2022 for 1.29 to 1.34, Server 2025 Core for 1.35), and Windows
// aliases take only "latest"; for each Windows image line (version,
// edition, Kubernetes version) the history lacks, the small default
// catalog's images of it are added, as the catalog's README advises, so
// that windows2022@latest still resolves for 1.36. Every other image is
// the history's. Its zones, and the instance types each offers, are the
// zone catalog's for its region ([ec2fake.ZoneCatalog]), when it has one.
//
// It decodes both catalogs (about 50 ms of CPU): call it once per run.
func Offline(opts ec2fake.Options) (*ec2fake.Backend, error) {
	b := ec2fake.New(opts)
	images, types := ec2fake.FullCatalog()
	defaults, _ := ec2fake.DefaultCatalog()
	if err := b.Load(append(images, windowsGaps(images, defaults)...), types); err != nil {
		return nil, fmt.Errorf("loading the embedded catalog: %w", err)
	}
	if zones, offered, err := ec2fake.ZoneCatalog(OfflineRegion(opts)); err == nil {
		if err := b.LoadZones(zones, offered); err != nil {
			return nil, fmt.Errorf("loading the embedded zone catalog: %w", err)
		}
	}
	return b, nil
}

// windowsGaps returns the images of defaults that are Windows images of a
// line history has no image of.
func windowsGaps(history, defaults []ec2types.Image) []ec2types.Image {
	recorded := map[string]bool{}
	for _, img := range history {
		if line, ok := windowsLine(aws.ToString(img.Name)); ok {
			recorded[line] = true
		}
	}
	var out []ec2types.Image
	for _, img := range defaults {
		if line, ok := windowsLine(aws.ToString(img.Name)); ok && !recorded[line] {
			out = append(out, img)
		}
	}
	return out
}

// windowsLine is the name of an EKS Windows image without its release
// date ("Windows_Server-2022-English-Core-EKS_Optimized-1.36" of
// "...-1.36-2026.11.12"), and whether name is one.
func windowsLine(name string) (string, bool) {
	if !strings.HasPrefix(name, "Windows_Server-") {
		return "", false
	}
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return "", false
	}
	return name[:i], true
}

// OfflineKubernetesVersions returns the Kubernetes versions [Offline]'s
// catalog records releases for, oldest first.
func OfflineKubernetesVersions() []string {
	return []string{"1.29", "1.30", "1.31", "1.32", "1.33", "1.34", "1.35", "1.36"}
}
