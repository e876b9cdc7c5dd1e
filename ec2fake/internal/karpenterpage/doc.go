// Package karpenterpage reads Karpenter's generated instance-types
// reference (website/content/en/<version>/reference/instance-types.md in
// aws/karpenter-provider-aws): the labels and allocatable resources it
// lists per instance type. ec2fake's catalog generator builds
// DescribeInstanceTypes facts from it, and ec2fake's tests check that the
// catalog converts back to the same labels.
//
// [Parse] reads the page's Markdown (its grammar is on Parse). It is
// a pure function of its input, safe for concurrent use, and never panics.
package karpenterpage
