package catalogfile_test

import (
	"strconv"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/ec2fake/internal/catalogfile"
	"github.com/ec2select/ec2select/ec2fake/internal/sdkfield"
)

var typeHeader = strings.Join(catalogfile.TypeColumns, "\t") + "\n"
var imageHeader = strings.Join(catalogfile.ImageColumns, "\t") + "\n"

// Every catalog row reads back as written.
func TestCatalogRoundTrips(t *testing.T) {
	images, types := ec2fake.DefaultCatalog()
	for _, it := range types {
		row := catalogfile.EncodeType(it)
		back, err := catalogfile.DecodeTypes(typeHeader + row + "\n")
		if err != nil || len(back) != 1 {
			t.Fatalf("%s: %v", it.InstanceType, err)
		}
		if diff := cmp.Diff(it, back[0], cmpopts.IgnoreUnexported(ec2types.InstanceTypeInfo{}), ignoreSDKMarkers); diff != "" {
			t.Errorf("%s (-catalog +decoded):\n%s", it.InstanceType, diff)
		}
	}
	for _, img := range images {
		back, err := catalogfile.DecodeImages(imageHeader + catalogfile.EncodeImage(img) + "\n")
		if err != nil || len(back) != 1 {
			t.Fatalf("%s: %v", *img.ImageId, err)
		}
		if diff := cmp.Diff(img, back[0], ignoreSDKMarkers); diff != "" {
			t.Errorf("%s (-catalog +decoded):\n%s", *img.ImageId, diff)
		}
	}
}

var ignoreSDKMarkers = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name() == "noSmithyDocumentSerde"
}, cmp.Ignore())

