package compat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// SkippedType is an instance type [LoadInstanceTypes] left out, and why.
type SkippedType struct {
	Name string
	Err  error // InstanceTypeFromEC2's: no EKS node runs on the type (a Mac, an i386-only type)
}

// maxTypesPerRequest is how many names DescribeInstanceTypes takes in one
// request (API reference, DescribeInstanceTypesInput.InstanceTypes:
// "Maximum number of 100 items").
const maxTypesPerRequest = 100

// LoadInstanceTypes describes instance types and converts each with
// [InstanceTypeFromEC2]: every type EC2 offers when in is nil, or those in
// selects (its names and filters). It pages with the SDK's paginator,
// stopping on a repeated token, and describes more than 100 names in
// batches of 100, as EC2 takes them. A type that appears twice is kept
// once.
//
// It returns the types, sorted by name, and the types no EKS node runs on,
// sorted by name, each with the reason. A failed page fails the whole call
// and returns nothing: the error wraps the SDK's, so errors.As finds a
// smithy.APIError and errors.Is finds context.Canceled. Without paging, a
// caller gets EC2's first page of 100 types and a mapping that silently
// leaves the rest out.
//
// in is not modified. LoadInstanceTypes is as safe for concurrent use as
// client is.
func LoadInstanceTypes(ctx context.Context, client ec2.DescribeInstanceTypesAPIClient, in *ec2.DescribeInstanceTypesInput) ([]InstanceType, []SkippedType, error) {
	if client == nil {
		return nil, nil, errors.New("compat: LoadInstanceTypes needs a DescribeInstanceTypes client, got nil")
	}
	seen := map[string]bool{}
	var types []InstanceType
	var skipped []SkippedType
	for _, batch := range batches(in) {
		pages := ec2.NewDescribeInstanceTypesPaginator(client, batch, func(o *ec2.DescribeInstanceTypesPaginatorOptions) {
			o.StopOnDuplicateToken = true
		})
		for n := 1; pages.HasMorePages(); n++ {
			page, err := pages.NextPage(ctx)
			if err != nil {
				return nil, nil, fmt.Errorf("compat: describing instance types, page %d: %w", n, err)
			}
			for _, info := range page.InstanceTypes {
				name := string(info.InstanceType)
				if seen[name] {
					continue
				}
				seen[name] = true
				if t, err := InstanceTypeFromEC2(info); err != nil {
					skipped = append(skipped, SkippedType{Name: name, Err: err})
				} else {
					types = append(types, t)
				}
			}
		}
	}
	slices.SortFunc(types, func(a, b InstanceType) int { return strings.Compare(a.Name, b.Name) })
	slices.SortFunc(skipped, func(a, b SkippedType) int { return strings.Compare(a.Name, b.Name) })
	return types, skipped, nil
}

// batches returns the requests that describe what in selects: in itself
// (a copy), or one per hundred of its names.
func batches(in *ec2.DescribeInstanceTypesInput) []*ec2.DescribeInstanceTypesInput {
	if in == nil {
		return []*ec2.DescribeInstanceTypesInput{{}}
	}
	if len(in.InstanceTypes) <= maxTypesPerRequest {
		c := *in
		return []*ec2.DescribeInstanceTypesInput{&c}
	}
	var out []*ec2.DescribeInstanceTypesInput
	for names := range slices.Chunk(in.InstanceTypes, maxTypesPerRequest) {
		c := *in
		c.InstanceTypes = slices.Clone(names)
		out = append(out, &c)
	}
	return out
}
