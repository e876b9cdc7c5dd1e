package ec2fake

import (
	"strconv"
	"strings"
	"time"

	smithytime "github.com/aws/smithy-go/time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

// EC2's limits on filters, per request and per filter.
const (
	maxFilters      = 50
	maxFilterValues = 200
)

type imageMatcher func(img *ec2types.Image, vs valueSet) bool

// imageFilters are the DescribeImages filters the fake implements, keyed by
// EC2's filter name. Every value is matched as a wildcard pattern against
// the field's text; booleans read "true"/"false", numbers are decimal.
var imageFilters = map[string]imageMatcher{
	"architecture": func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.Architecture) },
	"block-device-mapping.delete-on-termination": func(i *ec2types.Image, vs valueSet) bool {
		return anyEBS(i, func(e *ec2types.EbsBlockDevice) bool { return vs.boolean(e.DeleteOnTermination) })
	},
	"block-device-mapping.device-name": func(i *ec2types.Image, vs valueSet) bool {
		for _, m := range i.BlockDeviceMappings {
			if vs.optional(m.DeviceName) {
				return true
			}
		}
		return false
	},
	"block-device-mapping.snapshot-id": func(i *ec2types.Image, vs valueSet) bool {
		return anyEBS(i, func(e *ec2types.EbsBlockDevice) bool { return vs.optional(e.SnapshotId) })
	},
	"block-device-mapping.volume-size": func(i *ec2types.Image, vs valueSet) bool {
		return anyEBS(i, func(e *ec2types.EbsBlockDevice) bool { return vs.int32p(e.VolumeSize) })
	},
	"block-device-mapping.volume-type": func(i *ec2types.Image, vs valueSet) bool {
		return anyEBS(i, func(e *ec2types.EbsBlockDevice) bool { return enum(vs, e.VolumeType) })
	},
	"block-device-mapping.encrypted": func(i *ec2types.Image, vs valueSet) bool {
		return anyEBS(i, func(e *ec2types.EbsBlockDevice) bool { return vs.boolean(e.Encrypted) })
	},
	"boot-mode":          func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.BootMode) },
	"creation-date":      func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.CreationDate) },
	"description":        func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.Description) },
	"ena-support":        func(i *ec2types.Image, vs valueSet) bool { return vs.boolean(i.EnaSupport) },
	"free-tier-eligible": func(i *ec2types.Image, vs valueSet) bool { return vs.boolean(i.FreeTierEligible) },
	"hypervisor":         func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.Hypervisor) },
	"image-allowed":      func(i *ec2types.Image, vs valueSet) bool { return vs.boolean(i.ImageAllowed) },
	"image-id":           func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.ImageId) },
	"image-type":         func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.ImageType) },
	"image-watermark.source-image-creation-time": watermarkTime("SourceImageCreationTime"),
	"image-watermark.source-image-id":            watermarkString("SourceImageId"),
	"image-watermark.source-image-region":        watermarkString("SourceImageRegion"),
	"image-watermark.watermark-creation-time":    watermarkTime("WatermarkCreationTime"),
	"image-watermark.watermark-key":              watermarkString("WatermarkKey"),
	"is-public": func(i *ec2types.Image, vs valueSet) bool {
		if i.Public != nil && *i.Public {
			return vs.any("true")
		}
		return vs.any("false")
	},
	"kernel-id":         func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.KernelId) },
	"manifest-location": func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.ImageLocation) },
	"name":              func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.Name) },
	"owner-alias":       func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.ImageOwnerAlias) },
	"owner-id":          func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.OwnerId) },
	"platform":          func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.Platform) },
	"product-code": func(i *ec2types.Image, vs valueSet) bool {
		for _, p := range i.ProductCodes {
			if vs.optional(p.ProductCodeId) {
				return true
			}
		}
		return false
	},
	"product-code.type": func(i *ec2types.Image, vs valueSet) bool {
		for _, p := range i.ProductCodes {
			if enum(vs, p.ProductCodeType) {
				return true
			}
		}
		return false
	},
	"public-ssm-parameter-name": func(i *ec2types.Image, vs valueSet) bool {
		name, _ := sdkfield.Get[*string](i, "PublicSsmParameterName") // ec2 v1.315.0 on
		return vs.optional(name)
	},
	"ramdisk-id":          func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.RamdiskId) },
	"root-device-name":    func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.RootDeviceName) },
	"root-device-type":    func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.RootDeviceType) },
	"source-image-id":     func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.SourceImageId) },
	"source-image-region": func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.SourceImageRegion) },
	"source-instance-id":  func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.SourceInstanceId) },
	"sriov-net-support":   func(i *ec2types.Image, vs valueSet) bool { return vs.optional(i.SriovNetSupport) },
	"state":               func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.State) },
	"state-reason-code": func(i *ec2types.Image, vs valueSet) bool {
		return i.StateReason != nil && vs.optional(i.StateReason.Code)
	},
	"state-reason-message": func(i *ec2types.Image, vs valueSet) bool {
		return i.StateReason != nil && vs.optional(i.StateReason.Message)
	},
	"tag-key": func(i *ec2types.Image, vs valueSet) bool {
		for _, t := range i.Tags {
			if vs.optional(t.Key) {
				return true
			}
		}
		return false
	},
	"tag-value": func(i *ec2types.Image, vs valueSet) bool {
		for _, t := range i.Tags {
			if vs.optional(t.Value) {
				return true
			}
		}
		return false
	},
	"virtualization-type": func(i *ec2types.Image, vs valueSet) bool { return enum(vs, i.VirtualizationType) },
}

