package ec2fake

import (
	"reflect"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// clone returns a deep copy of v: pointers, slices and maps reachable
// through exported fields are duplicated, so the copy shares no memory the
// caller could mutate. Struct values are first copied whole, which keeps
// unexported state such as time.Time's.
func clone[T any](v T) T {
	var out T
	deepCopy(reflect.ValueOf(&out).Elem(), reflect.ValueOf(&v).Elem())
	return out
}

func deepCopy(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.New(src.Type().Elem())
		deepCopy(n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Slice:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			deepCopy(n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Map:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		n := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			v := reflect.New(src.Type().Elem()).Elem()
			deepCopy(v, it.Value())
			n.SetMapIndex(it.Key(), v)
		}
		dst.Set(n)
	case reflect.Struct:
		dst.Set(src)
		for i := range src.NumField() {
			switch f := src.Field(i); f.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Struct, reflect.Interface:
				if d := dst.Field(i); d.CanSet() { // exported
					deepCopy(d, f)
				}
			}
		}
	case reflect.Interface:
		if src.IsNil() {
			dst.SetZero()
			return
		}
		c := reflect.New(src.Elem().Type()).Elem()
		deepCopy(c, src.Elem())
		dst.Set(c)
	default:
		dst.Set(src)
	}
}

// cloneImage is clone for the hot path of DescribeImages: the same deep
// copy without reflection for the fields images commonly carry. Rarely
// used nested structs fall back to clone. TestCloneImageSharesNothing
// fails if an SDK upgrade adds a field this misses.
func cloneImage(src *ec2types.Image) ec2types.Image {
	out := *src
	if src.BlockDeviceMappings != nil {
		out.BlockDeviceMappings = make([]ec2types.BlockDeviceMapping, len(src.BlockDeviceMappings))
		for i, m := range src.BlockDeviceMappings {
			m.DeviceName, m.NoDevice, m.VirtualName = dup(m.DeviceName), dup(m.NoDevice), dup(m.VirtualName)
			if m.Ebs != nil {
				e := *m.Ebs
				e.AvailabilityZone, e.AvailabilityZoneId, e.KmsKeyId = dup(e.AvailabilityZone), dup(e.AvailabilityZoneId), dup(e.KmsKeyId)
				e.OutpostArn, e.SnapshotId = dup(e.OutpostArn), dup(e.SnapshotId)
				e.DeleteOnTermination, e.Encrypted = dup(e.DeleteOnTermination), dup(e.Encrypted)
				e.EbsCardIndex, e.Iops, e.Throughput = dup(e.EbsCardIndex), dup(e.Iops), dup(e.Throughput)
				e.VolumeInitializationRate, e.VolumeSize = dup(e.VolumeInitializationRate), dup(e.VolumeSize)
				m.Ebs = &e
			}
			out.BlockDeviceMappings[i] = m
		}
	}
	out.CreationDate, out.DeprecationTime, out.DeregistrationProtection = dup(src.CreationDate), dup(src.DeprecationTime), dup(src.DeregistrationProtection)
	out.Description, out.EnaSupport, out.FreeTierEligible, out.ImageAllowed = dup(src.Description), dup(src.EnaSupport), dup(src.FreeTierEligible), dup(src.ImageAllowed)
	out.ImageId, out.ImageLocation, out.ImageOwnerAlias = dup(src.ImageId), dup(src.ImageLocation), dup(src.ImageOwnerAlias)
	if src.ImageWatermarks != nil {
		out.ImageWatermarks = clone(src.ImageWatermarks)
	}
	if src.InstanceTypeSpecification != nil {
		c := clone(*src.InstanceTypeSpecification)
		out.InstanceTypeSpecification = &c
	}
	out.KernelId, out.LastLaunchedTime, out.Name, out.OwnerId = dup(src.KernelId), dup(src.LastLaunchedTime), dup(src.Name), dup(src.OwnerId)
	out.PlatformDetails = dup(src.PlatformDetails)
	if src.ProductCodes != nil {
		out.ProductCodes = make([]ec2types.ProductCode, len(src.ProductCodes))
		for i, p := range src.ProductCodes {
			p.ProductCodeId = dup(p.ProductCodeId)
			out.ProductCodes[i] = p
		}
	}
	out.Public, out.PublicSsmParameterName, out.RamdiskId, out.RootDeviceName = dup(src.Public), dup(src.PublicSsmParameterName), dup(src.RamdiskId), dup(src.RootDeviceName)
	if src.ScanResults != nil {
		c := clone(*src.ScanResults)
		out.ScanResults = &c
	}
	out.SourceImageId, out.SourceImageRegion, out.SourceInstanceId = dup(src.SourceImageId), dup(src.SourceImageRegion), dup(src.SourceInstanceId)
	out.SriovNetSupport, out.UsageOperation = dup(src.SriovNetSupport), dup(src.UsageOperation)
	if src.StateReason != nil {
		r := ec2types.StateReason{Code: dup(src.StateReason.Code), Message: dup(src.StateReason.Message)}
		out.StateReason = &r
	}
	if src.Tags != nil {
		out.Tags = make([]ec2types.Tag, len(src.Tags))
		for i, t := range src.Tags {
			out.Tags[i] = ec2types.Tag{Key: dup(t.Key), Value: dup(t.Value)}
		}
	}
	return out
}

// dup copies the value behind a pointer to a type without pointers inside.
func dup[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
