package catalogfile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

type row struct {
	line   int
	fields []string
}

// splitRows checks the header and cuts the body into rows of exactly
// len(columns) tab-separated fields.
func splitRows(data string, columns []string) ([]row, error) {
	var rows []row
	header := false
	for n := 1; data != ""; n++ {
		var line string
		line, data, _ = strings.Cut(data, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, "\t")
		if !header {
			if got, want := strings.Join(fields, ","), strings.Join(columns, ","); got != want {
				return nil, fmt.Errorf("catalogfile: line %d: header %q; want %q", n, got, want)
			}
			header = true
			continue
		}
		if len(fields) != len(columns) {
			return nil, fmt.Errorf("catalogfile: line %d: %d fields; want %d (%s)", n, len(fields), len(columns), strings.Join(columns, ", "))
		}
		rows = append(rows, row{line: n, fields: fields})
	}
	if !header {
		return nil, fmt.Errorf("catalogfile: no header row; want %q", strings.Join(columns, "\t"))
	}
	return rows, nil
}

// decoder parses fields, keeping the first error so a row decodes in one
// straight pass. An empty field is an absent (nil) value.
type decoder struct{ err error }

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) name(s string) string {
	if s == "" {
		d.fail("empty name")
	}
	return s
}

func (d *decoder) str(s string) *string {
	if s == "" {
		return nil
	}
	return aws.String(s)
}

func (d *decoder) i32(s string) *int32 {
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		d.fail("%q is not a 32-bit integer", s)
		return nil
	}
	return aws.Int32(int32(n))
}

func (d *decoder) i64(s string) *int64 {
	if s == "" {
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		d.fail("%q is not an integer", s)
		return nil
	}
	return aws.Int64(n)
}

func (d *decoder) f64(s string) *float64 {
	if s == "" {
		return nil
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		d.fail("%q is not a number", s)
		return nil
	}
	return aws.Float64(n)
}

func (d *decoder) boolean(s string) *bool {
	switch s {
	case "":
		return nil
	case "true":
		return aws.Bool(true)
	case "false":
		return aws.Bool(false)
	}
	d.fail("%q is not true or false", s)
	return nil
}

// parts splits a list item into exactly n colon-separated parts.
func (d *decoder) parts(item string, n int, what string) []string {
	p := strings.Split(item, ":")
	if len(p) != n {
		d.fail("%s %q has %d colon-separated parts; want %d", what, item, len(p), n)
		return make([]string, n)
	}
	return p
}

func (d *decoder) ebs(support, max, base string) *ec2types.EbsInfo {
	if support == "" && max == "" && base == "" {
		return nil
	}
	e := &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupport(support)}
	if max != "" || base != "" {
		e.EbsOptimizedInfo = &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: d.i32(max), BaselineBandwidthInMbps: d.i32(base)}
	}
	return e
}

// network decodes encryption_in_transit, ena, max_enis, ipv4_per_eni,
// ipv6_per_eni, ipv6_supported, network_cards, default_card and
// efa_interfaces.
func (d *decoder) network(f []string) *ec2types.NetworkInfo {
	if strings.Join(f, "") == "" {
		return nil
	}
	n := &ec2types.NetworkInfo{
		EncryptionInTransitSupported: d.boolean(f[0]), EnaSupport: ec2types.EnaSupport(f[1]),
		MaximumNetworkInterfaces: d.i32(f[2]), Ipv4AddressesPerInterface: d.i32(f[3]),
		Ipv6AddressesPerInterface: d.i32(f[4]), Ipv6Supported: d.boolean(f[5]),
		DefaultNetworkCardIndex: d.i32(f[7]),
	}
	if f[6] != "" {
		for _, item := range strings.Split(f[6], ",") {
			p := d.parts(item, 3, "network card")
			n.NetworkCards = append(n.NetworkCards, ec2types.NetworkCardInfo{
				NetworkCardIndex: d.i32(p[0]), MaximumNetworkInterfaces: d.i32(p[1]), BaselineBandwidthInGbps: d.f64(p[2])})
		}
		n.MaximumNetworkCards = aws.Int32(int32(len(n.NetworkCards)))
	}
	// EC2 answers EfaSupported for every type, true exactly when it
	// lists EFA interfaces.
	n.EfaSupported = aws.Bool(f[8] != "")
	if f[8] != "" {
		n.EfaInfo = &ec2types.EfaInfo{MaximumEfaInterfaces: d.i32(f[8])}
	}
	return n
}

func (d *decoder) gpus(s string) *ec2types.GpuInfo {
	if s == "" {
		return nil
	}
	g := &ec2types.GpuInfo{}
	var total int32
	for _, item := range strings.Split(s, ",") {
		p := d.parts(item, 6, "GPU")
		dev := ec2types.GpuDeviceInfo{Manufacturer: d.str(p[0]), Name: d.str(p[1]), Count: d.i32(p[2])}
		// A fractional GPU's fields, which ec2 releases before v1.281.0 lack.
		sdkfield.Set(&dev, "LogicalGpuCount", d.i32(p[4]))
		sdkfield.Set(&dev, "GpuPartitionSize", d.f64(p[5]))
		if mem := d.i32(p[3]); mem != nil {
			dev.MemoryInfo = &ec2types.GpuDeviceMemoryInfo{SizeInMiB: mem}
			total += *mem * max(aws.ToInt32(dev.Count), 1)
		}
		g.Gpus = append(g.Gpus, dev)
	}
	g.TotalGpuMemoryInMiB = aws.Int32(total)
	return g
}

func (d *decoder) neuron(s string) *ec2types.NeuronInfo {
	if s == "" {
		return nil
	}
	n := &ec2types.NeuronInfo{}
	var total int32
	for _, item := range strings.Split(s, ",") {
		p := d.parts(item, 5, "Neuron device")
		dev := ec2types.NeuronDeviceInfo{Name: d.str(p[0]), Count: d.i32(p[1])}
		if p[2] != "" || p[3] != "" {
			dev.CoreInfo = &ec2types.NeuronDeviceCoreInfo{Count: d.i32(p[2]), Version: d.i32(p[3])}
		}
		if mem := d.i32(p[4]); mem != nil {
			dev.MemoryInfo = &ec2types.NeuronDeviceMemoryInfo{SizeInMiB: mem}
			total += *mem * aws.ToInt32(dev.Count)
		}
		n.NeuronDevices = append(n.NeuronDevices, dev)
	}
	n.TotalNeuronDeviceMemoryInMiB = aws.Int32(total)
	return n
}

func (d *decoder) inference(s string) *ec2types.InferenceAcceleratorInfo {
	if s == "" {
		return nil
	}
	a := &ec2types.InferenceAcceleratorInfo{}
	for _, item := range strings.Split(s, ",") {
		p := d.parts(item, 3, "inference accelerator")
		a.Accelerators = append(a.Accelerators, ec2types.InferenceDeviceInfo{Manufacturer: d.str(p[0]), Name: d.str(p[1]), Count: d.i32(p[2])})
	}
	return a
}

func i32(p *int32) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(int64(*p), 10)
}

func i64(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func f64(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func str(p *string) string { return aws.ToString(p) }

func boolean(p *bool) string {
	if p == nil {
		return ""
	}
	return strconv.FormatBool(*p)
}

func joinEnum[E ~string](vs []E) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ",")
}

func splitEnum[E ~string](s string) []E {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]E, len(parts))
	for i, p := range parts {
		out[i] = E(p)
	}
	return out
}
