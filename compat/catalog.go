package compat

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// CatalogDate is the day the embedded catalog's facts were taken: the
// date of ec2fake's catalog, which it is derived from.
const CatalogDate = "2026-11-22"

// The embedded catalog: one InstanceType as JSON per line, gzipped; the
// types of ec2fake's catalog (Karpenter v1.14's instance-types reference
// with DescribeInstanceTypes' network limits) and six retired types
// cluster-autoscaler still lists (testdata/retired-instance-types.tsv).
// TestCatalogFile regenerates it with -update-catalog.
//
//go:embed catalog.jsonl.gz
var catalogFile []byte

// InstanceTypeByName returns the facts of an instance type from the
// embedded catalog of [CatalogDate], as [InstanceTypeFromEC2] reads them
// from DescribeInstanceTypes: for a caller, such as an autoscaler with a
// static list of names, vCPUs and memory, that lacks the rest (network
// interfaces, GPUs, hypervisor). ok is false for a type the catalog does
// not list: describe it with DescribeInstanceTypes. The result is the
// caller's to modify.
func InstanceTypeByName(name string) (InstanceType, bool) {
	it, ok := embeddedCatalog()[name]
	if !ok {
		return InstanceType{}, false
	}
	it.OS = slices.Clone(it.OS)
	it.Network.Cards = slices.Clone(it.Network.Cards)
	return it, true
}

// embeddedCatalog decodes the catalog once; a decoding failure is a build
// defect TestCatalogFile catches.
var embeddedCatalog = sync.OnceValue(func() map[string]InstanceType {
	m, err := decodeCatalog(catalogFile)
	if err != nil {
		panic(err)
	}
	return m
})

func decodeCatalog(data []byte) (map[string]InstanceType, error) {
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("compat: embedded catalog: %w", err)
	}
	out := map[string]InstanceType{}
	s := bufio.NewScanner(z)
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		var it InstanceType
		if err := json.Unmarshal(s.Bytes(), &it); err != nil || it.Name == "" {
			return nil, fmt.Errorf("compat: embedded catalog line %d: %v", n, err)
		}
		out[it.Name] = it
	}
	return out, s.Err()
}
