package offerings_test

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/offerings"
)

// An on-demand offering priced from the embedded snapshot with a Savings
// Plan and an enterprise discount, term by term; and a region the
// snapshot lacks, unknown rather than us-east-1's price.
func ExamplePriceBook_Price() {
	book := offerings.NewPriceBook(offerings.EmbeddedPriceSnapshot())
	opts := offerings.PriceOptions{Discounts: offerings.Discounts{
		SavingsPlans:      []offerings.SavingsPlanRate{{Region: "us-east-1", Family: "m5", Percent: 20, Source: "EC2 Instance Savings Plan"}},
		EnterprisePercent: 5, EnterpriseSource: "enterprise agreement",
	}}
	p, _ := book.Price(offerings.Offering{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: offerings.OnDemand}, opts)
	fmt.Println(strings.ReplaceAll(p.Explain(), "karpenter-provider-aws v1.14.1 (bde00654) pkg/providers/pricing/zz_generated.pricing_aws.go: Price List Query API GetProducts, Linux, preInstalledSw NA, capacitystatus Used, OnDemand", "Karpenter's table"))
	q, _ := book.Price(offerings.Offering{InstanceType: "m5.large", Zone: "eu-west-1a", CapacityType: offerings.OnDemand}, opts)
	fmt.Println(q.Known)
	// Output:
	// m5.large us-east-1a on-demand (linux): 0.07296 USD/h
	//   list 0.096 USD/h: Karpenter's table (as of 2026-07-06T14:20:29Z)
	//   savings-plan 20% off → 0.0768: EC2 Instance Savings Plan
	//   enterprise 5% off → 0.07296: enterprise agreement
	// false
}
