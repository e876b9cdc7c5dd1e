package compat

import (
	"slices"
	"strings"
)

//go:generate go test -run TestVPCLimitsTable -update

// branchInterfaces is the number of branch interfaces (pod ENIs) the VPC
// resource controller lets the named type's trunk interface carry, or 0
// when the type does not support trunking or Karpenter's table does not
// list it. EC2's DescribeInstanceTypes does not say; the table is
// vpc_limits.tsv, compiled into zz_generated_vpc_limits.go.
func branchInterfaces(name string) int {
	i, found := slices.BinarySearchFunc(branchInterfaceTable[:], name, func(row branchRow, name string) int {
		return strings.Compare(row.name, name)
	})
	if !found {
		return 0
	}
	return int(branchInterfaceTable[i].branches)
}

type branchRow struct {
	name     string
	branches int32
}