func TestDecodeErrors(t *testing.T) {
	row := func(fields map[int]string) string {
		f := make([]string, len(catalogfile.TypeColumns))
		f[0], f[1], f[2], f[5] = "m5.large", "x86_64", "2", "8192"
		for i, v := range fields {
			f[i] = v
		}
		return strings.Join(f, "\t")
	}
	tests := []struct{ name, data, want string }{
		{"no header", "# only a comment\n", "no header row"},
		{"wrong header", "name\tarchs\n", "header \"name,archs\""},
		{"short row", typeHeader + "m5.large\tx86_64\n", "line 2: 2 fields; want 30"},
		{"bad integer", typeHeader + row(map[int]string{2: "two"}), `line 2: "two" is not a 32-bit integer`},
		{"bad boolean", typeHeader + row(map[int]string{9: "yes"}), `"yes" is not true or false`},
		{"bad float", typeHeader + row(map[int]string{7: "3,1"}), `"3,1" is not a number`},
		{"empty name", typeHeader + row(map[int]string{0: ""}), "empty name"},
		{"GPU parts", typeHeader + row(map[int]string{27: "NVIDIA:T4:1"}), `GPU "NVIDIA:T4:1" has 3 colon-separated parts; want 6`},
		{"card parts", typeHeader + row(map[int]string{24: "0:4"}), `network card "0:4" has 2`},
		{"bad default card", typeHeader + row(map[int]string{25: "first"}), `"first" is not a 32-bit integer`},
		{"bad IPv6 support", typeHeader + row(map[int]string{23: "yes"}), `"yes" is not true or false`},
		{"comment lines count", typeHeader + "# x\n" + row(map[int]string{3: "x"}), `line 3: "x"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := catalogfile.DecodeTypes(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "catalogfile: ") {
				t.Fatalf("DecodeTypes error = %v; want one starting catalogfile: and containing %q", err, tc.want)
			}
		})
	}
	image := func(volumes, tags string) string {
		f := make([]string, len(catalogfile.ImageColumns))
		f[0], f[1], f[2], f[5], f[7], f[15], f[16] = "ami-1", "n", "x86_64", "available", "111122223333", volumes, tags
		return imageHeader + strings.Join(f, "\t") + "\n"
	}
	if _, err := catalogfile.DecodeImages(image("/dev/xvda:20:gp3", "team=platform")); err != nil {
		t.Fatalf("the well-formed image row fails: %v", err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"tag without =", image("", "team"), `tag "team" is not key=value`},
		{"volume parts", image("/dev/xvda:20", ""), `volume "/dev/xvda:20" has 2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := catalogfile.DecodeImages(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("DecodeImages error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// Law: decoding is a left inverse of encoding on decoded values — a row
// that decodes re-encodes to itself.
func TestEncodeDecodeFixedPoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		num := func(label string) string {
			return rapid.OneOf(rapid.Just(""), rapid.Map(rapid.IntRange(0, 1<<20), strconv.Itoa)).Draw(t, label)
		}
		word := rapid.StringMatching(`[A-Za-z0-9 .-]{0,12}`)
		f := make([]string, len(catalogfile.TypeColumns))
		f[0] = rapid.StringMatching(`[a-z][a-z0-9-]{0,8}\.[a-z0-9-]{1,8}`).Draw(t, "name")
		f[1] = rapid.SampledFrom([]string{"", "x86_64", "arm64", "i386,x86_64"}).Draw(t, "archs")
		for _, i := range []int{2, 3, 4, 5, 14, 15, 16, 20, 21, 22, 25, 26} {
			f[i] = num(catalogfile.TypeColumns[i])
		}
		f[6] = word.Draw(t, "mfr")
		f[7] = rapid.SampledFrom([]string{"", "2.5", "3", "0.125"}).Draw(t, "ghz")
		for _, i := range []int{9, 10, 11, 18, 23} {
			f[i] = rapid.SampledFrom([]string{"", "true", "false"}).Draw(t, catalogfile.TypeColumns[i])
		}
		if f[16] != "" {
			f[17] = "required"
		}
		f[24] = rapid.SampledFrom([]string{"", "0::2.5", "0:4:100,1:4:"}).Draw(t, "cards")
		gpus := []string{"", "NVIDIA:T4:1:16384::"}
		if _, fractional := sdkfield.Get[*int32](&ec2types.GpuDeviceInfo{}, "LogicalGpuCount"); fractional {
			gpus = append(gpus, "NVIDIA:L4:0:2861:1:0.125") // ec2 v1.281.0 on
		}
		f[27] = rapid.SampledFrom(gpus).Draw(t, "gpus")
		f[28] = rapid.SampledFrom([]string{"", "Trainium2:16:8:3:98304"}).Draw(t, "neuron")
		f[29] = rapid.SampledFrom([]string{"", "AWS:Inferentia:1"}).Draw(t, "inference")
		row := strings.Join(f, "\t")
		got, err := catalogfile.DecodeTypes(typeHeader + row + "\n")
		if err != nil {
			t.Fatalf("DecodeTypes(%q): %v", row, err)
		}
		if again := catalogfile.EncodeType(got[0]); again != row {
			t.Fatalf("row %q re-encodes as %q", row, again)
		}
	})
}

func FuzzDecodeTypes(f *testing.F) {
	_, types := ec2fake.DefaultCatalog()
	for _, it := range types[:20] {
		f.Add(typeHeader + catalogfile.EncodeType(it) + "\n")
	}
	f.Add("# c\n" + typeHeader + "\n")
	f.Fuzz(func(t *testing.T, data string) {
		got, err := catalogfile.DecodeTypes(data)
		if err != nil {
			return
		}
		for _, it := range got {
			row := catalogfile.EncodeType(it)
			back, err := catalogfile.DecodeTypes(typeHeader + row + "\n")
			if err != nil || catalogfile.EncodeType(back[0]) != row {
				t.Fatalf("decoded %s does not re-decode: %v", it.InstanceType, err)
			}
		}
	})
}

func FuzzDecodeImages(f *testing.F) {
	images, _ := ec2fake.DefaultCatalog()
	for _, img := range images[:20] {
		f.Add(imageHeader + catalogfile.EncodeImage(img) + "\n")
	}
	f.Fuzz(func(t *testing.T, data string) {
		got, err := catalogfile.DecodeImages(data)
		if err != nil {
			return
		}
		for _, img := range got {
			row := catalogfile.EncodeImage(img)
			back, err := catalogfile.DecodeImages(imageHeader + row + "\n")
			if err != nil || catalogfile.EncodeImage(back[0]) != row {
				t.Fatalf("decoded %s does not re-decode: %v", *img.ImageId, err)
			}
		}
	})
}
