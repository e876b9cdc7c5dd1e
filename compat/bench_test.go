package compat

import (
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// benchInfo is a fully populated m5.large, as DescribeInstanceTypes gives it.
func benchInfo() ec2types.InstanceTypeInfo {
	return info("m5.large", ec2types.ArchitectureTypeX8664, 2, 8192, func(i *ec2types.InstanceTypeInfo) {
		i.ProcessorInfo.Manufacturer = aws.String("Intel")
		i.ProcessorInfo.SustainedClockSpeedInGhz = aws.Float64(3.1)
		i.EbsInfo = &ec2types.EbsInfo{EbsOptimizedSupport: ec2types.EbsOptimizedSupportDefault, EbsOptimizedInfo: &ec2types.EbsOptimizedInfo{MaximumBandwidthInMbps: aws.Int32(4750)}}
		i.NetworkInfo.NetworkCards = []ec2types.NetworkCardInfo{{BaselineBandwidthInGbps: aws.Float64(0.75)}}
	})
}

func benchPair(tb testing.TB) (instance, ami Requirements) {
	it, err := InstanceTypeFromEC2(benchInfo())
	if err != nil {
		tb.Fatal(err)
	}
	return it.Requirements(), standardVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
}

// TestCompatibleAllocs guards the hot path: comparing an instance type with
// an AMI allocates nothing, whether they match or not.
func TestCompatibleAllocs(t *testing.T) {
	instance, standard := benchPair(t)
	nvidia := nvidiaVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
	if n := instance.Len(); n < 25 {
		t.Fatalf("the instance side has %d keys; the benchmark promises about 25", n)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if instance.Compatible(standard) != nil {
			t.Fatal("m5.large must be compatible with a standard amd64 AMI")
		}
	}); allocs != 0 {
		t.Errorf("Compatible (match) allocates %v times; want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if _, conflict := instance.Conflict(nvidia); !conflict {
			t.Fatal("m5.large must conflict with an NVIDIA AMI")
		}
	}); allocs != 0 {
		t.Errorf("Conflict (mismatch) allocates %v times; want 0", allocs)
	}
}

func BenchmarkCompatible(b *testing.B) {
	instance, standard := benchPair(b)
	nvidia := nvidiaVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
	b.Run("match", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if instance.Compatible(standard) != nil {
				b.Fatal("want compatible")
			}
		}
	})
	b.Run("conflict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, conflict := instance.Conflict(nvidia); !conflict {
				b.Fatal("want a conflict")
			}
		}
	})
	b.Run("error", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if instance.Compatible(nvidia) == nil {
				b.Fatal("want an error")
			}
		}
	})
}

func BenchmarkIntersect(b *testing.B) {
	instance, _ := benchPair(b)
	nodePool := MustRequirements(
		req(LabelArch, In, ArchAMD64, ArchARM64),
		req(LabelInstanceCategory, In, "c", "m", "r"),
		req(LabelInstanceGeneration, Gt, "4"),
		req(LabelCapacityType, In, "spot", "on-demand"),
	)
	b.ReportAllocs()
	for b.Loop() {
		_ = instance.Intersect(nodePool)
	}
}

func BenchmarkInstanceTypeFromEC2(b *testing.B) {
	i := benchInfo()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := InstanceTypeFromEC2(i); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRequirements(b *testing.B) {
	it, err := InstanceTypeFromEC2(benchInfo())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = it.Requirements()
	}
}

func BenchmarkInstanceTypeConflict(b *testing.B) {
	it, err := InstanceTypeFromEC2(benchInfo())
	if err != nil {
		b.Fatal(err)
	}
	standard := standardVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
	nvidia := nvidiaVariant().Intersect(MustRequirements(req(LabelArch, In, ArchAMD64)))
	b.Run("match", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, conflict := it.Conflict(standard); conflict {
				b.Fatal("want compatible")
			}
		}
	})
	b.Run("conflict", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, conflict := it.Conflict(nvidia); !conflict {
				b.Fatal("want a conflict")
			}
		}
	})
}

func BenchmarkInstanceTypeFromLabels(b *testing.B) {
	it, err := InstanceTypeFromEC2(benchInfo())
	if err != nil {
		b.Fatal(err)
	}
	labels := it.Labels()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := InstanceTypeFromLabels(labels); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSatisfiesMinValues checks a NodePool's usual minValues (three
// families, five types) against n instance types of which only the last
// ones complete the families, so every type is looked at.
func BenchmarkSatisfiesMinValues(b *testing.B) {
	reqs := MustRequirements(
		Requirement{Key: LabelInstanceFamily, Operator: Exists, MinValues: 3},
		Requirement{Key: LabelInstanceType, Operator: Exists, MinValues: 5},
	)
	for _, n := range []int{10, 100, 800} {
		types := make([]InstanceType, n)
		for i := range types {
			types[i] = InstanceType{Name: "m5.size" + strconv.Itoa(i), Family: "m5", Arch: ArchAMD64}
		}
		types[n-2].Family, types[n-1].Family = "c5", "r5"
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if needed, err := reqs.SatisfiesMinValues(types); err != nil || needed != n {
					b.Fatalf("SatisfiesMinValues = %d, %v; want %d, nil", needed, err, n)
				}
			}
		})
	}
}
