package amiselect

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Options configures [Resolve]. The zero value means the defaults:
// aliases resolve by name and no SSM client is needed.
type Options struct {
	Query  QueryOptions
	Select SelectOptions
	// SSM reads the parameters of SSMParameter terms, and of an alias
	// when Aliases is AliasBySSM. Nil is fine for terms that need none.
	SSM SSMClient
	// Aliases says how an alias term is resolved.
	Aliases AliasSource
	// SkipMissingParameters lets an SSMParameter term whose parameter
	// SSM does not have match no image, as Karpenter does, and records
	// it in [Selection].MissingParameters. False, the default, fails
	// Resolve instead: a mistyped name would otherwise silently drop the
	// AMI it was meant to select.
	SkipMissingParameters bool
	// UntypedNotFound treats an SSM error that carries no API error code
	// and whose text says "not found" as ParameterNotFound, for an SSM
	// client that does not type it: Karpenter's fake SSM API answers
	// "parameter not found" in words (pkg/fake/ssmapi.go:57,
	// aws/karpenter-provider-aws@v1.14.1). Real SDK clients type it; leave
	// this false for them, so that no other failure is taken for a
	// missing parameter.
	UntypedNotFound bool
}

// Resolve finds the AMIs that terms select: it reads the SSM parameters
// the terms name (an SSMParameter term's, or an alias's public ones when
// opts.Aliases is [AliasBySSM]), builds the requests as [Queries] does,
// with the images SSM named as IDs, pages through each with the SDK's DescribeImages paginator
// (stopping on a repeated token), merges the images of all requests (an
// image found by several is kept once, by ID), and chooses with [Select].
//
// Any failed SSM read or page fails the whole call: the error names the
// term and wraps the SDK's error, so errors.As finds a smithy.APIError (a throttling code,
// say) and errors.Is finds context.Canceled. No partial selection is ever
// returned. A parameter SSM does not have (ParameterNotFound) fails it
// too, unless opts.SkipMissingParameters lets the term match nothing; the
// Selection then lists it in MissingParameters. An empty selection is not
// an error: see [Mapping.Err].
//
// An alias through SSM is read with one GetParameters call when opts.SSM
// is an [SSMBatchClient], else with one GetParameter call per parameter.
// With opts.Select.MinAge set, the soak applies as it does by name: each
// public parameter's history (opts.SSM must be an [SSMHistoryClient], or
// Resolve fails with [ErrMinAgeNeedsHistory]) gives the releases it named
// before its current one, and of those, the ones not newer than the
// current one are the role's candidates, judged by their CreationDate.
//
// Resolve is as safe for concurrent use as client is.
func Resolve(ctx context.Context, client ec2.DescribeImagesAPIClient, terms []Term, opts Options) (Selection, error) {
	if _, err := checkTerms(terms, opts.Query); err != nil {
		return Selection{}, err
	}
	if client == nil {
		return Selection{}, errors.New("amiselect: Resolve needs a DescribeImages client, got nil")
	}
	fromSSM, err := readSSM(ctx, opts.SSM, terms, opts.Query, opts.Aliases, opts.SkipMissingParameters, opts.UntypedNotFound)
	if err != nil {
		return Selection{}, err
	}
	history, err := readSoakHistory(ctx, terms, opts)
	if err != nil {
		return Selection{}, err
	}
	var current []string
	if history != nil {
		current = fromSSM.aliasIDs
		fromSSM.aliasIDs = append(slices.Clone(current), history.ids()...)
	}
	qs, err := buildQueries(terms, opts.Query, fromSSM)
	if err != nil {
		return Selection{}, err
	}
	seen := make(map[string]struct{})
	var images []ec2types.Image
	for _, q := range qs {
		p := ec2.NewDescribeImagesPaginator(client, q.input, func(o *ec2.DescribeImagesPaginatorOptions) {
			o.StopOnDuplicateToken = true
		})
		for p.HasMorePages() {
			if err := ctx.Err(); err != nil {
				return Selection{}, fmt.Errorf("amiselect: describing images for %s: %w", q.terms, err)
			}
			out, err := p.NextPage(ctx)
			if err != nil {
				return Selection{}, fmt.Errorf("amiselect: describing images for %s: %w", q.terms, err)
			}
			for _, img := range out.Images {
				// An image without an ID cannot be deduplicated; Select
				// rejects it with a reason.
				if id := aws.ToString(img.ImageId); id != "" {
					if _, dup := seen[id]; dup {
						continue
					}
					seen[id] = struct{}{}
				}
				images = append(images, img)
			}
		}
	}
	if history != nil {
		images = history.candidates(images, current)
	}
	sel := Select(images, opts.Select)
	if fromSSM != nil {
		sel.MissingParameters = fromSSM.missing
	}
	sel.from = resolvedFrom(terms, opts)
	return sel, nil
}
