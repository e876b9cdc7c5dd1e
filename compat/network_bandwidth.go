package compat

import (
	"slices"
	"strings"
)

//go:generate go test -run TestNetworkBandwidthTable -update

// networkBandwidth is the figure Karpenter labels
// karpenter.k8s.aws/instance-network-bandwidth with for the named type, in
// Mbps, or 0 when its table has none. The table is network_bandwidth.tsv,
// compiled into zz_generated_network_bandwidth.go.
func networkBandwidth(name string) int {
	i, found := slices.BinarySearchFunc(networkBandwidthTable[:], name, func(row bandwidthRow, name string) int {
		return strings.Compare(row.name, name)
	})
	if !found {
		return 0
	}
	return int(networkBandwidthTable[i].mbps)
}

type bandwidthRow struct {
	name string
	mbps int32
}
