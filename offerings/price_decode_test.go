package offerings

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeMembers reads what a full decode reads, from documents in the
// fake's shape and in AWS's with Reserved terms.
func TestDecodeMembersMatchesFullDecode(t *testing.T) {
	for _, reserved := range []bool{false, true} {
		docs := priceListDocsT(t, 50, reserved)
		for _, d := range docs {
			var full, part priceListItem
			if err := json.Unmarshal([]byte(d), &full); err != nil {
				t.Fatal(err)
			}
			if err := decodeMembers(d, &part); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(full, part); diff != "" {
				t.Fatalf("(-full +members):\n%s", diff)
			}
		}
	}
}

// FuzzDecodePriceListItem: no document panics, and a valid one reads as a
// full decode reads it.
func FuzzDecodePriceListItem(f *testing.F) {
	f.Add(`{"product":{"productFamily":"Compute Instance","attributes":{"instanceType":"m5.large","regionCode":"us-east-1"},"sku":"A"},"terms":{"OnDemand":{"A.B":{"priceDimensions":{"A.B.C":{"unit":"Hrs","pricePerUnit":{"USD":"0.096"}}}}},"Reserved":{}}}`)
	f.Add(`{"terms":{"OnDemand":{}},"product":{}}`)
	f.Add(`{"product":"x","OnDemand":1}`)
	f.Fuzz(func(t *testing.T, doc string) {
		d, ok, err := decodePriceListItem(doc, "USD")
		if err != nil || !json.Valid([]byte(doc)) {
			return
		}
		var full priceListItem
		if json.Unmarshal([]byte(doc), &full) != nil {
			return
		}
		text, value, has := hourlyPrice(&full, "USD")
		want := has && full.Product.Attributes.InstanceType != ""
		if ok != want || (ok && (d.price != text || d.value != value || d.instanceType != full.Product.Attributes.InstanceType)) {
			t.Fatalf("members read %+v (%v); a full decode reads %q %v %v", d, ok, text, value, want)
		}
	})
}
