package quantity_test

import (
	"fmt"

	"github.com/ec2select/ec2select/internal/quantity"
)

func ExampleParse() {
	for _, s := range []string{"1.5Gi", "100m", "1.G", "Ki", "e-10", "1GB"} {
		q, err := quantity.Parse(s)
		fmt.Printf("%q: sign %d, %v\n", s, q.Sign(), err)
	}
	// Output:
	// "1.5Gi": sign 1, <nil>
	// "100m": sign 1, <nil>
	// "1.G": sign 1, <nil>
	// "Ki": sign 0, <nil>
	// "e-10": sign 0, unable to parse quantity's numeric value
	// "1GB": sign 0, quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
}

func ExampleQuantity_Scaled() {
	q, _ := quantity.Parse("0.1005")
	floor, ceil, _ := q.Scaled(-3) // thousandths: millicores
	fmt.Println(floor, ceil)
	q, _ = quantity.Parse("10E")
	_, _, err := q.Scaled(0)
	fmt.Println(err)
	// Output:
	// 100 101
	// value beyond int64 in this unit
}

func ExampleFormatBinary() {
	fmt.Println(quantity.FormatBinary(7<<30), quantity.FormatBinary(7934372<<10), quantity.FormatBinary(1e9))
	fmt.Println(quantity.FormatDecimal(2000, -3), quantity.FormatDecimal(1930, -3))
	// Output:
	// 7Gi 7934372Ki 1000000000
	// 2 1930m
}
