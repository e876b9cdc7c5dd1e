package ec2fake

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
)

func TestPutImageValidates(t *testing.T) {
	tests := []struct {
		name    string
		img     ec2types.Image
		wantErr string // substring; "" means success
	}{
		{"minimal", ec2types.Image{ImageId: aws.String("ami-12345678")}, ""},
		{"long ID", ec2types.Image{ImageId: aws.String("ami-0123456789abcdef0")}, ""},
		// Fixture IDs test suites write (see fixtureAMIIDPattern): stored.
		{"Karpenter's suite ID", ec2types.Image{ImageId: aws.String("ami-id-amd64")}, ""},
		{"Karpenter's NVIDIA suite ID", ec2types.Image{ImageId: aws.String("ami-id-arm64-nvidia")}, ""},
		{"Karpenter's fake SSM ID", ec2types.Image{ImageId: aws.String("ami-aB3dE5gH7jK9mN1p")}, ""},
		{"uppercase hex", ec2types.Image{ImageId: aws.String("ami-ABCDEF12")}, ""},
		{"no ID", ec2types.Image{Name: aws.String("x")}, `image ID <nil> is not an AMI ID; use "ami-" followed by letters, digits or hyphens, such as "ami-0123456789abcdef0" or "ami-id-amd64"`},
		{"no ami- prefix", ec2types.Image{ImageId: aws.String("image-1")}, `image ID "image-1" is not an AMI ID`},
		{"prefix in capitals", ec2types.Image{ImageId: aws.String("AMI-12345678")}, "is not an AMI ID"},
		{"nothing after ami-", ec2types.Image{ImageId: aws.String("ami-")}, "is not an AMI ID"},
		{"filter wildcard", ec2types.Image{ImageId: aws.String("ami-id-*")}, "is not an AMI ID"},
		{"white space", ec2types.Image{ImageId: aws.String("ami-id amd64")}, "is not an AMI ID"},
		{"bad state", ec2types.Image{ImageId: aws.String("ami-12345678"), State: "building"}, `state "building" is not an EC2 image state; use one of`},
		{"bad architecture", ec2types.Image{ImageId: aws.String("ami-12345678"), Architecture: "amd64"}, `architecture "amd64" is not an EC2 architecture`},
		{"bad owner", ec2types.Image{ImageId: aws.String("ami-12345678"), OwnerId: aws.String("amazon")}, `owner ID "amazon" is not a 12-digit account ID`},
		{"bad deprecation time", ec2types.Image{ImageId: aws.String("ami-12345678"), DeprecationTime: aws.String("soon")}, `deprecation time "soon" is not RFC 3339`},
		{"empty tag key", ec2types.Image{ImageId: aws.String("ami-12345678"), Tags: []ec2types.Tag{{Value: aws.String("v")}}}, "tag 0 has an empty key"},
		{"malformed creation date is kept", ec2types.Image{ImageId: aws.String("ami-12345678"), CreationDate: aws.String("not-a-date")}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(Options{})
			err := b.PutImage(tc.img)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("PutImage: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "ec2fake: PutImage: ") {
				t.Fatalf("PutImage error = %v; want one starting with %q and containing %q", err, "ec2fake: PutImage: ", tc.wantErr)
			}
			if _, ok := b.Image(aws.ToString(tc.img.ImageId)); ok {
				t.Errorf("an invalid image was stored")
			}
		})
	}
}

func TestPutImageDefaults(t *testing.T) {
	b := New(Options{AccountID: "210987654321"})
	if err := b.PutImage(ec2types.Image{ImageId: aws.String("ami-12345678")}); err != nil {
		t.Fatal(err)
	}
	got, _ := b.Image("ami-12345678")
	want := ec2types.Image{ImageId: aws.String("ami-12345678"), State: ec2types.ImageStateAvailable, OwnerId: aws.String("210987654321")}
	if diff := cmp.Diff(want, got, ignoreUnexported); diff != "" {
		t.Errorf("stored image (-want +got):\n%s", diff)
	}
}

