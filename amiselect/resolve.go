package amiselect

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// Options configures [Resolve]. The zero value means the defaults.
type Options struct {
	Query  QueryOptions
	Select SelectOptions
}

// Resolve finds the AMIs that terms select: it builds the requests with
// [Queries], pages through each with the SDK's DescribeImages paginator
// (stopping on a repeated token), merges the images of all requests (an
// image found by several is kept once, by ID), and chooses with [Select].
//
// Any failed page fails the whole call: the error names the term and wraps
// the SDK's error, so errors.As finds a smithy.APIError (a throttling code,
// say) and errors.Is finds context.Canceled. No partial selection is ever
// returned. An empty selection is not an error: see [Mapping.Err].
//
// Resolve is as safe for concurrent use as client is.
func Resolve(ctx context.Context, client ec2.DescribeImagesAPIClient, terms []Term, opts Options) (Selection, error) {
	qs, err := buildQueries(terms, opts.Query)
	if err != nil {
		return Selection{}, err
	}
	if client == nil {
		return Selection{}, errors.New("amiselect: Resolve needs a DescribeImages client, got nil")
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
	return Select(images, opts.Select), nil
}
