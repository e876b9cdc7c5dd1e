package offerings

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/ec2fake"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		code  string
		class Class
		scope Scope
	}{
		{"InsufficientInstanceCapacity", OfferingUnavailable, ScopeOffering},
		{"Client.InsufficientInstanceCapacity", OfferingUnavailable, ScopeOffering},
		{"Server.InsufficientInstanceCapacity", OfferingUnavailable, ScopeOffering},
		{"UnfulfillableCapacity", OfferingUnavailable, ScopeOffering},
		{"ReservationCapacityExceeded", OfferingUnavailable, ScopeOffering},
		{"InsufficientFreeAddressesInSubnet", SubnetUnavailable, ScopeSubnet},
		{"VcpuLimitExceeded", AccountLimit, ScopeTypeCapacityType},
		{"MaxSpotInstanceCountExceeded", AccountLimit, ScopeTypeCapacityType},
		{"AuthFailure.ServiceLinkedRoleCreationNotPermitted", AccountLimit, ScopeCapacityType},
		{"MaxFleetCountExceeded", AccountLimit, ScopeAccount},
		{"RequestLimitExceeded", Throttled, ScopeAccount},
		{"InternalError", ServerError, ScopeOffering},
		{"InvalidAMIID.NotFound", Configuration, ScopeOffering},
		{"UnauthorizedOperation", Configuration, ScopeAccount},
		{"InvalidSubnetID.NotFound", Configuration, ScopeSubnet},
		{"SomethingEC2AddsNextYear", Unknown, ScopeOffering},
		{"", Unknown, ScopeOffering},
		{"insufficientinstancecapacity", Unknown, ScopeOffering}, // codes are case-sensitive
	} {
		t.Run(tc.code, func(t *testing.T) {
			got := Classify(tc.code)
			if got.Code != tc.code || got.Class != tc.class || got.Scope != tc.scope {
				t.Errorf("Classify(%q) = %+v, want class %s, scope %s", tc.code, got, tc.class, tc.scope)
			}
			if tc.class != Unknown && got.Source == "" {
				t.Errorf("Classify(%q) has no source", tc.code)
			}
		})
	}
}

// Every code Karpenter treats as capacity that is temporarily unavailable
// (karpenter-provider-aws v1.14.1 pkg/errors/errors.go:56-65, the set
// updateUnavailableOfferingsCache marks offerings for) is a retry-elsewhere
// class here, and the one it handles apart (the spot service-linked role,
// errors.go:32, instance.go:644-645) takes out every spot offering.
func TestClassifyAgreesWithKarpenter(t *testing.T) {
	unfulfillable := []string{"InsufficientInstanceCapacity", "MaxSpotInstanceCountExceeded", "VcpuLimitExceeded", "UnfulfillableCapacity",
		"Unsupported", "InsufficientFreeAddressesInSubnet", "MaxFleetCountExceeded", "ReservationCapacityExceeded"}
	for _, code := range unfulfillable {
		switch c := Classify(code); c.Class {
		case OfferingUnavailable, SubnetUnavailable, AccountLimit:
		default:
			t.Errorf("%s: class %s; Karpenter reads it as temporarily unavailable capacity", code, c.Class)
		}
	}
	if c := Classify("AuthFailure.ServiceLinkedRoleCreationNotPermitted"); c.Scope != ScopeCapacityType {
		t.Errorf("spot service-linked role: scope %s, want capacity-type", c.Scope)
	}
}

func TestCodesTable(t *testing.T) {
	codes := Codes()
	if !slices.IsSortedFunc(codes, func(a, b Classification) int { return strings.Compare(a.Code, b.Code) }) {
		t.Error("Codes() is not sorted by code")
	}
	for i, c := range codes {
		if i > 0 && codes[i-1].Code == c.Code {
			t.Errorf("%s listed twice", c.Code)
		}
		if c.Source == "" || c.Class == Unknown || c.Class == 0 || c.Scope == 0 {
			t.Errorf("%s: %+v: every known code has a class, a scope and a source", c.Code, c)
		}
		if got := Classify(c.Code); got != c {
			t.Errorf("Classify(%s) = %+v, the table says %+v", c.Code, got, c)
		}
	}
	codes[0].Class = Unknown // Codes returns a copy
	if Classify(Codes()[0].Code).Class == Unknown {
		t.Error("changing what Codes returned changed the table")
	}
}

