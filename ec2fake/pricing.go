package ec2fake

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
	"github.com/aws/smithy-go"

	"github.com/ec2select/ec2select/internal/pricedata"
)

// Price List Query API operations (AWSPriceListService).
const (
	OpGetProducts        = "GetProducts"
	OpDescribeServices   = "DescribeServices"
	OpGetAttributeValues = "GetAttributeValues"
)

var pricingOperations = []string{OpGetProducts, OpDescribeServices, OpGetAttributeValues}

// Price List Query API error codes, as botocore's pricing model names them.
const (
	CodeInvalidParameterException = "InvalidParameterException"
	CodeNotFoundException         = "NotFoundException"
	CodeInvalidNextTokenException = "InvalidNextTokenException"
	CodeExpiredNextTokenException = "ExpiredNextTokenException"
	CodeThrottlingException       = "ThrottlingException"
	CodeInternalErrorException    = "InternalErrorException"
	CodeAccessDeniedException     = "AccessDeniedException"
)

// ec2ServiceCode is the one service whose products the fake lists.
const ec2ServiceCode = "AmazonEC2"

// priceIndex is the catalog's products as GetProducts serves them, built
// on first use from the backend's price table.
type priceIndex struct {
	products []*product // by SKU
	attrs    map[string][]string
}

// product is one SKU: its filterable fields (by lower-cased name, with the
// field's own spelling kept for DescribeServices) and its document.
type product struct {
	sku    string
	fields map[string]field
	doc    string
}

type field struct{ name, value string }

