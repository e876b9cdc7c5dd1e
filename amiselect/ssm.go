package amiselect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/ec2select/ec2select/compat"
)

// SSMClient is the part of an SSM client [Resolve] needs: GetParameter,
// one parameter at a time, for an SSMParameter term and for an alias's
// public parameters. It is Karpenter's own SSM interface
// (aws/karpenter-provider-aws pkg/aws/sdk.go:68-70 @v1.14.1), so a fork
// can pass its SDK client, its fake, or an adapter over its caching SSM
// provider. *ssm.Client satisfies it, and [SSMBatchClient] too.
type SSMClient interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// SSMBatchClient is an [SSMClient] that can also read up to ten
// parameters in one call. [Resolve] reads an alias's public parameters
// with one GetParameters call when its client offers it, and with one
// GetParameter call per parameter otherwise; the selection is the same.
type SSMBatchClient interface {
	SSMClient
	GetParameters(ctx context.Context, in *ssm.GetParametersInput, optFns ...func(*ssm.Options)) (*ssm.GetParametersOutput, error)
}

// MissingParameter is an SSMParameter term whose parameter SSM does not
// have, which [Resolve] let match no image because
// [Options].SkipMissingParameters is set.
type MissingParameter struct {
	// Term is the term's index in the terms given to Resolve.
	Term int
	// Parameter is the parameter's name (or ARN), as the term gives it.
	Parameter string
}

// AliasSource says where [Resolve] learns which images an alias selects.
// The zero value is [AliasByName].
type AliasSource uint8

const (
	// AliasByName finds the images by their public names with
	// DescribeImages alone, so no SSM permission is needed; "latest" is
	// the newest available release.
	AliasByName AliasSource = iota
	// AliasBySSM reads the public SSM parameters Karpenter reads, then
	// describes the images they name; "latest" is what AWS recommends.
	AliasBySSM
)

// String returns "by-name" or "by-ssm".
func (s AliasSource) String() string {
	switch s {
	case AliasByName:
		return "by-name"
	case AliasBySSM:
		return "by-ssm"
	}
	return fmt.Sprintf("AliasSource(%d)", uint8(s))
}

// maxGetParameters is how many names one GetParameters call takes.
const maxGetParameters = 10

// aliasParameters returns the public SSM parameter names of an alias for
// Kubernetes version k8s, one per image Karpenter reads, in a fixed
// order. Latest reads "recommended" (AL2, AL2023) or "latest"
// (Bottlerocket); a pinned release reads the release's own parameter,
// which for Bottlerocket is the version without its "v".
func aliasParameters(spec aliasSpec, k8s string) []string {
	const eks = "/aws/service/eks/optimized-ami/"
	switch spec.family {
	case compat.AL2:
		var out []string
		for _, p := range [][2]string{{"amazon-linux-2", "node"}, {"amazon-linux-2-arm64", "arm64-node"}, {"amazon-linux-2-gpu", "gpu-node"}} {
			leaf := "recommended"
			if spec.pinned != "" {
				leaf = "amazon-eks-" + p[1] + "-" + k8s + "-" + spec.pinned
			}
			out = append(out, eks+k8s+"/"+p[0]+"/"+leaf+"/image_id")
		}
		return out
	case compat.AL2023:
		var out []string
		for _, av := range [][2]string{{"x86_64", "standard"}, {"x86_64", "nvidia"}, {"x86_64", "neuron"}, {"arm64", "standard"}, {"arm64", "nvidia"}} {
			leaf := "recommended"
			if spec.pinned != "" {
				leaf = "amazon-eks-node-al2023-" + av[0] + "-" + av[1] + "-" + k8s + "-" + spec.pinned
			}
			out = append(out, eks+k8s+"/amazon-linux-2023/"+av[0]+"/"+av[1]+"/"+leaf+"/image_id")
		}
		return out
	case compat.Bottlerocket:
		version := "latest"
		if spec.pinned != "" {
			version = strings.TrimPrefix(spec.pinned, "v")
		}
		var out []string
		for _, v := range []string{"", "-nvidia"} {
			for _, arch := range []string{"x86_64", "arm64"} {
				out = append(out, "/aws/service/bottlerocket/aws-k8s-"+k8s+v+"/"+arch+"/"+version+"/image_id")
			}
		}
		return out
	}
	year := strings.TrimPrefix(string(spec.family), "Windows")
	return []string{"/aws/service/ami-windows-latest/Windows_Server-" + year + "-English-Core-EKS_Optimized-" + k8s + "/image_id"}
}

