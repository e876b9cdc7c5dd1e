package main

import (
	"strconv"
	"strings"

	"github.com/ec2select/ec2select/capacity"
	"github.com/ec2select/ec2select/offerings"
)

// listPrices prices the on-demand offering of each estimated type from the
// embedded price snapshot (Karpenter v1.14.1's tables: us-east-1, GovCloud
// and cn-north-1, Linux), for the -region given with -live, else
// us-east-1, with the OS of the type's AMI family. A price the snapshot
// lacks is "unknown", never another region's.
type listPrices struct {
	book   *offerings.PriceBook
	region string
}

func newListPrices(region string) listPrices {
	if region == "" {
		region = "us-east-1"
	}
	return listPrices{book: offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot()), region: region}
}

func (l listPrices) price(e capacity.Estimate) offerings.Price {
	os := offerings.Linux
	if strings.HasPrefix(strings.ToLower(e.Family.String()), "windows") {
		os = offerings.Windows
	}
	p, _ := l.book.Price(offerings.Offering{InstanceType: e.InstanceType, Zone: l.region + "a", CapacityType: offerings.OnDemand},
		offerings.PriceOptions{OS: os, Region: l.region})
	return p
}

// cell is the table's ON-DEMAND column.
func (l listPrices) cell(e capacity.Estimate) string {
	p := l.price(e)
	if !p.Known {
		return "unknown"
	}
	return strconv.FormatFloat(p.Effective, 'f', -1, 64) + " " + p.Currency + "/h"
}
