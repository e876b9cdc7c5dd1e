package pricedata

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The embedded snapshot holds Karpenter v1.14.1's tables (README.md):
// counts per region and prices read off the Go files
// (zz_generated.pricing_aws.go: "m5.large": 0.096000; cn: "c5.metal": 35.490000).
func TestEmbeddedSnapshot(t *testing.T) {
	tb, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, o := range tb.OnDemand {
		counts[o.Region]++
	}
	want := map[string]int{"us-east-1": 1361, "us-gov-east-1": 503, "us-gov-west-1": 724, "cn-north-1": 316}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("rows per region (-want +got):\n%s", diff)
	}
	find := func(region, typ string) OnDemand {
		for _, o := range tb.OnDemand {
			if o.Region == region && o.InstanceType == typ {
				return o
			}
		}
		t.Fatalf("%s %s not in the snapshot", region, typ)
		return OnDemand{}
	}
	if o := find("us-east-1", "m5.large"); o.Value != 0.096 || o.Tenancy != "Shared" || o.Family != "Compute Instance" {
		t.Errorf("us-east-1 m5.large = %+v", o)
	}
	if o := find("cn-north-1", "c5.metal"); o.Value != 35.49 || o.Tenancy != "Dedicated" || o.Family != "Compute Instance (bare metal)" {
		t.Errorf("cn-north-1 c5.metal = %+v", o)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tb, "ec2select price snapshot: on-demand list prices, in the format internal/pricedata documents.\nGenerated from recorded upstream tables; do not edit. Provenance: internal/pricedata/README.md."); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), embedded) {
		t.Error("the embedded file is not what Write makes of it: regenerate it with Write, never edit it by hand")
	}
}

func TestReadErrors(t *testing.T) {
	src := "format\t1\nsource\tus-east-1\tUSD\t2026-01-01T00:00:00Z\tx\n"
	od := "ondemand\tus-east-1\tm5.large\tLinux\tNo License required\tShared\tCompute Instance\t0.096\n"
	tests := []struct{ name, in, want string }{
		{"empty", "", `no "format\t1" record`},
		{"no format", "source\tus-east-1\tUSD\t2026-01-01T00:00:00Z\tx\n", "line 1"},
		{"wrong version", "format\t2\n", "line 1"},
		{"unknown record", src + "reserved\tx\n", `line 3: not a price snapshot: record "reserved"`},
		{"short", src + "ondemand\tus-east-1\tm5.large\n", "has 8 fields; this one has 3"},
		{"empty field", src + "ondemand\tus-east-1\tm5.large\tLinux\t\tShared\tCompute Instance\t0.1\n", "field 5 is empty"},
		{"negative price", src + strings.Replace(od, "0.096", "-1", 1), `price "-1"`},
		{"exponent", src + strings.Replace(od, "0.096", "1e-3", 1), `price "1e-3"`},
		{"bad region", src + strings.Replace(od, "us-east-1", "useast1", 1), `"useast1"`},
		{"duplicate", src + od + od, "two ondemand records"},
		{"no source", "format\t1\n" + od, "has no source record"},
		{"two sources", src + src[9:], "two source records"},
		{"zone of another region", src + "spot\tus-east-1\tus-west-2a\tm5.large\tLinux/UNIX\t0.04\t2026-01-01T00:00:00Z\n", "one of its zones"},
		{"bad timestamp", src + "spot\tus-east-1\tus-east-1a\tm5.large\tLinux/UNIX\t0.04\tyesterday\n", `"yesterday"`},
		{"blank line", src + "\n", `record ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in))
			if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read error = %v; want ErrFormat containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteRoundTrip(t *testing.T) {
	ts := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	tb := &Table{
		Sources:  []Source{{Region: "eu-west-1", Currency: "USD", AsOf: ts, Description: "live"}},
		OnDemand: []OnDemand{{Region: "eu-west-1", InstanceType: "m5.large", OS: "Windows", License: "No License required", Tenancy: "Shared", Family: "Compute Instance", Price: "0.1880000000", Value: 0.188}},
		Spot:     []Spot{{Region: "eu-west-1", Zone: "eu-west-1b", InstanceType: "m5.large", Product: "Linux/UNIX", Price: "0.0390", Value: 0.039, Timestamp: ts}},
	}
	var buf bytes.Buffer
	if err := Write(&buf, tb, "a test"); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tb, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	tb.Sources[0].Description = "a\ttab"
	if err := Write(&bytes.Buffer{}, tb, ""); err == nil {
		t.Error("Write accepted a field with a tab")
	}
}

// FuzzRead: no input panics, and whatever reads writes back to what reads
// the same.
func FuzzRead(f *testing.F) {
	f.Add(string(embedded[:2000]))
	f.Add("format\t1\nsource\tus-east-1\tUSD\t2026-01-01T00:00:00Z\tx\nspot\tus-east-1\tus-east-1a\tm5.large\tLinux/UNIX\t0.04\t2026-01-01T00:00:00Z\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, tb, ""); err != nil {
			t.Fatalf("Write of a table Read made: %v", err)
		}
		back, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tb, back); diff != "" {
			t.Fatalf("(-read +reread):\n%s", diff)
		}
	})
}
