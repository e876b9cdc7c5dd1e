package main

import (
	"slices"
	"strconv"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/offerings"
)

// PricedType is an instance type and its on-demand list price.
type PricedType struct {
	InstanceType string  `json:"instanceType"`
	Price        float64 `json:"price"`
	Currency     string  `json:"currency"`
}

// Prices are a NodePool's cheapest instance types by on-demand list price.
type Prices struct {
	// Region and Source say where the prices come from: the embedded
	// price snapshot (offerings.EmbeddedPriceSnapshot), for the region
	// preflight knows (-region, or -live's), else us-east-1; RegionFrom
	// says which.
	Region     string `json:"region"`
	RegionFrom string `json:"regionFrom"`
	Source     string `json:"source"`
	// Cheapest are up to three types, cheapest first (ties by name);
	// Unpriced counts the types the snapshot has no price for (unknown,
	// never another region's).
	Cheapest []PricedType `json:"cheapest"`
	Unpriced int          `json:"unpriced"`
}

// prices finds the cheapest of types on demand, with the OS of family.
func (c *checker) prices(types []compat.InstanceType, family compat.AMIFamily) *Prices {
	region, from := c.region, "from "+c.regionFrom
	if region == "" {
		region, from = "us-east-1", "assumed: no -region given"
	}
	if c.book == nil {
		c.book = offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot())
	}
	os := offerings.Linux
	if family == compat.Windows2019 || family == compat.Windows2022 || family == compat.Windows2025 {
		os = offerings.Windows
	}
	out := &Prices{Region: region, RegionFrom: from, Source: "the embedded price snapshot", Cheapest: []PricedType{}}
	var known []offerings.Price
	for _, it := range types {
		p, _ := c.book.Price(offerings.Offering{InstanceType: it.Name, Zone: region + "a", CapacityType: offerings.OnDemand}, offerings.PriceOptions{OS: os, Region: region})
		if !p.Known {
			out.Unpriced++
			continue
		}
		known = append(known, p)
	}
	slices.SortFunc(known, offerings.ComparePrices)
	for _, p := range known[:min(3, len(known))] {
		out.Cheapest = append(out.Cheapest, PricedType{InstanceType: p.Offering.InstanceType, Price: p.Effective, Currency: p.Currency})
	}
	return out
}

func (p PricedType) String() string {
	return p.InstanceType + " " + strconv.FormatFloat(p.Price, 'f', -1, 64) + " " + p.Currency + "/h"
}