// unsupportedImageFilters are real DescribeImages filters the fake does not
// implement; using one fails with CodeUnsupported rather than pretending
// the filter does not exist.
var unsupportedImageFilters = map[string]bool{
	"instance-type-specification.supported-instance-type":   true,
	"instance-type-specification.unsupported-instance-type": true,
	"scan-result.critical-fix-available-since":              true,
	"scan-result.finding-scan-date":                         true,
	"scan-result.high-fix-available-since":                  true,
	"scan-result.highest-finding-severity-label":            true,
	"scan-result.informational-fix-available-since":         true,
	"scan-result.low-fix-available-since":                   true,
	"scan-result.medium-fix-available-since":                true,
}

func tagMatcher(key string) imageMatcher {
	return func(i *ec2types.Image, vs valueSet) bool {
		for _, t := range i.Tags {
			if t.Key != nil && *t.Key == key && vs.optional(t.Value) {
				return true
			}
		}
		return false
	}
}

func anyEBS(i *ec2types.Image, f func(*ec2types.EbsBlockDevice) bool) bool {
	for _, m := range i.BlockDeviceMappings {
		if m.Ebs != nil && f(m.Ebs) {
			return true
		}
	}
	return false
}

// Image watermarks came with ec2 v1.310.0, after the lowest release the
// module requires: the filters read them by name (package sdkfield), and
// match no image where the release in use has none.

func watermarkString(field string) imageMatcher {
	return func(i *ec2types.Image, vs valueSet) bool {
		return sdkfield.Each(i, "ImageWatermarks", func(w any) bool {
			v, _ := sdkfield.Get[*string](w, field)
			return vs.optional(v)
		})
	}
}

func watermarkTime(field string) imageMatcher {
	return func(i *ec2types.Image, vs valueSet) bool {
		return sdkfield.Each(i, "ImageWatermarks", func(w any) bool {
			v, _ := sdkfield.Get[*time.Time](w, field)
			return vs.timep(v)
		})
	}
}

type typeMatcher func(t *ec2types.InstanceTypeInfo, vs valueSet) bool