func TestStoredImagesAreCopies(t *testing.T) {
	b := New(Options{})
	img := ec2types.Image{ImageId: aws.String("ami-12345678"), Name: aws.String("before"), Tags: []ec2types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}
	if err := b.PutImage(img); err != nil {
		t.Fatal(err)
	}
	*img.Name = "mutated"
	*img.Tags[0].Value = "mutated"
	out, err := b.DescribeImages(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	*out.Images[0].Name = "mutated by reader"
	got, _ := b.Image("ami-12345678")
	if *got.Name != "before" || *got.Tags[0].Value != "v" {
		t.Errorf("stored image changed through caller-held pointers: name %q, tag %q", *got.Name, *got.Tags[0].Value)
	}
}

func TestImageStateChangesAndDeletes(t *testing.T) {
	b := newFixture(t)
	ctx := context.Background()
	byName := &ec2.DescribeImagesInput{Owners: []string{"self"}, Filters: []ec2types.Filter{filter("name", "team-base-al2023-*"), filter("state", "available")}}
	before, err := b.DescribeImages(ctx, byName)
	if err != nil {
		t.Fatal(err)
	}
	// Packer finishes the build: the pending image becomes available.
	if err := b.SetImageState(ImageTeamBasePending, ec2types.ImageStateAvailable); err != nil {
		t.Fatal(err)
	}
	after, err := b.DescribeImages(ctx, byName)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Images) != len(before.Images)+1 {
		t.Errorf("available images: %d before, %d after the build finished; want one more", len(before.Images), len(after.Images))
	}
	if err := b.DeleteImage(ImageTeamBasePending); err != nil {
		t.Fatal(err)
	}
	_, err = b.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBasePending}})
	if got := describeErr(err); got == nil || got.Code != CodeInvalidAMIIDNotFound {
		t.Errorf("describe of a deleted image: %v; want %s", err, CodeInvalidAMIIDNotFound)
	}
	if err := b.DeleteImage(ImageTeamBasePending); !errors.Is(err, ErrNotFound) {
		t.Errorf("second DeleteImage = %v; want ErrNotFound", err)
	}
	if err := b.SetImageState("ami-99999999", ec2types.ImageStateAvailable); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetImageState of an unknown image = %v; want ErrNotFound", err)
	}
	if err := b.SetImageState(ImageTeamBaseAvailable, "done"); err == nil || !strings.Contains(err.Error(), `state "done" is not an EC2 image state`) {
		t.Errorf("SetImageState to a bad state = %v; want an error naming the state", err)
	}
}