// ClassifyError reads the code through the SDK's wrapping, over HTTP as
// in process; errors without a code are Unknown, never Configuration.
func TestClassifyError(t *testing.T) {
	b := ec2fake.NewWithCatalog(ec2fake.Options{})
	srv := ec2fake.NewServer(b)
	t.Cleanup(srv.Close)
	client := ec2fake.NewClient(srv.URL)
	if err := b.InjectFault(ec2fake.Fault{Operation: ec2fake.OpCreateFleet, Code: "VcpuLimitExceeded", Times: 2}); err != nil {
		t.Fatal(err)
	}
	in := &ec2.CreateFleetInput{Type: "instant", // what the SDK requires, so the request is sent
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(1)},
		LaunchTemplateConfigs:       []ec2types.FleetLaunchTemplateConfigRequest{{}}}
	_, httpErr := client.CreateFleet(context.Background(), in)
	_, localErr := b.CreateFleet(context.Background(), in)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, ctxErr := client.DescribeAvailabilityZones(canceled, &ec2.DescribeAvailabilityZonesInput{})
	for _, tc := range []struct {
		name string
		err  error
		want Classification
	}{
		{"over HTTP", httpErr, Classify("VcpuLimitExceeded")},
		{"in process", localErr, Classify("VcpuLimitExceeded")},
		{"wrapped again", fmt.Errorf("launching: %w", httpErr), Classify("VcpuLimitExceeded")},
		{"an API error of our own", &smithy.GenericAPIError{Code: "InsufficientInstanceCapacity"}, Classify("InsufficientInstanceCapacity")},
		{"context canceled", ctxErr, Classification{Class: Unknown, Scope: ScopeOffering, Source: "the caller's context ended before EC2 answered"}},
		{"no code", errors.New("connection reset"), Classification{Class: Unknown, Scope: ScopeOffering}},
		{"nil", nil, Classification{Class: Unknown, Scope: ScopeOffering}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ClassifyError(tc.err)); diff != "" {
				t.Errorf("ClassifyError (-want +got):\n%s", diff)
			}
		})
	}
}

// The classifier is total: every string, known or not, maps to exactly
// one class and one scope, a code it does not know is Unknown (retry
// later), and EC2's SOAP prefixes change nothing.
func TestClassifyIsTotal(t *testing.T) {
	known := Codes()
	rapid.Check(t, func(t *rapid.T) {
		code := rapid.OneOf(rapid.String(), rapid.SampledFrom(codeStrings(known)), rapid.Custom(func(t *rapid.T) string {
			return rapid.SampledFrom([]string{"Client.", "Server.", ""}).Draw(t, "prefix") + rapid.SampledFrom(codeStrings(known)).Draw(t, "known")
		})).Draw(t, "code")
		c := Classify(code)
		if c.Class < OfferingUnavailable || c.Class > Unknown || c.Scope < ScopeOffering || c.Scope > ScopeAccount {
			t.Fatalf("Classify(%q) = %+v: no class or scope", code, c)
		}
		if c.Code != code {
			t.Fatalf("Classify(%q).Code = %q", code, c.Code)
		}
		bare := strings.TrimPrefix(strings.TrimPrefix(code, "Client."), "Server.")
		i := slices.IndexFunc(known, func(k Classification) bool { return k.Code == bare })
		switch {
		case i < 0 && (c.Class != Unknown || !c.Class.Retry()):
			t.Fatalf("Classify(%q) = %+v; an unknown code is Unknown, retried later", code, c)
		case i >= 0 && (c.Class != known[i].Class || c.Scope != known[i].Scope):
			t.Fatalf("Classify(%q) = %+v; the table says %+v", code, c, known[i])
		}
	})
}

func codeStrings(cs []Classification) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Code
	}
	return out
}

func FuzzClassify(f *testing.F) {
	for _, c := range Codes() {
		f.Add(c.Code)
	}
	f.Add("Client.RequestLimitExceeded")
	f.Add("")
	f.Fuzz(func(t *testing.T, code string) {
		c := Classify(code)
		if c.Class < OfferingUnavailable || c.Class > Unknown || c.Scope < ScopeOffering || c.Scope > ScopeAccount || c.Code != code {
			t.Fatalf("Classify(%q) = %+v", code, c)
		}
		if e := ClassifyError(&smithy.GenericAPIError{Code: code}); e != c {
			t.Fatalf("ClassifyError of an API error with code %q = %+v, Classify = %+v", code, e, c)
		}
	})
}