// LoadPrices replaces the backend's prices with a price snapshot in the
// format offerings.PriceSnapshot writes (internal/pricedata documents it):
// its on-demand prices become GetProducts products, and its regions'
// on-demand Linux and Windows prices seed the synthetic spot price
// history DescribeSpotPriceHistory answers from. On error nothing changes.
func (b *Backend) LoadPrices(snapshot io.Reader) error {
	t, err := pricedata.Read(snapshot)
	if err != nil {
		return fmt.Errorf("ec2fake: LoadPrices: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prices, b.priceIdx = t, nil
	return nil
}

// loadEmbeddedPrices gives a catalog backend the embedded snapshot.
func (b *Backend) loadEmbeddedPrices() {
	t, err := pricedata.Embedded()
	if err != nil {
		panic(fmt.Sprintf("ec2fake: embedded price snapshot does not load: %v", err))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.prices, b.priceIdx = t, nil
}

// pricesIndex returns the product index, building it if the prices
// changed. b.mu must be held for reading; the build takes it for writing.
func (b *Backend) pricesIndex() *priceIndex {
	b.mu.RLock()
	idx, t := b.priceIdx, b.prices
	b.mu.RUnlock()
	if idx != nil {
		return idx
	}
	idx = buildPriceIndex(t)
	b.mu.Lock()
	if b.prices == t {
		b.priceIdx = idx
	}
	b.mu.Unlock()
	return idx
}

func buildPriceIndex(t *pricedata.Table) *priceIndex {
	idx := &priceIndex{attrs: map[string][]string{}}
	if t == nil {
		return idx
	}
	published := map[string]time.Time{}
	for _, s := range t.Sources {
		published[s.Region] = s.AsOf
	}
	for _, o := range t.OnDemand {
		idx.products = append(idx.products, newProduct(o, published[o.Region]))
	}
	slices.SortFunc(idx.products, func(a, b *product) int { return strings.Compare(a.sku, b.sku) })
	seen := map[string]map[string]bool{}
	for _, p := range idx.products {
		for _, f := range p.fields {
			if seen[f.name] == nil {
				seen[f.name] = map[string]bool{}
			}
			if !seen[f.name][f.value] {
				seen[f.name][f.value] = true
				idx.attrs[f.name] = append(idx.attrs[f.name], f.value)
			}
		}
	}
	for _, vs := range idx.attrs {
		slices.Sort(vs)
	}
	return idx
}

// sku derives a stable 16-character SKU from a product's identity, in the
// alphabet AWS's SKUs use.
func sku(parts ...string) string {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	const alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
	v := h.Sum64()
	out := make([]byte, 16)
	for i := range out {
		out[i] = alphabet[v%uint64(len(alphabet))]
		v = v/uint64(len(alphabet)) ^ (v << 7) ^ uint64(i)*0x9E3779B97F4A7C15
	}
	return string(out)
}

// onDemandOfferTerm and hourlyRateCode are the codes AWS gives every
// on-demand term and its hourly dimension.
const (
	onDemandOfferTerm = "JRTCKXETXF"
	hourlyRateCode    = "6YS6EN2CT7"
)

// newProduct builds a SKU and its document in the shape AWS's Price List
// Query API returns (attributes named as AWS names them; one OnDemand
// term with one hourly dimension; no Reserved terms, which the snapshot
// does not hold).
func newProduct(o pricedata.OnDemand, published time.Time) *product {
	id := sku(o.Region, o.InstanceType, o.OS, o.License, o.Tenancy, o.Family)
	usage := "BoxUsage:"
	if o.Tenancy == "Dedicated" {
		usage = "DedicatedUsage:"
	}
	attrs := map[string]string{
		"instanceType": o.InstanceType, "instanceFamily": instanceFamilyName(o.InstanceType), "regionCode": o.Region,
		"location": locationName(o.Region), "locationType": "AWS Region", "operatingSystem": o.OS, "licenseModel": o.License,
		"tenancy": o.Tenancy, "preInstalledSw": "NA", "capacitystatus": "Used", "marketoption": "OnDemand",
		"servicecode": ec2ServiceCode, "servicename": "Amazon Elastic Compute Cloud",
		"usagetype": usagePrefix(o.Region) + usage + o.InstanceType, "operation": operationOf(o.OS, o.License),
	}
	p := &product{sku: id, fields: map[string]field{}}
	for k, v := range attrs {
		p.fields[strings.ToLower(k)] = field{k, v}
	}
	p.fields["productfamily"] = field{"productFamily", o.Family}
	p.fields["servicecode"] = field{"ServiceCode", ec2ServiceCode}
	currency := "USD"
	if strings.HasPrefix(o.Region, "cn-") {
		currency = "CNY"
	}
	rate := id + "." + onDemandOfferTerm + "." + hourlyRateCode
	doc := map[string]any{
		"product":     map[string]any{"productFamily": o.Family, "attributes": attrs, "sku": id},
		"serviceCode": ec2ServiceCode,
		"terms": map[string]any{"OnDemand": map[string]any{id + "." + onDemandOfferTerm: map[string]any{
			"priceDimensions": map[string]any{rate: map[string]any{
				"unit": "Hrs", "endRange": "Inf", "beginRange": "0", "appliesTo": []string{}, "rateCode": rate,
				"description":  fmt.Sprintf("%s %s per On Demand %s %s Instance Hour", currency, o.Price, o.OS, o.InstanceType),
				"pricePerUnit": map[string]string{currency: o.Price},
			}},
			"sku": id, "effectiveDate": published.UTC().Format("2006-01-02T15:04:05Z"), "offerTermCode": onDemandOfferTerm, "termAttributes": map[string]string{},
		}}},
		"version":         published.UTC().Format("20060102150405"),
		"publicationDate": published.UTC().Format("2006-01-02T15:04:05Z"),
	}
	body, _ := json.Marshal(doc) // maps of strings: cannot fail
	p.doc = string(body)
	return p
}

func instanceFamilyName(instanceType string) string {
	switch instanceType[0] {
	case 'c':
		return "Compute optimized"
	case 'r', 'x', 'u', 'z':
		return "Memory optimized"
	case 'g', 'p', 'i', 'f', 'd', 't', 'm', 'a', 'h', 'v':
		if strings.HasPrefix(instanceType, "i") || strings.HasPrefix(instanceType, "d") || strings.HasPrefix(instanceType, "h") {
			return "Storage optimized"
		}
		if strings.HasPrefix(instanceType, "g") || strings.HasPrefix(instanceType, "p") || strings.HasPrefix(instanceType, "f") || strings.HasPrefix(instanceType, "v") {
			return "GPU instance"
		}
	}
	return "General purpose"
}

// operationOf is the Price List's operation for an OS: RunInstances for
// Linux, RunInstances:0002 for Windows with the licence, :0800 BYOL.
func operationOf(os, license string) string {
	switch {
	case os == "Windows" && strings.HasPrefix(license, "Bring"):
		return "RunInstances:0800"
	case os == "Windows":
		return "RunInstances:0002"
	}
	return "RunInstances"
}

// regionNames are the Price List's location and usage-type prefix of the
// regions a price table may hold; a region not listed gets its code.
var regionNames = map[string][2]string{
	"us-east-1": {"US East (N. Virginia)", ""}, "us-east-2": {"US East (Ohio)", "USE2-"},
	"us-west-1": {"US West (N. California)", "USW1-"}, "us-west-2": {"US West (Oregon)", "USW2-"},
	"eu-west-1": {"EU (Ireland)", "EU-"}, "eu-central-1": {"EU (Frankfurt)", "EUC1-"},
	"ap-south-1": {"Asia Pacific (Mumbai)", "APS3-"}, "ap-northeast-1": {"Asia Pacific (Tokyo)", "APN1-"},
	"us-gov-east-1": {"AWS GovCloud (US-East)", "USGE1-"}, "us-gov-west-1": {"AWS GovCloud (US-West)", "UGW1-"},
	"cn-north-1": {"China (Beijing)", "CNN1-"}, "cn-northwest-1": {"China (Ningxia)", "CNW1-"},
}

func locationName(region string) string {
	if n, ok := regionNames[region]; ok {
		return n[0]
	}
	return region
}

func usagePrefix(region string) string {
	if n, ok := regionNames[region]; ok {
		return n[1]
	}
	return strings.ToUpper(region) + "-"
}

// GetProducts implements pricing.GetProductsAPIClient: the Price List
// Query API's product search over the backend's prices. Errors are the
// SDK's shapes, as for the EC2 operations.
func (b *Backend) GetProducts(ctx context.Context, in *pricing.GetProductsInput, _ ...func(*pricing.Options)) (*pricing.GetProductsOutput, error) {
	if in != nil && in.ServiceCode == nil {
		return nil, paramRequired(OpGetProducts, "GetProductsInput", "ServiceCode")
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetProducts, in, b.getProducts)
	return result(OpGetProducts, out, requestID, aerr, ctxErr)
}

// DescribeServices lists AmazonEC2 and its attribute names.
func (b *Backend) DescribeServices(ctx context.Context, in *pricing.DescribeServicesInput, _ ...func(*pricing.Options)) (*pricing.DescribeServicesOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeServices, in, b.describeServices)
	return result(OpDescribeServices, out, requestID, aerr, ctxErr)
}

// GetAttributeValues lists the values an attribute takes over the
// backend's products, sorted, 100 at a time by default.
func (b *Backend) GetAttributeValues(ctx context.Context, in *pricing.GetAttributeValuesInput, _ ...func(*pricing.Options)) (*pricing.GetAttributeValuesOutput, error) {
	if in != nil && (in.ServiceCode == nil || in.AttributeName == nil) {
		return nil, paramRequired(OpGetAttributeValues, "GetAttributeValuesInput", "ServiceCode")
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetAttributeValues, in, b.getAttributeValues)
	return result(OpGetAttributeValues, out, requestID, aerr, ctxErr)
}

const tokenOpProducts byte = 'p'

func (b *Backend) getProducts(in *pricing.GetProductsInput) (*pricing.GetProductsOutput, *apiError) {
	page, aerr := pageSize(in.MaxResults)
	if aerr != nil {
		return nil, aerr
	}
	if v := aws.ToString(in.FormatVersion); v != "" && v != "aws_v1" {
		return nil, newAPIError(CodeInvalidParameterException, "FormatVersion %q is not supported; use aws_v1.", v)
	}
	if aerr := checkServiceCode(aws.ToString(in.ServiceCode)); aerr != nil {
		return nil, aerr
	}
	match, aerr := compileProductFilters(in.Filters)
	if aerr != nil {
		return nil, aerr
	}
	idx := b.pricesIndex()
	fp := productsFingerprint(in)
	after := ""
	if tok := aws.ToString(in.NextToken); tok != "" {
		var ok bool
		if after, ok = decodeToken(tok, tokenOpProducts, fp, func(string) bool { return true }); !ok {
			return nil, newAPIError(CodeInvalidNextTokenException, "The pagination token is invalid. Try again without a pagination token.")
		}
	}
	start, _ := slices.BinarySearchFunc(idx.products, after, func(p *product, s string) int { return strings.Compare(p.sku, s) })
	out := &pricing.GetProductsOutput{FormatVersion: aws.String("aws_v1"), PriceList: []string{}}
	last := ""
	for _, p := range idx.products[start:] {
		if p.sku == after || !match(p) {
			continue
		}
		if len(out.PriceList) == page {
			out.NextToken = aws.String(encodeToken(tokenOpProducts, fp, last))
			break
		}
		out.PriceList, last = append(out.PriceList, p.doc), p.sku
	}
	return out, nil
}

func pageSize(max *int32) (int, *apiError) {
	if max == nil {
		return 100, nil
	}
	if *max < 1 || *max > 100 {
		return 0, newAPIError(CodeInvalidParameterException, "MaxResults %d is out of range; use 1 to 100.", *max)
	}
	return int(*max), nil
}

func checkServiceCode(code string) *apiError {
	if code != ec2ServiceCode {
		return newAPIError(CodeNotFoundException, "Service code %q not found; ec2fake lists the products of %s only.", code, ec2ServiceCode)
	}
	return nil
}

func productsFingerprint(in *pricing.GetProductsInput) uint64 {
	f := newFingerprinter(tokenOpProducts)
	f.str(aws.ToString(in.ServiceCode))
	keys := make([]string, len(in.Filters))
	for i, flt := range in.Filters {
		keys[i] = string(flt.Type) + "\x00" + strings.ToLower(aws.ToString(flt.Field)) + "\x00" + aws.ToString(flt.Value)
	}
	slices.Sort(keys)
	f.strs("filters", keys)
	return f.h
}

func (b *Backend) describeServices(in *pricing.DescribeServicesInput) (*pricing.DescribeServicesOutput, *apiError) {
	if code := aws.ToString(in.ServiceCode); code != "" {
		if aerr := checkServiceCode(code); aerr != nil {
			return nil, aerr
		}
	}
	idx := b.pricesIndex()
	names := make([]string, 0, len(idx.attrs))
	for name := range idx.attrs {
		if name != "ServiceCode" && name != "productFamily" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return &pricing.DescribeServicesOutput{FormatVersion: aws.String("aws_v1"),
		Services: []pricingtypes.Service{{ServiceCode: aws.String(ec2ServiceCode), AttributeNames: names}}}, nil
}

const tokenOpAttributes byte = 'a'

func (b *Backend) getAttributeValues(in *pricing.GetAttributeValuesInput) (*pricing.GetAttributeValuesOutput, *apiError) {
	if aerr := checkServiceCode(aws.ToString(in.ServiceCode)); aerr != nil {
		return nil, aerr
	}
	page, aerr := pageSize(in.MaxResults)
	if aerr != nil {
		return nil, aerr
	}
	idx := b.pricesIndex()
	var values []string
	for name, vs := range idx.attrs {
		if strings.EqualFold(name, aws.ToString(in.AttributeName)) {
			values = vs
		}
	}
	f := newFingerprinter(tokenOpAttributes)
	f.str(strings.ToLower(aws.ToString(in.AttributeName)))
	start := 0
	if tok := aws.ToString(in.NextToken); tok != "" {
		after, ok := decodeToken(tok, tokenOpAttributes, f.h, func(string) bool { return true })
		if !ok {
			return nil, newAPIError(CodeInvalidNextTokenException, "The pagination token is invalid. Try again without a pagination token.")
		}
		start, _ = slices.BinarySearch(values, after)
		if start < len(values) && values[start] == after {
			start++
		}
	}
	out := &pricing.GetAttributeValuesOutput{AttributeValues: []pricingtypes.AttributeValue{}}
	end := min(start+page, len(values))
	for _, v := range values[start:end] {
		out.AttributeValues = append(out.AttributeValues, pricingtypes.AttributeValue{Value: aws.String(v)})
	}
	if end < len(values) {
		out.NextToken = aws.String(encodeToken(tokenOpAttributes, f.h, values[end-1]))
	}
	return out, nil
}

// compileProductFilters checks filters and returns their conjunction.
// Field names match case-insensitively (ServiceCode, serviceCode and
// servicecode are one field; Karpenter sends serviceCode,
// amazon-ec2-instance-selector ServiceCode). Values:
//
//	TERM_MATCH  equal, ignoring case (instance-selector sends "linux", "used")
//	EQUALS      equal, exactly
//	CONTAINS    the field contains the value, exactly
//	ANY_OF      equal, exactly, to one of the comma-separated values
//	NONE_OF     equal to none of them
//
// A product without the field matches no filter on it. A filter with an
// empty field or value, or of another type, is an InvalidParameterException.
func compileProductFilters(filters []pricingtypes.Filter) (func(*product) bool, *apiError) {
	type compiled struct {
		field string
		test  func(string) bool
	}
	cs := make([]compiled, 0, len(filters))
	for i, f := range filters {
		name, value := aws.ToString(f.Field), aws.ToString(f.Value)
		if name == "" || f.Value == nil {
			return nil, newAPIError(CodeInvalidParameterException, "Filters[%d]: Field and Value are required.", i)
		}
		test, ok := filterTest(f.Type, value)
		if !ok {
			return nil, newAPIError(CodeInvalidParameterException, "Filters[%d]: filter type %q is not one of TERM_MATCH, EQUALS, CONTAINS, ANY_OF, NONE_OF.", i, f.Type)
		}
		cs = append(cs, compiled{strings.ToLower(name), test})
	}
	return func(p *product) bool {
		for _, c := range cs {
			f, ok := p.fields[c.field]
			if !ok || !c.test(f.value) {
				return false
			}
		}
		return true
	}, nil
}

func filterTest(kind pricingtypes.FilterType, value string) (func(string) bool, bool) {
	list := strings.Split(value, ",")
	for i := range list {
		list[i] = strings.TrimSpace(list[i])
	}
	switch kind {
	case pricingtypes.FilterTypeTermMatch:
		return func(v string) bool { return strings.EqualFold(v, value) }, true
	case pricingtypes.FilterTypeEquals:
		return func(v string) bool { return v == value }, true
	case pricingtypes.FilterTypeContains:
		return func(v string) bool { return strings.Contains(v, value) }, true
	case pricingtypes.FilterTypeAnyOf:
		return func(v string) bool { return slices.Contains(list, v) }, true
	case pricingtypes.FilterTypeNoneOf:
		return func(v string) bool { return !slices.Contains(list, v) }, true
	}
	return nil, false
}

func paramRequired(op, context, member string) error {
	ip := smithy.InvalidParamsError{Context: context}
	ip.Add(smithy.NewErrParamRequired(member))
	return &smithy.OperationError{ServiceID: servicePricing, OperationName: op, Err: ip}
}

// clonePriceInput copies the inputs of the price operations for the call
// log.
func clonePriceInput(v any) (any, bool) {
	switch in := v.(type) {
	case *pricing.GetProductsInput:
		c := clone(*in)
		return &c, true
	case *pricing.DescribeServicesInput:
		c := clone(*in)
		return &c, true
	case *pricing.GetAttributeValuesInput:
		c := clone(*in)
		return &c, true
	case *ec2.DescribeSpotPriceHistoryInput:
		c := clone(*in)
		return &c, true
	}
	return nil, false
}
