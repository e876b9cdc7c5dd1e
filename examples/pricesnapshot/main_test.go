package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
	"github.com/ec2select/ec2select/offerings"
)

// The program writes, from a real *pricing.Client and *ec2.Client talking
// to ec2fake, a snapshot that ReadPriceSnapshot loads and a PriceBook
// prices with: the user's way to a region the embedded snapshot lacks.
func TestWritesALoadableSnapshot(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{Region: "us-east-1"})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	file := filepath.Join(t.TempDir(), "us-east-1.prices")
	var out bytes.Buffer
	err := run(context.Background(), &out, []string{"-region", "us-east-1", "-endpoint", srv.URL, "-pricing-endpoint", srv.URL, "-o", file})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1361 on-demand and ") {
		t.Errorf("summary: %q", out.String())
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snap, err := offerings.ReadPriceSnapshot(f)
	if err != nil {
		t.Fatal(err)
	}
	book := offerings.NewPriceBook(snap)
	p, _ := book.Price(offerings.Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: offerings.OnDemand}, offerings.PriceOptions{})
	if !p.Known || p.Effective != 0.096 {
		t.Errorf("m5.large from the written snapshot: %s", p.Explain())
	}
	if age := time.Since(snap.Sources()[0].AsOf); age < 0 || age > time.Hour {
		t.Errorf("as of %v", snap.Sources()[0].AsOf)
	}
}

func TestFlags(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, []string{"-h"}); err != nil || !strings.Contains(out.String(), "usage: go run ./examples/pricesnapshot") {
		t.Errorf("-h: %v %q", err, out.String())
	}
	for _, args := range [][]string{{"-os", "solaris"}, {"stray"}, {"-timeout", "0s"}, {"-nope"}} {
		var ue *cli.UsageError
		if err := run(context.Background(), &bytes.Buffer{}, args); !errors.As(err, &ue) {
			t.Errorf("%q: %v; want a usage error", args, err)
		}
	}
}