// instanceTypeFilters implements every filter DescribeInstanceTypes
// documents (aws-sdk-go-v2 service/ec2 v1.344.0).
var instanceTypeFilters = map[string]typeMatcher{
	"auto-recovery-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.AutoRecoverySupported) },
	"bare-metal":              func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.BareMetal) },
	"burstable-performance-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return vs.boolean(t.BurstablePerformanceSupported)
	},
	"current-generation":        func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.CurrentGeneration) },
	"dedicated-hosts-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.DedicatedHostsSupported) },
	"ebs-info.attachment-limit-type": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.EbsInfo != nil && enum(vs, t.EbsInfo.AttachmentLimitType)
	},
	"ebs-info.maximum-ebs-attachments": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.EbsInfo != nil && vs.int32p(t.EbsInfo.MaximumEbsAttachments)
	},
	"ebs-info.ebs-optimized-info.baseline-bandwidth-in-mbps": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return ebsOpt(t, func(e *ec2types.EbsOptimizedInfo) bool { return vs.int32p(e.BaselineBandwidthInMbps) })
	},
	"ebs-info.ebs-optimized-info.baseline-iops": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return ebsOpt(t, func(e *ec2types.EbsOptimizedInfo) bool { return vs.int32p(e.BaselineIops) })
	},
	"ebs-info.ebs-optimized-info.baseline-throughput-in-mbps": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return ebsOpt(t, func(e *ec2types.EbsOptimizedInfo) bool { return vs.float64p(e.BaselineThroughputInMBps) })
	},
	"ebs-info.ebs-optimized-info.maximum-bandwidth-in-mbps": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return ebsOpt(t, func(e *ec2types.EbsOptimizedInfo) bool { return vs.int32p(e.MaximumBandwidthInMbps) })
	},
	"ebs-info.ebs-optimized-info.maximum-iops": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return ebsOpt(t, func(e *ec2types.EbsOptimizedInfo) bool { return vs.int32p(e.MaximumIops) })
	},
	"ebs-info.ebs-optimized-info.maximum-throughput-in-mbps": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return ebsOpt(t, func(e *ec2types.EbsOptimizedInfo) bool { return vs.float64p(e.MaximumThroughputInMBps) })
	},
	"ebs-info.ebs-optimized-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.EbsInfo != nil && enum(vs, t.EbsInfo.EbsOptimizedSupport)
	},
	"ebs-info.encryption-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.EbsInfo != nil && enum(vs, t.EbsInfo.EncryptionSupport)
	},
	"ebs-info.nvme-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.EbsInfo != nil && enum(vs, t.EbsInfo.NvmeSupport)
	},
	"free-tier-eligible":    func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.FreeTierEligible) },
	"hibernation-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.HibernationSupported) },
	"hypervisor":            func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return enum(vs, t.Hypervisor) },
	"instance-storage-info.disk.count": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return anyDisk(t, func(d *ec2types.DiskInfo) bool { return vs.int32p(d.Count) })
	},
	"instance-storage-info.disk.size-in-gb": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return anyDisk(t, func(d *ec2types.DiskInfo) bool { return vs.int64p(d.SizeInGB) })
	},
	"instance-storage-info.disk.type": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return anyDisk(t, func(d *ec2types.DiskInfo) bool { return enum(vs, d.Type) })
	},
	"instance-storage-info.encryption-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.InstanceStorageInfo != nil && enum(vs, t.InstanceStorageInfo.EncryptionSupport)
	},
	"instance-storage-info.nvme-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.InstanceStorageInfo != nil && enum(vs, t.InstanceStorageInfo.NvmeSupport)
	},
	"instance-storage-info.total-size-in-gb": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.InstanceStorageInfo != nil && vs.int64p(t.InstanceStorageInfo.TotalSizeInGB)
	},
	"instance-storage-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return vs.boolean(t.InstanceStorageSupported) },
	"instance-type":              func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return enum(vs, t.InstanceType) },
	"memory-info.size-in-mib": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.MemoryInfo != nil && vs.int64p(t.MemoryInfo.SizeInMiB)
	},
	"network-info.bandwidth-weightings": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && anyEnum(vs, t.NetworkInfo.BandwidthWeightings)
	},
	"network-info.efa-info.maximum-efa-interfaces": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && t.NetworkInfo.EfaInfo != nil && vs.int32p(t.NetworkInfo.EfaInfo.MaximumEfaInterfaces)
	},
	"network-info.efa-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.boolean(t.NetworkInfo.EfaSupported)
	},
	"network-info.ena-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && enum(vs, t.NetworkInfo.EnaSupport)
	},
	"network-info.flexible-ena-queues-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && enum(vs, t.NetworkInfo.FlexibleEnaQueuesSupport)
	},
	"network-info.encryption-in-transit-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.boolean(t.NetworkInfo.EncryptionInTransitSupported)
	},
	"network-info.ipv4-addresses-per-interface": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.int32p(t.NetworkInfo.Ipv4AddressesPerInterface)
	},
	"network-info.ipv6-addresses-per-interface": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.int32p(t.NetworkInfo.Ipv6AddressesPerInterface)
	},
	"network-info.ipv6-supported": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.boolean(t.NetworkInfo.Ipv6Supported)
	},
	"network-info.maximum-network-cards": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.int32p(t.NetworkInfo.MaximumNetworkCards)
	},
	"network-info.maximum-network-interfaces": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.int32p(t.NetworkInfo.MaximumNetworkInterfaces)
	},
	"network-info.network-performance": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NetworkInfo != nil && vs.optional(t.NetworkInfo.NetworkPerformance)
	},
	"nitro-enclaves-support": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return enum(vs, t.NitroEnclavesSupport) },
	"nitro-tpm-support":      func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return enum(vs, t.NitroTpmSupport) },
	"nitro-tpm-info.supported-versions": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.NitroTpmInfo != nil && anyEnum(vs, t.NitroTpmInfo.SupportedVersions)
	},
	"processor-info.supported-architecture": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.ProcessorInfo != nil && anyEnum(vs, t.ProcessorInfo.SupportedArchitectures)
	},
	"processor-info.sustained-clock-speed-in-ghz": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.ProcessorInfo != nil && vs.float64p(t.ProcessorInfo.SustainedClockSpeedInGhz)
	},
	"processor-info.supported-features": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.ProcessorInfo != nil && anyEnum(vs, t.ProcessorInfo.SupportedFeatures)
	},
	"reboot-migration-support":   func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return enum(vs, t.RebootMigrationSupport) },
	"supported-boot-mode":        func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return anyEnum(vs, t.SupportedBootModes) },
	"supported-root-device-type": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return anyEnum(vs, t.SupportedRootDeviceTypes) },
	"supported-usage-class":      func(t *ec2types.InstanceTypeInfo, vs valueSet) bool { return anyEnum(vs, t.SupportedUsageClasses) },
	"supported-virtualization-type": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return anyEnum(vs, t.SupportedVirtualizationTypes)
	},
	"vcpu-info.default-cores": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.VCpuInfo != nil && vs.int32p(t.VCpuInfo.DefaultCores)
	},
	"vcpu-info.default-threads-per-core": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.VCpuInfo != nil && vs.int32p(t.VCpuInfo.DefaultThreadsPerCore)
	},
	"vcpu-info.default-vcpus": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.VCpuInfo != nil && vs.int32p(t.VCpuInfo.DefaultVCpus)
	},
	"vcpu-info.valid-cores": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.VCpuInfo != nil && anyInt32(vs, t.VCpuInfo.ValidCores)
	},
	"vcpu-info.valid-threads-per-core": func(t *ec2types.InstanceTypeInfo, vs valueSet) bool {
		return t.VCpuInfo != nil && anyInt32(vs, t.VCpuInfo.ValidThreadsPerCore)
	},
}

