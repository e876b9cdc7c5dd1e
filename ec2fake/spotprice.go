package ec2fake

import (
	"bytes"
	"cmp"
	"context"
	"hash/fnv"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// OpDescribeSpotPriceHistory names EC2's spot price history operation.
const OpDescribeSpotPriceHistory = "DescribeSpotPriceHistory"

// Spot price history is synthetic: EC2's real history is not public
// data. Each (zone, instance type, product description) whose region has
// an on-demand price for the product's OS (Linux/UNIX from Linux, Windows
// from Windows) gets a deterministic price walk:
//
//   - time is cut into 30-day blocks from the Unix epoch; each block starts
//     with a change to a level of 25-70% of the on-demand price (per key),
//     varied ±5% per block;
//   - in each hour of a block, with probability 1/8, the price changes at a
//     minute and second within the hour by -1% to +1%, kept within 10-90%
//     of the on-demand price, rounded to 6 decimals as EC2 writes them.
//
// The walk depends only on the key and the block, never on the clock or
// the request, so every answer is reproducible and the history at an
// instant never changes once that instant has passed. Real EC2's history
// changes a few times a day in steps of about 0.5% (aws/amazon-ec2-instance-
// selector test/static/DescribeSpotPriceHistoryPages/m5_large.json shows
// it); a constant price, as moto answers, hides every ordering bug.
const (
	spotBlock      = 30 * 24 * time.Hour
	spotSlot       = time.Hour
	spotRetention  = 90 * 24 * time.Hour
	spotChangeOdds = 8
)

// spotKey is one history: a zone, an instance type, a product description.
type spotKey struct {
	region, zone, zoneID, instanceType, product string
	onDemand                                    float64
}

type spotChange struct {
	at    time.Time
	price float64
}

// seed hashes the key's identity once; mix derives a slot's hash from it.
func (k *spotKey) seed() uint64 {
	h := fnv.New64a()
	h.Write([]byte(k.zone + "\x00" + k.instanceType + "\x00" + k.product))
	return h.Sum64()
}

// mix is splitmix64's finalizer over the seed and two counters.
func mix(seed uint64, a, b int64) uint64 {
	z := seed ^ uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// blockWalk returns the changes of one block, oldest first.
func (k *spotKey) blockWalk(block int64) []spotChange {
	start := time.Unix(0, 0).Add(time.Duration(block) * spotBlock).UTC()
	seed := k.seed()
	level := 0.25 + 0.45*unit(mix(seed, -1, -1))
	price := k.onDemand * level * (0.95 + 0.1*unit(mix(seed, block, -1)))
	out := make([]spotChange, 1, 128)
	out[0] = spotChange{start, round6(price)}
	for slot := int64(0); slot < int64(spotBlock/spotSlot); slot++ {
		h := mix(seed, block, slot)
		if h%spotChangeOdds != 0 {
			continue
		}
		step := (unit(h>>3) - 0.5) * 0.02
		price = math.Min(math.Max(price*(1+step), 0.1*k.onDemand), 0.9*k.onDemand)
		at := start.Add(time.Duration(slot)*spotSlot + time.Duration(h>>20%3600)*time.Second)
		if r := round6(price); r != out[len(out)-1].price {
			out = append(out, spotChange{at, r})
		}
	}
	return out
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// history returns the changes in (from, to] and the last change at or
// before from, oldest first.
func (k *spotKey) history(from, to time.Time) []spotChange {
	first := int64(from.Sub(time.Unix(0, 0)) / spotBlock)
	last := int64(to.Sub(time.Unix(0, 0)) / spotBlock)
	var out []spotChange
	for b := first; b <= last; b++ {
		for _, c := range k.blockWalk(b) {
			switch {
			case c.at.After(to):
			case !c.at.After(from):
				out = append(out[:0], c) // the price in force at from
			default:
				out = append(out, c)
			}
		}
	}
	return out
}

// spotPlace is a zone the spot history covers and the types it offers.
type spotPlace struct {
	zone, zoneID string
	offered      []string // sorted
}

// spotPlaces are the backend's zones in region (LoadZones, the zone
// catalog) that are usable (available, not a zone the account has not
// opted into), each with the instance types it offers. A region whose
// zones the backend does not hold has no spot history. b.mu must be held.
func (b *Backend) spotPlacesLocked(region string) []spotPlace {
	var out []spotPlace
	for _, z := range b.place.zones {
		if aws.ToString(z.RegionName) != region || z.State != ec2types.AvailabilityZoneStateAvailable || z.OptInStatus == ec2types.AvailabilityZoneOptInStatusNotOptedIn {
			continue
		}
		out = append(out, spotPlace{zone: aws.ToString(z.ZoneName), zoneID: aws.ToString(z.ZoneId), offered: b.place.offered[aws.ToString(z.ZoneName)]})
	}
	return out
}

// spotKeys lists the histories of a region, sorted.
func (b *Backend) spotKeys(region string) []spotKey {
	b.mu.RLock()
	t := b.prices
	noSpot := map[string]bool{}
	for name, info := range b.types {
		if len(info.SupportedUsageClasses) > 0 && !slices.Contains(info.SupportedUsageClasses, ec2types.UsageClassTypeSpot) {
			noSpot[name] = true
		}
	}
	places := b.spotPlacesLocked(region)
	b.mu.RUnlock()
	if t == nil {
		return nil
	}
	var keys []spotKey
	for _, o := range t.OnDemand {
		product := map[string]string{"Linux": "Linux/UNIX", "Windows": "Windows"}[o.OS]
		if o.Region != region || product == "" || o.License != "No License required" || o.Tenancy == "Host" || noSpot[o.InstanceType] {
			continue
		}
		if o.Tenancy == "Dedicated" && o.Family == "Compute Instance" {
			continue // dedicated instances have no spot market of their own
		}
		for _, pl := range places {
			if _, offered := slices.BinarySearch(pl.offered, o.InstanceType); offered {
				keys = append(keys, spotKey{region: region, zone: pl.zone, zoneID: pl.zoneID, instanceType: o.InstanceType, product: product, onDemand: o.Value})
			}
		}
	}
	slices.SortFunc(keys, func(a, b spotKey) int {
		return cmp.Or(strings.Compare(a.zone, b.zone), strings.Compare(a.instanceType, b.instanceType), strings.Compare(a.product, b.product))
	})
	return keys
}

// DescribeSpotPriceHistory implements ec2.DescribeSpotPriceHistoryAPIClient
// for the backend's region (Options.Region, or what the ec2.Options
// functions set).
func (b *Backend) DescribeSpotPriceHistory(ctx context.Context, in *ec2.DescribeSpotPriceHistoryInput, optFns ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error) {
	region := b.region()
	if len(optFns) > 0 {
		o := ec2.Options{Region: region}
		for _, fn := range optFns {
			if fn != nil {
				fn(&o)
			}
		}
		if regionPattern.MatchString(o.Region) {
			region = o.Region
		}
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeSpotPriceHistory, in, func(in *ec2.DescribeSpotPriceHistoryInput) (*ec2.DescribeSpotPriceHistoryOutput, *apiError) {
		return b.describeSpotPriceHistory(in, region)
	})
	return result(OpDescribeSpotPriceHistory, out, requestID, aerr, ctxErr)
}

var spotFilterNames = []string{"availability-zone", "availability-zone-id", "instance-type", "product-description", "spot-price", "timestamp"}

type spotItem struct {
	key    *spotKey
	change spotChange
}

// describeSpotPriceHistory answers with EC2's semantics: the changes in
// (StartTime, EndTime] and, per history, the last change at or before
// StartTime (the price in force then), newest first. StartTime defaults to
// 90 days ago (EC2 keeps 90 days, and an earlier StartTime reads from
// then), EndTime to now; StartTime equal to EndTime (Karpenter's
// StartTime now) gives one price per history. MaxResults defaults to
// 1,000 and may be 5 to 10,000 (Karpenter asks for 2,000).
func (b *Backend) describeSpotPriceHistory(in *ec2.DescribeSpotPriceHistoryInput, region string) (*ec2.DescribeSpotPriceHistoryOutput, *apiError) {
	now := b.clock().UTC()
	from, to, aerr := spotWindow(in, now)
	if aerr != nil {
		return nil, aerr
	}
	page := 1000
	if in.MaxResults != nil {
		if *in.MaxResults < 5 || *in.MaxResults > 10000 {
			return nil, newAPIError(CodeInvalidParameterValue, "Value ( %d ) for parameter maxResults is invalid. Expecting a value between 5 and 10000.", *in.MaxResults)
		}
		page = int(*in.MaxResults)
	}
	keep, aerr := spotSelector(in)
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	keys := b.spotKeys(region)
	var items []spotItem
	for i := range keys {
		k := &keys[i]
		if !keep.key(k) {
			continue
		}
		for _, c := range k.history(from, to) {
			if keep.change(c) {
				items = append(items, spotItem{k, c})
			}
		}
	}
	slices.SortFunc(items, compareSpotItems)
	return spotPage(in, items, page)
}

func compareSpotItems(a, b spotItem) int {
	return cmp.Or(b.change.at.Compare(a.change.at), strings.Compare(a.key.zone, b.key.zone),
		strings.Compare(a.key.instanceType, b.key.instanceType), strings.Compare(a.key.product, b.key.product))
}

func spotWindow(in *ec2.DescribeSpotPriceHistoryInput, now time.Time) (from, to time.Time, aerr *apiError) {
	to, from = now, now.Add(-spotRetention)
	if in.EndTime != nil && in.EndTime.Before(now) {
		to = in.EndTime.UTC()
	}
	if in.StartTime != nil {
		from = in.StartTime.UTC()
	}
	if from.After(to) {
		return from, to, newAPIError(CodeInvalidParameterValue, "The start time %s is after the end time %s.", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	if oldest := now.Add(-spotRetention); from.Before(oldest) {
		from = oldest
	}
	return from, to, nil
}

type spotSelect struct {
	key    func(*spotKey) bool
	change func(spotChange) bool
}

// spotSelector compiles the request's InstanceType, ProductDescription,
// AvailabilityZone(Id) and filters (values ORed, filters ANDed, EC2's
// wildcards).
func spotSelector(in *ec2.DescribeSpotPriceHistoryInput) (spotSelect, *apiError) {
	if in.AvailabilityZone != nil && in.AvailabilityZoneId != nil {
		return spotSelect{}, newAPIError(CodeInvalidParameterCombination, "Only one of AvailabilityZone and AvailabilityZoneId may be given.")
	}
	var keyTests []func(*spotKey) bool
	var changeTests []func(spotChange) bool
	if len(in.InstanceTypes) > 0 {
		types := make([]string, len(in.InstanceTypes))
		for i, t := range in.InstanceTypes {
			types[i] = string(t)
		}
		keyTests = append(keyTests, func(k *spotKey) bool { return slices.Contains(types, k.instanceType) })
	}
	if len(in.ProductDescriptions) > 0 {
		keyTests = append(keyTests, func(k *spotKey) bool { return slices.Contains(in.ProductDescriptions, k.product) })
	}
	if z := in.AvailabilityZone; z != nil {
		keyTests = append(keyTests, func(k *spotKey) bool { return k.zone == *z })
	}
	if z := in.AvailabilityZoneId; z != nil {
		keyTests = append(keyTests, func(k *spotKey) bool { return k.zoneID == *z })
	}
	for _, f := range in.Filters {
		name := aws.ToString(f.Name)
		if !slices.Contains(spotFilterNames, name) {
			return spotSelect{}, newAPIError(CodeInvalidParameterValue, "The filter '%s' is invalid", name)
		}
		pats := make([]*pattern, len(f.Values))
		for i, v := range f.Values {
			pats[i] = compilePattern(v)
		}
		any := func(s string) bool { return slices.ContainsFunc(pats, func(p *pattern) bool { return p.match(s) }) }
		switch name {
		case "spot-price":
			changeTests = append(changeTests, func(c spotChange) bool { return any(formatSpotPrice(c.price)) })
		case "timestamp":
			changeTests = append(changeTests, func(c spotChange) bool { return any(c.at.Format("Mon Jan 02 15:04:05 UTC 2006")) })
		default:
			get := map[string]func(*spotKey) string{
				"availability-zone": func(k *spotKey) string { return k.zone }, "availability-zone-id": func(k *spotKey) string { return k.zoneID },
				"instance-type": func(k *spotKey) string { return k.instanceType }, "product-description": func(k *spotKey) string { return k.product },
			}[name]
			keyTests = append(keyTests, func(k *spotKey) bool { return any(get(k)) })
		}
	}
	return spotSelect{
		key:    func(k *spotKey) bool { return allOf(keyTests, k) },
		change: func(c spotChange) bool { return allOf(changeTests, c) },
	}, nil
}

func allOf[T any](tests []func(T) bool, v T) bool {
	for _, t := range tests {
		if !t(v) {
			return false
		}
	}
	return true
}

func formatSpotPrice(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

const tokenOpSpot byte = 's'

func spotItemKey(it spotItem) string {
	return it.change.at.Format(time.RFC3339) + "\x00" + it.key.zone + "\x00" + it.key.instanceType + "\x00" + it.key.product
}

func spotFingerprint(in *ec2.DescribeSpotPriceHistoryInput) uint64 {
	f := newFingerprinter(tokenOpSpot)
	types := make([]string, len(in.InstanceTypes))
	for i, t := range in.InstanceTypes {
		types[i] = string(t)
	}
	f.strs("types", sortedUnique(types))
	f.strs("products", sortedUnique(in.ProductDescriptions))
	f.str(aws.ToString(in.AvailabilityZone) + "\x00" + aws.ToString(in.AvailabilityZoneId))
	for _, t := range []*time.Time{in.StartTime, in.EndTime} {
		if t != nil {
			f.str(t.UTC().Format(time.RFC3339Nano))
		} else {
			f.str("-")
		}
	}
	f.filters(in.Filters)
	return f.h
}

// spotPage cuts one page after the token's item. Items are in a total
// order, so a page continues exactly after the previous one.
func spotPage(in *ec2.DescribeSpotPriceHistoryInput, items []spotItem, page int) (*ec2.DescribeSpotPriceHistoryOutput, *apiError) {
	fp := spotFingerprint(in)
	start := 0
	if tok := aws.ToString(in.NextToken); tok != "" {
		after, ok := decodeToken(tok, tokenOpSpot, fp, func(string) bool { return true })
		if !ok {
			return nil, newAPIError(CodeInvalidParameterValue, "The NextToken is invalid")
		}
		start = len(items)
		for i, it := range items {
			if compareWithKey(it, after) > 0 {
				start = i
				break
			}
		}
	}
	end := min(start+page, len(items))
	out := &ec2.DescribeSpotPriceHistoryOutput{SpotPriceHistory: []ec2types.SpotPrice{}}
	for _, it := range items[start:end] {
		out.SpotPriceHistory = append(out.SpotPriceHistory, ec2types.SpotPrice{
			AvailabilityZone: aws.String(it.key.zone), AvailabilityZoneId: aws.String(it.key.zoneID),
			InstanceType: ec2types.InstanceType(it.key.instanceType), ProductDescription: ec2types.RIProductDescription(it.key.product),
			SpotPrice: aws.String(formatSpotPrice(it.change.price)), Timestamp: aws.Time(it.change.at),
		})
	}
	if end < len(items) {
		out.NextToken = aws.String(encodeToken(tokenOpSpot, fp, spotItemKey(items[end-1])))
	}
	return out, nil
}

// compareWithKey orders an item against an encoded key in the page order
// (newest first, then zone, type, product).
func compareWithKey(it spotItem, key string) int {
	parts := strings.SplitN(key, "\x00", 4)
	if len(parts) != 4 {
		return 1
	}
	at, err := time.Parse(time.RFC3339, parts[0])
	if err != nil {
		return 1
	}
	probe := spotItem{key: &spotKey{zone: parts[1], instanceType: parts[2], product: parts[3]}, change: spotChange{at: at}}
	return compareSpotItems(it, probe)
}

// parseDescribeSpotPriceHistory reads the EC2 Query form.
func parseDescribeSpotPriceHistory(form url.Values) (*ec2.DescribeSpotPriceHistoryInput, *apiError) {
	p, aerr := parseParams(form, []string{"InstanceType", "ProductDescription"},
		[]string{"AvailabilityZone", "AvailabilityZoneId", "DryRun", "EndTime", "StartTime", "MaxResults", "NextToken"})
	if aerr != nil {
		return nil, aerr
	}
	in := &ec2.DescribeSpotPriceHistoryInput{Filters: p.filterList(), ProductDescriptions: ordered(p.lists["ProductDescription"]),
		AvailabilityZone: p.str("AvailabilityZone"), AvailabilityZoneId: p.str("AvailabilityZoneId"), NextToken: p.str("NextToken")}
	for _, t := range ordered(p.lists["InstanceType"]) {
		in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(t))
	}
	if in.DryRun, aerr = p.boolean("DryRun"); aerr != nil {
		return nil, aerr
	}
	if in.MaxResults, aerr = p.int32("MaxResults"); aerr != nil {
		return nil, aerr
	}
	for _, f := range []struct {
		key string
		dst **time.Time
	}{{"StartTime", &in.StartTime}, {"EndTime", &in.EndTime}} {
		if v, ok := p.scalars[f.key]; ok {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter %s is invalid. Expected a timestamp such as 2026-01-02T15:04:05Z.", v, f.key)
			}
			*f.dst = &t
		}
	}
	return in, nil
}

// spotHistoryResponse writes the answer in EC2's XML.
func spotHistoryResponse(requestID string, out *ec2.DescribeSpotPriceHistoryOutput) []byte {
	var buf bytes.Buffer
	buf.WriteString(xmlHeader)
	buf.WriteString(`<DescribeSpotPriceHistoryResponse xmlns="` + ec2Namespace + `">`)
	element(&buf, "requestId", requestID)
	open(&buf, "spotPriceHistorySet")
	for _, s := range out.SpotPriceHistory {
		open(&buf, "item")
		element(&buf, "availabilityZone", aws.ToString(s.AvailabilityZone))
		element(&buf, "availabilityZoneId", aws.ToString(s.AvailabilityZoneId))
		element(&buf, "instanceType", string(s.InstanceType))
		element(&buf, "productDescription", string(s.ProductDescription))
		element(&buf, "spotPrice", aws.ToString(s.SpotPrice))
		element(&buf, "timestamp", s.Timestamp.UTC().Format("2006-01-02T15:04:05.000Z"))
		closeTag(&buf, "item")
	}
	closeTag(&buf, "spotPriceHistorySet")
	if out.NextToken != nil {
		element(&buf, "nextToken", *out.NextToken)
	}
	buf.WriteString("</DescribeSpotPriceHistoryResponse>")
	return buf.Bytes()
}

// ec2CredentialScope finds the region an EC2 request is signed for.
var ec2CredentialScope = regexp.MustCompile(`Credential=[^/,\s]+/[0-9]{8}/([a-z0-9-]+)/ec2/aws4_request`)

// ec2RegionOfRequest is the region an HTTP caller signed its EC2 request
// for, or the backend's region for an unsigned one.
func (b *Backend) ec2RegionOfRequest(r *http.Request) string {
	if m := ec2CredentialScope.FindStringSubmatch(r.Header.Get("Authorization")); m != nil && regionPattern.MatchString(m[1]) {
		return m[1]
	}
	return b.region()
}

// serveSpotPriceHistory answers DescribeSpotPriceHistory over HTTP.
func (h *handler) serveSpotPriceHistory(w http.ResponseWriter, r *http.Request, form url.Values) {
	in, aerr := parseDescribeSpotPriceHistory(form)
	if aerr != nil {
		h.fail(w, h.b.nextRequestID(), aerr)
		return
	}
	region := h.b.ec2RegionOfRequest(r)
	out, requestID, aerr, ctxErr := invoke(r.Context(), h.b, OpDescribeSpotPriceHistory, in, func(in *ec2.DescribeSpotPriceHistoryInput) (*ec2.DescribeSpotPriceHistoryOutput, *apiError) {
		return h.b.describeSpotPriceHistory(in, region)
	})
	if h.failed(w, requestID, aerr, ctxErr) {
		return
	}
	h.write(w, requestID, http.StatusOK, spotHistoryResponse(requestID, out))
}
