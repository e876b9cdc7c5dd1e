package ec2fake

import (
	"reflect"
	"sync"

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
// copy, by hand for the fields images commonly carry (imageHand and
// ebsHand name them) and through reflection for any other field that is set. So a
// field an SDK release adds is deep-copied too, and the code names no
// field the lowest SDK release the module requires lacks.
// TestCloneImageSharesNothing fills every field and checks the copy.
// It writes into dst, so that the copy is made where it is kept.
func cloneImage(dst, src *ec2types.Image) {
	out := dst
	*out = *src
	if src.BlockDeviceMappings != nil {
		out.BlockDeviceMappings = make([]ec2types.BlockDeviceMapping, len(src.BlockDeviceMappings))
		for i, m := range src.BlockDeviceMappings {
			m.DeviceName, m.NoDevice, m.VirtualName = dup(m.DeviceName), dup(m.NoDevice), dup(m.VirtualName)
			if m.Ebs != nil {
				e := *m.Ebs
				e.AvailabilityZone, e.AvailabilityZoneId, e.KmsKeyId = dup(e.AvailabilityZone), dup(e.AvailabilityZoneId), dup(e.KmsKeyId)
				e.OutpostArn, e.SnapshotId = dup(e.OutpostArn), dup(e.SnapshotId)
				e.DeleteOnTermination, e.Encrypted = dup(e.DeleteOnTermination), dup(e.Encrypted)
				e.Iops, e.Throughput = dup(e.Iops), dup(e.Throughput)
				e.VolumeInitializationRate, e.VolumeSize = dup(e.VolumeInitializationRate), dup(e.VolumeSize)
				copyRest(&e, m.Ebs, ebsRest())
				m.Ebs = &e
			}
			out.BlockDeviceMappings[i] = m
		}
	}
	out.CreationDate, out.DeprecationTime, out.DeregistrationProtection = dup(src.CreationDate), dup(src.DeprecationTime), dup(src.DeregistrationProtection)
	out.Description, out.EnaSupport, out.FreeTierEligible, out.ImageAllowed = dup(src.Description), dup(src.EnaSupport), dup(src.FreeTierEligible), dup(src.ImageAllowed)
	out.ImageId, out.ImageLocation, out.ImageOwnerAlias = dup(src.ImageId), dup(src.ImageLocation), dup(src.ImageOwnerAlias)
	out.KernelId, out.LastLaunchedTime, out.Name, out.OwnerId = dup(src.KernelId), dup(src.LastLaunchedTime), dup(src.Name), dup(src.OwnerId)
	out.PlatformDetails = dup(src.PlatformDetails)
	if src.ProductCodes != nil {
		out.ProductCodes = make([]ec2types.ProductCode, len(src.ProductCodes))
		for i, p := range src.ProductCodes {
			p.ProductCodeId = dup(p.ProductCodeId)
			out.ProductCodes[i] = p
		}
	}
	out.Public, out.RamdiskId, out.RootDeviceName = dup(src.Public), dup(src.RamdiskId), dup(src.RootDeviceName)
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
	copyRest(out, src, imageRest())
}

// copyRest deep-copies into dst each field of src that rest lists and
// that is set.
func copyRest[T any](dst, src *T, rest []int) {
	if len(rest) == 0 {
		return
	}
	sv, dv := reflect.ValueOf(src).Elem(), reflect.ValueOf(dst).Elem()
	for _, i := range rest {
		if f := sv.Field(i); !f.IsZero() {
			deepCopy(dv.Field(i), f)
		}
	}
}

// restOf lists the indices of the exported fields of T that can share
// memory and that hand does not name: what cloneImage leaves to copyRest.
func restOf[T any](hand map[string]bool) []int {
	t := reflect.TypeFor[T]()
	var rest []int
	for i := range t.NumField() {
		f := t.Field(i)
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Struct, reflect.Interface:
			if f.IsExported() && !hand[f.Name] {
				rest = append(rest, i)
			}
		}
	}
	return rest
}

// The fields cloneImage copies by hand, and what is left to copyRest.
var (
	imageRest = sync.OnceValue(func() []int { return restOf[ec2types.Image](imageHand) })
	ebsRest   = sync.OnceValue(func() []int { return restOf[ec2types.EbsBlockDevice](ebsHand) })
	ebsHand   = map[string]bool{
		"AvailabilityZone": true, "AvailabilityZoneId": true, "KmsKeyId": true, "OutpostArn": true, "SnapshotId": true,
		"DeleteOnTermination": true, "Encrypted": true, "Iops": true, "Throughput": true,
		"VolumeInitializationRate": true, "VolumeSize": true,
	}
)

// imageHand names the fields of ec2types.Image cloneImage copies by hand.
var imageHand = map[string]bool{
	"BlockDeviceMappings": true, "CreationDate": true, "DeprecationTime": true, "DeregistrationProtection": true,
	"Description": true, "EnaSupport": true, "FreeTierEligible": true, "ImageAllowed": true,
	"ImageId": true, "ImageLocation": true, "ImageOwnerAlias": true, "KernelId": true,
	"LastLaunchedTime": true, "Name": true, "OwnerId": true, "PlatformDetails": true,
	"ProductCodes": true, "Public": true, "RamdiskId": true, "RootDeviceName": true,
	"SourceImageId": true, "SourceImageRegion": true, "SourceInstanceId": true,
	"SriovNetSupport": true, "UsageOperation": true, "StateReason": true, "Tags": true,
}

// dup copies the value behind a pointer to a type without pointers inside.
func dup[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
