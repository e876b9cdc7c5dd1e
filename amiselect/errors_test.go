package amiselect_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
)

// TestVersionGatesAreTyped: the two family/version gates Karpenter's
// EC2NodeClass controller recognises by type (AL2DeprecationError for AL2
// on 1.33+, WS2025UnsupportedVersionError for Windows Server 2025 below
// 1.35: aws/karpenter-provider-aws@v1.14.1
// pkg/providers/amifamily/ami.go:86-103, pkg/controllers/nodeclass/ami.go:52-57)
// are one type here, found by errors.As and errors.Is through Queries and
// Resolve; versions inside the bounds pass.
func TestVersionGatesAreTyped(t *testing.T) {
	for _, tt := range []struct {
		alias, k8s string
		want       *amiselect.UnsupportedVersionError
	}{
		{"al2@latest", "1.33", &amiselect.UnsupportedVersionError{Alias: "al2@latest", Family: compat.AL2, KubernetesVersion: "1.33", Last: "1.32"}},
		{"al2@v20250403", "1.40", &amiselect.UnsupportedVersionError{Alias: "al2@v20250403", Family: compat.AL2, KubernetesVersion: "1.40", Last: "1.32"}},
		{"windows2025@latest", "1.34", &amiselect.UnsupportedVersionError{Alias: "windows2025@latest", Family: compat.Windows2025, KubernetesVersion: "1.34", First: "1.35"}},
		{"al2@latest", "1.32", nil},
		{"windows2025@latest", "1.35", nil},
		{"al2023@latest", "1.33", nil},
	} {
		t.Run(tt.alias+" on "+tt.k8s, func(t *testing.T) {
			terms := []amiselect.Term{{Alias: tt.alias}}
			_, qerr := amiselect.Queries(terms, amiselect.QueryOptions{KubernetesVersion: tt.k8s})
			_, rerr := amiselect.Resolve(context.Background(), nil, terms, amiselect.Options{Query: amiselect.QueryOptions{KubernetesVersion: tt.k8s}})
			for name, err := range map[string]error{"Queries": qerr, "Resolve": rerr} {
				var got *amiselect.UnsupportedVersionError
				errors.As(err, &got)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: errors.As (-want +got):\n%s", name, diff)
				}
				if is := errors.Is(err, amiselect.ErrUnsupportedKubernetesVersion); is != (tt.want != nil) {
					t.Errorf("%s: errors.Is(%v, ErrUnsupportedKubernetesVersion) = %v", name, err, is)
				}
			}
		})
	}
}

// TestUntypedNotFound: with Options.UntypedNotFound, an SSM error with no
// API error code whose text says "not found" (Karpenter's fake SSM API:
// "parameter not found", pkg/fake/ssmapi.go:57 @v1.14.1) is a missing
// parameter; an error with a code never is, whatever its text; without
// the option the untyped error fails the resolve. A missing parameter
// that fails the resolve is a *MissingParameterError that still wraps
// SSM's own error.
func TestUntypedNotFound(t *testing.T) {
	cs, _ := ssmWorld(t)
	terms := []amiselect.Term{{SSMParameter: "/team/ami"}}
	words := fmt.Errorf("parameter not found")
	throttle := &smithy.GenericAPIError{Code: "ThrottlingException", Message: "rate exceeded; parameter not found"}
	typed := &ssmtypes.ParameterNotFound{Message: aws.String("no")}
	for _, tt := range []struct {
		name          string
		err           error
		untyped, skip bool
		wantMissing   bool // listed in MissingParameters
		wantTyped     bool // a *MissingParameterError
	}{
		{"words, option, skip", words, true, true, true, false},
		{"words, option, strict", words, true, false, false, true},
		{"words, no option", words, false, true, false, false},
		{"throttle saying not found, option", throttle, true, true, false, false},
		{"typed, strict", typed, false, false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := options("")
			opts.SSM, opts.SkipMissingParameters, opts.UntypedNotFound = notFoundAs{tt.err}, tt.skip, tt.untyped
			sel, err := amiselect.Resolve(context.Background(), cs["in-process"], terms, opts)
			if got := len(sel.MissingParameters) == 1 && err == nil; got != tt.wantMissing {
				t.Errorf("missing = %v (%v, %v), want %v", got, sel.MissingParameters, err, tt.wantMissing)
			}
			var mp *amiselect.MissingParameterError
			if got := errors.As(err, &mp); got != tt.wantTyped {
				t.Fatalf("errors.As(%v, *MissingParameterError) = %v, want %v", err, got, tt.wantTyped)
			}
			if tt.wantTyped && (mp.Parameter != "/team/ami" || mp.Term != 0 || !errors.Is(err, amiselect.ErrParameterNotFound) || !errors.Is(err, tt.err)) {
				t.Errorf("missing parameter error %+v: want term 0, /team/ami, ErrParameterNotFound and SSM's own error inside", mp)
			}
			if !tt.wantMissing && !tt.wantTyped && (err == nil || !errors.Is(err, tt.err)) {
				t.Errorf("err = %v, want one wrapping %v", err, tt.err)
			}
		})
	}
}

// TestUntypedNotFoundAlias: an alias read through SSM one parameter at a
// time skips a parameter whose client answers "not found" in words only
// with the option, as Karpenter skips an alias parameter on any error
// (pkg/providers/amifamily/al2023.go:47-53 @v1.14.1).
func TestUntypedNotFoundAlias(t *testing.T) {
	cs, store := ssmWorld(t)
	client := wordsFor{store}
	terms := []amiselect.Term{{Alias: "al2023@latest"}}
	opts := options("1.32")
	opts.SSM, opts.Aliases = client, amiselect.AliasBySSM
	if _, err := amiselect.Resolve(context.Background(), cs["in-process"], terms, opts); err == nil {
		t.Fatal("Resolve without UntypedNotFound accepted an untyped error")
	}
	opts.UntypedNotFound = true
	sel, err := amiselect.Resolve(context.Background(), cs["in-process"], terms, opts)
	if err != nil || len(sel.AMIs) != 4 {
		t.Fatalf("Resolve = %v, %v; want the four AMIs SSM names", ids(sel), err)
	}
}

// wordsFor answers a parameter it lacks in words, as Karpenter's fake
// does, and hides the store's GetParameters.
type wordsFor struct{ p *parameters }

func (w wordsFor) GetParameter(ctx context.Context, in *ssm.GetParameterInput, o ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	out, err := w.p.GetParameter(ctx, in, o...)
	var nf *ssmtypes.ParameterNotFound
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("parameter not found")
	}
	return out, err
}

// TestNoCompatibleAMIIs: an empty mapping's error matches
// ErrNoCompatibleAMI, so a caller that wants Karpenter's empty map can
// tell it from a conversion error.
func TestNoCompatibleAMIIs(t *testing.T) {
	err := amiselect.Map(nil, nil).Err()
	var e *amiselect.NoCompatibleAMIError
	if !errors.As(err, &e) || !errors.Is(fmt.Errorf("wrapped: %w", err), amiselect.ErrNoCompatibleAMI) {
		t.Errorf("Map(nil, nil).Err() = %v; want a *NoCompatibleAMIError matching ErrNoCompatibleAMI", err)
	}
}