func TestPutInstanceTypeValidates(t *testing.T) {
	tests := []struct {
		name    string
		info    ec2types.InstanceTypeInfo
		wantErr string
	}{
		{"minimal", ec2types.InstanceTypeInfo{InstanceType: "x9.large"}, ""},
		{"no name", ec2types.InstanceTypeInfo{}, `instance type "" is not of the form family.size`},
		{"bad name", ec2types.InstanceTypeInfo{InstanceType: "large"}, `instance type "large" is not of the form family.size`},
		{"bad architecture", ec2types.InstanceTypeInfo{InstanceType: "x9.large", ProcessorInfo: &ec2types.ProcessorInfo{SupportedArchitectures: []ec2types.ArchitectureType{"amd64"}}},
			`architecture "amd64" is not an EC2 architecture`},
		{"bad usage class", ec2types.InstanceTypeInfo{InstanceType: "x9.large", SupportedUsageClasses: []ec2types.UsageClassType{"reserved"}}, `usage class "reserved" is not an EC2 usage class`},
		{"negative vCPUs", ec2types.InstanceTypeInfo{InstanceType: "x9.large", VCpuInfo: &ec2types.VCpuInfo{DefaultVCpus: aws.Int32(-1)}}, "negative vCPU count -1"},
		{"negative memory", ec2types.InstanceTypeInfo{InstanceType: "x9.large", MemoryInfo: &ec2types.MemoryInfo{SizeInMiB: aws.Int64(-1)}}, "negative memory -1 MiB"},
		{"negative GPUs", ec2types.InstanceTypeInfo{InstanceType: "x9.large", GpuInfo: &ec2types.GpuInfo{Gpus: []ec2types.GpuDeviceInfo{{Count: aws.Int32(-2)}}}}, "negative GPU count -2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(Options{})
			err := b.PutInstanceType(tc.info)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "ec2fake: PutInstanceType: ") {
				t.Fatalf("PutInstanceType error = %v; want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestLoadIsAllOrNothing(t *testing.T) {
	b := New(Options{})
	images, types := firstWaveCatalog(t)
	images = append(images, ec2types.Image{ImageId: aws.String("bad")})
	err := b.Load(images, types)
	if err == nil || !strings.Contains(err.Error(), "ec2fake: images[60]: image ID \"bad\" is not an AMI ID") {
		t.Fatalf("Load = %v; want an error naming images[60]", err)
	}
	out, err := b.DescribeInstanceTypes(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.InstanceTypes) != 0 {
		t.Errorf("a failed Load stored %d instance types; want none", len(out.InstanceTypes))
	}
}

func TestThrottlingThenSuccessThroughTheSDKRetryer(t *testing.T) {
	p := newPair(t, newFixture(t))
	if err := p.b.InjectFault(Fault{Operation: OpDescribeImages, Code: CodeRequestLimitExceeded, Message: "Request limit exceeded.", Times: 2}); err != nil {
		t.Fatal(err)
	}
	out, err := p.client.DescribeImages(context.Background(), &ec2.DescribeImagesInput{ImageIds: []string{ImageTeamBaseAvailable}})
	if err != nil {
		t.Fatalf("DescribeImages after two throttles: %v; want the SDK to retry to success", err)
	}
	if len(out.Images) != 1 {
		t.Fatalf("got %d images; want 1", len(out.Images))
	}
	var codes []string
	for _, c := range p.b.Calls() {
		code := "ok"
		if c.Err != nil {
			code = describeErr(c.Err).Code
		}
		codes = append(codes, c.Operation+":"+code)
	}
	want := []string{"DescribeImages:RequestLimitExceeded", "DescribeImages:RequestLimitExceeded", "DescribeImages:ok"}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("call log (-want +got):\n%s", diff)
	}
}

func TestPersistentThrottlingSurfacesTheCode(t *testing.T) {
	p := newPair(t, newFixture(t))
	if err := p.b.InjectFault(Fault{Code: CodeRequestLimitExceeded}); err != nil { // Times 0: until cleared
		t.Fatal(err)
	}
	for _, call := range []func() error{
		func() error { _, err := p.client.DescribeImages(context.Background(), nil); return err },
		func() error { _, err := p.client.DescribeInstanceTypes(context.Background(), nil); return err },
		func() error { _, err := p.b.DescribeImages(context.Background(), nil); return err },
	} {
		err := call()
		var apiErr smithy.APIError
		if !errors.As(err, &apiErr) || apiErr.ErrorCode() != CodeRequestLimitExceeded {
			t.Fatalf("error %v; want a smithy.APIError with code %s", err, CodeRequestLimitExceeded)
		}
		if got := describeErr(err).Status; got != 503 {
			t.Errorf("HTTP status %d; want 503 for throttling", got)
		}
	}
	// Over HTTP the SDK tried three times and then gave up.
	var maxAttempts *retry.MaxAttemptsError
	_, err := p.client.DescribeImages(context.Background(), nil)
	if !errors.As(err, &maxAttempts) || maxAttempts.Attempt != 3 {
		t.Errorf("error %v; want retry.MaxAttemptsError after 3 attempts", err)
	}
	p.b.ClearFaults()
	if _, err := p.client.DescribeImages(context.Background(), nil); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}
}

func TestFaultsAreOrderedScopedAndValidated(t *testing.T) {
	b := newFixture(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.InjectFault(Fault{Operation: OpDescribeInstanceTypes, Code: "InternalError", HTTPStatus: 500, Times: 1}))
	must(b.InjectFault(Fault{Code: "UnauthorizedOperation", Times: 1}))
	_, err := b.DescribeImages(ctx, nil)
	if got := describeErr(err); got == nil || got.Code != "UnauthorizedOperation" || got.Status != 400 {
		t.Errorf("first DescribeImages: %+v; want UnauthorizedOperation/400 (the DescribeInstanceTypes fault does not apply)", got)
	}
	_, err = b.DescribeInstanceTypes(ctx, nil)
	if got := describeErr(err); got == nil || got.Code != "InternalError" || got.Status != 500 {
		t.Errorf("DescribeInstanceTypes: %+v; want InternalError/500", got)
	}
	if _, err := b.DescribeImages(ctx, nil); err != nil {
		t.Errorf("after both faults were used: %v", err)
	}
	for _, bad := range []Fault{{}, {Code: "X", Operation: "RunInstances"}, {Code: "X", HTTPStatus: 200}} {
		if err := b.InjectFault(bad); err == nil || !strings.HasPrefix(err.Error(), "ec2fake: InjectFault: ") {
			t.Errorf("InjectFault(%+v) = %v; want an error", bad, err)
		}
	}
}

func TestLatencyHonoursContextAndHoldsNoLock(t *testing.T) {
	b := newFixture(t)
	if err := b.SetLatency(OpDescribeImages, time.Hour); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.DescribeImages(ctx, nil)
		done <- err
	}()
	// While that call waits, the backend stays usable.
	waitFor(t, func() bool { return len(b.Calls()) == 1 })
	if err := b.PutImage(ec2types.Image{ImageId: aws.String("ami-0abcdef0123456789")}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.DescribeInstanceTypes(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("canceled call returned %v; want context.Canceled", err)
		}
		var opErr *smithy.OperationError
		if !errors.As(err, &opErr) || opErr.OperationName != OpDescribeImages {
			t.Errorf("canceled call returned %v; want a smithy.OperationError for DescribeImages", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call did not return after its context was canceled")
	}
	if err := b.SetLatency(OpDescribeImages, 0); err != nil {
		t.Fatal(err)
	}
	if err := b.SetLatency("", -time.Second); err == nil {
		t.Error("SetLatency accepted a negative latency")
	}
	if err := b.SetLatency("Nope", time.Second); err == nil {
		t.Error("SetLatency accepted an unknown operation")
	}
}

func TestLatencyDelaysTheAnswer(t *testing.T) {
	b := newFixture(t)
	if err := b.SetLatency("", 30*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := b.DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large"}}); err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < 30*time.Millisecond {
		t.Errorf("answer took %v; want at least the 30ms latency", elapsed)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestCallLog(t *testing.T) {
	p := newPair(t, newFixture(t))
	ctx := context.Background()
	in := &ec2.DescribeImagesInput{Owners: []string{"self"}, Filters: []ec2types.Filter{filter("name", "team-*")}}
	if _, err := p.b.DescribeImages(ctx, in); err != nil {
		t.Fatal(err)
	}
	in.Owners[0] = "changed after the call" // the log holds a copy
	if _, err := p.client.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"nope.large"}}); err == nil {
		t.Fatal("want an error")
	}
	calls := p.b.Calls()
	if len(calls) != 2 {
		t.Fatalf("got %d calls; want 2", len(calls))
	}
	wantIn := &ec2.DescribeImagesInput{Owners: []string{"self"}, Filters: []ec2types.Filter{filter("name", "team-*")}}
	if diff := cmp.Diff(wantIn, calls[0].Input, ignoreUnexported); diff != "" || calls[0].Operation != OpDescribeImages || calls[0].Err != nil {
		t.Errorf("first call %+v; input diff (-want +got):\n%s", calls[0], diff)
	}
	wantTypes := &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"nope.large"}}
	if diff := cmp.Diff(wantTypes, calls[1].Input, ignoreUnexported); diff != "" || calls[1].Operation != OpDescribeInstanceTypes {
		t.Errorf("second call (over HTTP) %+v; input diff (-want +got):\n%s", calls[1], diff)
	}
	if got := describeErr(calls[1].Err); got == nil || got.Code != CodeInvalidInstanceType {
		t.Errorf("second call error %v; want %s", calls[1].Err, CodeInvalidInstanceType)
	}
	calls[0].Input.(*ec2.DescribeImagesInput).Owners[0] = "mutated"
	if got := p.b.Calls()[0].Input.(*ec2.DescribeImagesInput).Owners[0]; got != "self" {
		t.Errorf("Calls handed out the log's own memory: owner now %q", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	b := newFixture(t)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				switch (w + i) % 4 {
				case 0:
					_, _ = b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{MaxResults: aws.Int32(5), Filters: []ec2types.Filter{filter("name", "*?a*")}})
				case 1:
					_ = b.PutImage(ec2types.Image{ImageId: aws.String("ami-0aaaaaaaaaaaaaa0" + string(rune('0'+w))), Name: aws.String("w")})
				case 2:
					_ = b.SetImageState(ImageTeamBasePending, ec2types.ImageStatePending)
				case 3:
					_, _ = b.DescribeInstanceTypes(context.Background(), &ec2.DescribeInstanceTypesInput{Filters: []ec2types.Filter{filter("instance-type", "m*")}})
				}
			}
		}()
	}
	wg.Wait()
}

func TestZeroBackendIsUsable(t *testing.T) {
	var b Backend
	ctx := context.Background()
	if out, err := b.DescribeImages(ctx, nil); err != nil || len(out.Images) != 0 {
		t.Fatalf("zero Backend DescribeImages = %v, %v", out, err)
	}
	if err := b.PutImage(ec2types.Image{ImageId: aws.String("ami-12345678"), Name: aws.String("x")}); err != nil {
		t.Fatal(err)
	}
	if err := b.PutInstanceType(ec2types.InstanceTypeInfo{InstanceType: "m5.large"}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetLatency("", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	out, err := b.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"self"}})
	if err != nil || len(out.Images) != 1 || *out.Images[0].OwnerId != DefaultAccountID || b.AccountID() != DefaultAccountID {
		t.Fatalf("zero Backend after PutImage: %+v, %v", out, err)
	}
}