func ebsOpt(t *ec2types.InstanceTypeInfo, f func(*ec2types.EbsOptimizedInfo) bool) bool {
	return t.EbsInfo != nil && t.EbsInfo.EbsOptimizedInfo != nil && f(t.EbsInfo.EbsOptimizedInfo)
}

func anyDisk(t *ec2types.InstanceTypeInfo, f func(*ec2types.DiskInfo) bool) bool {
	if t.InstanceStorageInfo == nil {
		return false
	}
	for k := range t.InstanceStorageInfo.Disks {
		if f(&t.InstanceStorageInfo.Disks[k]) {
			return true
		}
	}
	return false
}

func anyEnum[T ~string](vs valueSet, list []T) bool {
	for _, v := range list {
		if enum(vs, v) {
			return true
		}
	}
	return false
}

func anyInt32(vs valueSet, list []int32) bool {
	for _, v := range list {
		if vs.any(strconv.FormatInt(int64(v), 10)) {
			return true
		}
	}
	return false
}

func (vs valueSet) int32p(v *int32) bool {
	return v != nil && vs.any(strconv.FormatInt(int64(*v), 10))
}

func (vs valueSet) int64p(v *int64) bool {
	return v != nil && vs.any(strconv.FormatInt(*v, 10))
}

func (vs valueSet) float64p(v *float64) bool {
	return v != nil && vs.any(strconv.FormatFloat(*v, 'f', -1, 64))
}

// timep matches a timestamp in the ISO 8601 form the SDK sends and
// receives (2021-09-29T11:04:43.305Z), so "2021-09-29T*" matches a day.
func (vs valueSet) timep(v *time.Time) bool {
	return v != nil && vs.any(smithytime.FormatDateTime(*v))
}

// compiledFilter is one request filter, ready to match.
type compiledFilter[T any] struct {
	vs    valueSet
	match func(*T, valueSet) bool
}

// compileFilters validates and compiles a request's filters against table
// (and, for images, the tag:KEY form). Errors use EC2's codes and messages.
func compileFilters[T any](filters []ec2types.Filter, lookup func(name string) (func(*T, valueSet) bool, bool), unsupported map[string]bool) ([]compiledFilter[T], *apiError) {
	if len(filters) > maxFilters {
		return nil, newAPIError(CodeFilterLimitExceeded, "The maximum number of filters per request is %d; this request has %d.", maxFilters, len(filters))
	}
	out := make([]compiledFilter[T], 0, len(filters))
	for _, f := range filters {
		if f.Name == nil {
			return nil, newAPIError(CodeInvalidParameterValue, "The filter 'null' is invalid")
		}
		name := *f.Name
		if unsupported[name] {
			return nil, newAPIError(CodeUnsupported, "The filter '%s' is valid in EC2 but not implemented by ec2fake; filter the results in your code instead.", name)
		}
		m, ok := lookup(name)
		if !ok {
			return nil, newAPIError(CodeInvalidParameterValue, "The filter '%s' is invalid", name)
		}
		if len(f.Values) > maxFilterValues {
			return nil, newAPIError(CodeFilterLimitExceeded, "The maximum number of filter values specified on a single call is %d", maxFilterValues)
		}
		out = append(out, compiledFilter[T]{vs: compileValues(f.Values), match: m})
	}
	return out, nil
}

func lookupImageFilter(name string) (func(*ec2types.Image, valueSet) bool, bool) {
	if key, ok := strings.CutPrefix(name, "tag:"); ok && key != "" {
		return tagMatcher(key), true
	}
	m, ok := imageFilters[name]
	return m, ok
}

func lookupTypeFilter(name string) (func(*ec2types.InstanceTypeInfo, valueSet) bool, bool) {
	m, ok := instanceTypeFilters[name]
	return m, ok
}
