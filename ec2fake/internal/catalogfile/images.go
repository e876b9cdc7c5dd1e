package catalogfile

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// ImageColumns names the columns of an images file, in order.
var ImageColumns = []string{
	"id", "name", "arch", "created", "deprecated", "state", "state_reason", "owner", "owner_alias", "public",
	"platform", "platform_details", "usage_operation", "description", "root_device", "volumes", "tags",
}

// EncodeImage writes one image as a row (no trailing newline). Every
// catalog image is an EBS-backed HVM machine image on Xen with ENA and
// simple SR-IOV, its location is "{alias or owner}/{name}", and its
// volumes are unencrypted and deleted on termination: those fields have no
// column, and DecodeImages restores them.
func EncodeImage(img ec2types.Image) string {
	vols := make([]string, len(img.BlockDeviceMappings))
	for i, m := range img.BlockDeviceMappings {
		var size *int32
		var vt ec2types.VolumeType
		if m.Ebs != nil {
			size, vt = m.Ebs.VolumeSize, m.Ebs.VolumeType
		}
		vols[i] = str(m.DeviceName) + ":" + i32(size) + ":" + string(vt)
	}
	tags := make([]string, len(img.Tags))
	for i, t := range img.Tags {
		tags[i] = str(t.Key) + "=" + str(t.Value)
	}
	reason := ""
	if r := img.StateReason; r != nil {
		reason = str(r.Code) + ":" + str(r.Message)
	}
	return strings.Join([]string{
		str(img.ImageId), str(img.Name), string(img.Architecture), str(img.CreationDate), str(img.DeprecationTime),
		string(img.State), reason, str(img.OwnerId), str(img.ImageOwnerAlias), boolean(img.Public),
		string(img.Platform), str(img.PlatformDetails), str(img.UsageOperation), str(img.Description),
		str(img.RootDeviceName), strings.Join(vols, ","), strings.Join(tags, ","),
	}, "\t")
}

// DecodeImages parses an images file: '#' comment lines, the header row
// (ImageColumns), then one row per image.
func DecodeImages(data string) ([]ec2types.Image, error) {
	rows, err := splitRows(data, ImageColumns)
	if err != nil {
		return nil, err
	}
	out := make([]ec2types.Image, 0, len(rows))
	for _, r := range rows {
		img, err := decodeImage(r.fields)
		if err != nil {
			return nil, fmt.Errorf("catalogfile: line %d: %w", r.line, err)
		}
		out = append(out, img)
	}
	return out, nil
}

func decodeImage(f []string) (ec2types.Image, error) {
	var d decoder
	img := ec2types.Image{
		ImageId: aws.String(d.name(f[0])), Name: aws.String(d.name(f[1])), Architecture: ec2types.ArchitectureValues(f[2]),
		CreationDate: d.str(f[3]), DeprecationTime: d.str(f[4]), State: ec2types.ImageState(f[5]),
		OwnerId: aws.String(d.name(f[7])), ImageOwnerAlias: d.str(f[8]), Public: d.boolean(f[9]),
		Platform: ec2types.PlatformValues(f[10]), PlatformDetails: d.str(f[11]), UsageOperation: d.str(f[12]),
		Description: d.str(f[13]), RootDeviceName: d.str(f[14]),
		ImageType: ec2types.ImageTypeValuesMachine, VirtualizationType: ec2types.VirtualizationTypeHvm,
		RootDeviceType: ec2types.DeviceTypeEbs, Hypervisor: ec2types.HypervisorTypeXen,
		EnaSupport: aws.Bool(true), SriovNetSupport: aws.String("simple"),
	}
	if f[6] != "" {
		code, msg, _ := strings.Cut(f[6], ":")
		img.StateReason = &ec2types.StateReason{Code: aws.String(code), Message: aws.String(msg)}
	}
	img.ImageLocation = aws.String(aws.ToString(img.OwnerId) + "/" + f[1])
	if img.ImageOwnerAlias != nil {
		img.ImageLocation = aws.String(*img.ImageOwnerAlias + "/" + f[1])
	}
	if f[15] != "" {
		for _, item := range strings.Split(f[15], ",") {
			p := d.parts(item, 3, "volume")
			img.BlockDeviceMappings = append(img.BlockDeviceMappings, ec2types.BlockDeviceMapping{
				DeviceName: aws.String(p[0]),
				Ebs: &ec2types.EbsBlockDevice{VolumeSize: d.i32(p[1]), VolumeType: ec2types.VolumeType(p[2]),
					DeleteOnTermination: aws.Bool(true), Encrypted: aws.Bool(false)},
			})
		}
	}
	if f[16] != "" {
		for _, item := range strings.Split(f[16], ",") {
			k, v, ok := strings.Cut(item, "=")
			if !ok {
				d.fail("tag %q is not key=value", item)
			}
			img.Tags = append(img.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
	}
	return img, d.err
}
