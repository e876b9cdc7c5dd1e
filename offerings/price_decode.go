package offerings

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// priceListItem is the part of one GetProducts PriceList document that a
// list price needs: the product's attributes and its OnDemand terms. The
// documents' shape is AWS's (product{productFamily, attributes, sku},
// terms{OnDemand{SKU.OFFER{priceDimensions{SKU.OFFER.RATE{unit,
// pricePerUnit{USD}}}}}}); members this does not name, such as
// terms.Reserved, are skipped by the decoder.
type priceListItem struct {
	Product struct {
		ProductFamily string `json:"productFamily"`
		SKU           string `json:"sku"`
		Attributes    struct {
			InstanceType    string `json:"instanceType"`
			RegionCode      string `json:"regionCode"`
			OperatingSystem string `json:"operatingSystem"`
			LicenseModel    string `json:"licenseModel"`
			Tenancy         string `json:"tenancy"`
		} `json:"attributes"`
	} `json:"product"`
	Terms struct {
		OnDemand map[string]struct {
			PriceDimensions map[string]struct {
				Unit         string            `json:"unit"`
				PricePerUnit map[string]string `json:"pricePerUnit"`
			} `json:"priceDimensions"`
		} `json:"OnDemand"`
	} `json:"terms"`
}

// decodedPrice is one list price read from a PriceList document.
type decodedPrice struct {
	sku                                                string
	region, instanceType, os, license, tenancy, family string
	price                                              string
	value                                              float64
}

// decodePriceListItem reads one PriceList document. It returns false, with
// no error, for a product that is not an hourly-priced instance (no
// instance type, or no non-zero hourly OnDemand price in currency: capacity
// block and reservation SKUs carry 0, which Karpenter skips too,
// pricing.go:376). A document that is not JSON is an error.
func decodePriceListItem(doc, currency string) (decodedPrice, bool, error) {
	var it priceListItem
	if err := decodeMembers(doc, &it); err != nil {
		return decodedPrice{}, false, fmt.Errorf("offerings: a GetProducts PriceList entry is not a price list document: %w", err)
	}
	a := it.Product.Attributes
	if a.InstanceType == "" {
		return decodedPrice{}, false, nil
	}
	text, value, ok := hourlyPrice(&it, currency)
	if !ok {
		return decodedPrice{}, false, nil
	}
	return decodedPrice{sku: it.Product.SKU, region: a.RegionCode, instanceType: a.InstanceType, os: a.OperatingSystem,
		license: a.LicenseModel, tenancy: a.Tenancy, family: it.Product.ProductFamily, price: text, value: value}, true, nil
}

// hourlyPrice picks the OnDemand dimension priced per hour; of several,
// the one whose rate code sorts first, so the choice does not depend on
// map order.
func hourlyPrice(it *priceListItem, currency string) (string, float64, bool) {
	bestCode, bestText, bestValue := "", "", 0.0
	for termCode, term := range it.Terms.OnDemand {
		for rateCode, dim := range term.PriceDimensions {
			if !strings.EqualFold(dim.Unit, "Hrs") {
				continue
			}
			text := dim.PricePerUnit[currency]
			v, err := strconv.ParseFloat(text, 64)
			if err != nil || v <= 0 {
				continue
			}
			code := termCode + "/" + rateCode
			if bestCode == "" || code < bestCode {
				bestCode, bestText, bestValue = code, text, v
			}
		}
	}
	return bestText, bestValue, bestCode != ""
}

// currencyOf is the currency the Price List quotes a region in.
func currencyOf(region string) string {
	if strings.HasPrefix(region, "cn-") {
		return "CNY"
	}
	return "USD"
}

// decodeMembers fills it from doc. A document with Reserved Instance terms
// is several times the size of the parts a list price needs (twelve RI
// terms against one on-demand term), and a JSON decoder scans every byte
// even of what it skips; so the two members needed are found by their keys
// and decoded alone: "product": and "OnDemand":, which can only be keys,
// since JSON escapes every quote inside a string. Each is decoded as one
// complete JSON value (a json.Decoder stops after it). A document where
// either key is missing is decoded whole, so that its error, if any, is
// encoding/json's.
func decodeMembers(doc string, it *priceListItem) error {
	product, okP := memberValue(doc, `"product":`)
	onDemand, okO := memberValue(doc, `"OnDemand":`)
	if !okP || !okO {
		return json.Unmarshal([]byte(doc), it)
	}
	if err := json.NewDecoder(strings.NewReader(product)).Decode(&it.Product); err != nil {
		return err
	}
	return json.NewDecoder(strings.NewReader(onDemand)).Decode(&it.Terms.OnDemand)
}

// memberValue returns doc from the value of the member with key on.
func memberValue(doc, key string) (string, bool) {
	i := strings.Index(doc, key)
	if i < 0 {
		return "", false
	}
	return doc[i+len(key):], true
}