// readSSM reads what the terms need from SSM: each SSMParameter term's
// AMI id and, when source is AliasBySSM, the alias's image ids. It
// returns nil when the terms need nothing. Any failure fails the whole
// read, naming the term; a missing parameter too, unless skipMissing.
func readSSM(ctx context.Context, client SSMClient, terms []Term, opts QueryOptions, source AliasSource, skipMissing, untyped bool) (*fromSSM, error) {
	aliasBySSM := terms[0].Alias != "" && source == AliasBySSM
	needed := aliasBySSM || slices.ContainsFunc(terms, func(t Term) bool { return t.SSMParameter != "" })
	if !needed {
		return nil, nil
	}
	if client == nil {
		return nil, errors.New("amiselect: the terms read SSM parameters but Options.SSM is nil; pass an SSM client such as *ssm.Client, or resolve aliases by name")
	}
	out := &fromSSM{terms: map[int]string{}, aliasBySSM: aliasBySSM}
	if aliasBySSM {
		k8s, _ := parseMinorVersion(opts.KubernetesVersion) // checked by checkTerms
		spec, _ := parseAlias(terms[0].Alias, opts.KubernetesVersion, k8s)
		ids, err := readAliasParameters(ctx, client, spec, opts.KubernetesVersion, untyped)
		if err != nil {
			return nil, err
		}
		out.aliasIDs = ids
		return out, nil
	}
	for i, t := range terms {
		if t.SSMParameter == "" {
			continue
		}
		id, err := readParameter(ctx, client, t.SSMParameter, untyped)
		var missing *MissingParameterError
		switch {
		case errors.As(err, &missing) && skipMissing:
			out.missing = append(out.missing, MissingParameter{Term: i, Parameter: t.SSMParameter})
			continue
		case missing != nil:
			missing.Term = i
			return nil, missing
		case err != nil:
			return nil, fmt.Errorf("amiselect: term %d: %w", i, err)
		}
		out.terms[i] = id
	}
	return out, nil
}

// readParameter reads one parameter that must hold an AMI id. A parameter
// SSM does not have (its ParameterNotFound, the one code Karpenter treats
// as "not found" here: aws/karpenter-provider-aws pkg/errors/errors.go:47,71-79
// @v1.14.1) is an error wrapping SSM's, which the caller may forgive:
// Karpenter skips the term (pkg/providers/amifamily/ami.go:123-127), which
// silently drops the AMI a mistyped name was meant to select, so strict is
// the default. Karpenter also skips a value that is no AMI id
// (ami.go:129-132); here that is an error: the parameter exists and says
// something else.
func readParameter(ctx context.Context, client SSMClient, name string, untyped bool) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("reading SSM parameter %q: %w", name, err)
	}
	out, err := client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
	if notFound(err, untyped) {
		return "", &MissingParameterError{Parameter: name, Err: err}
	}
	if err != nil {
		return "", fmt.Errorf("reading SSM parameter %q: %w", name, err)
	}
	if out == nil || out.Parameter == nil {
		return "", fmt.Errorf("reading SSM parameter %q: the response has no parameter", name)
	}
	value := aws.ToString(out.Parameter.Value)
	if !hasAMIPrefix(value) {
		return "", fmt.Errorf("SSM parameter %q holds %q, not an AMI id (one starts with \"ami-\"); point the term at a parameter whose value is an image id", name, value)
	}
	return value, nil
}

// readAliasParameters reads an alias's public parameters: in one
// GetParameters call when the client is an [SSMBatchClient], else one
// GetParameter call each. A parameter SSM does not have is an image AWS
// does not publish (no arm64 NVIDIA AMI for early releases, say), as
// Karpenter treats it; a failed call, a value that is no AMI id, or no
// parameter at all is an error.
func readAliasParameters(ctx context.Context, client SSMClient, spec aliasSpec, k8s string, untyped bool) ([]string, error) {
	names := aliasParameters(spec, k8s)
	fail := func(format string, args ...any) ([]string, error) {
		return nil, fmt.Errorf("amiselect: term 0 (alias %q through SSM): "+format, append([]any{spec.alias}, args...)...)
	}
	if err := ctx.Err(); err != nil {
		return fail("%w", err)
	}
	var values map[string]string
	var err error
	if batch, ok := client.(SSMBatchClient); ok {
		values, err = getParameters(ctx, batch, names)
	} else {
		values, err = getEachParameter(ctx, client, names, untyped)
	}
	if err != nil {
		return fail("%w", err)
	}
	var ids []string
	for _, name := range names {
		value, ok := values[name]
		if !ok {
			continue
		}
		if !hasAMIPrefix(value) {
			return fail("public parameter %q holds %q, not an AMI id", name, value)
		}
		ids = append(ids, value)
	}
	if len(ids) == 0 {
		return fail("SSM has none of its %d public parameters (such as %q); check that the release exists for Kubernetes %s, or resolve the alias by name", len(names), names[0], k8s)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// getParameters reads names with one GetParameters call and returns the
// value of each SSM has.
func getParameters(ctx context.Context, client SSMBatchClient, names []string) (map[string]string, error) {
	if len(names) > maxGetParameters {
		return nil, fmt.Errorf("%d parameters exceed GetParameters' limit of %d", len(names), maxGetParameters)
	}
	out, err := client.GetParameters(ctx, &ssm.GetParametersInput{Names: names})
	if err != nil {
		return nil, fmt.Errorf("reading %d public parameters: %w", len(names), err)
	}
	if out == nil {
		return nil, errors.New("GetParameters returned no response")
	}
	values := make(map[string]string, len(out.Parameters))
	for _, p := range out.Parameters {
		name := aws.ToString(p.Name)
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("SSM answered parameter %q, which was not asked for", name)
		}
		values[name] = aws.ToString(p.Value)
	}
	return values, nil
}

// getEachParameter reads names one GetParameter call at a time and
// returns the value of each SSM has.
func getEachParameter(ctx context.Context, client SSMClient, names []string, untyped bool) (map[string]string, error) {
	values := make(map[string]string, len(names))
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, err := client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
		if notFound(err, untyped) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading public parameter %q: %w", name, err)
		}
		if out == nil || out.Parameter == nil {
			return nil, fmt.Errorf("reading public parameter %q: the response has no parameter", name)
		}
		values[name] = aws.ToString(out.Parameter.Value)
	}
	return values, nil
}
