package ec2fake

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// MaxResults ranges. EC2 rejects MaxResults below 5 on its describe
// operations ("Expecting a value greater than 5"); DescribeInstanceTypes
// documents 5-100 and DescribeImages pages of up to 1000 (the size Karpenter
// requests). Without MaxResults, DescribeImages answers with every match in
// one response and DescribeInstanceTypes with pages of 100.
const (
	minMaxResults            = 5
	maxImagesMaxResults      = 1000
	maxTypesMaxResults       = 100
	defaultTypesPageSize     = 100
	dryRunMessage            = "Request would have succeeded, but DryRun flag is set."
	invalidNextTokenMessage  = "The NextToken is invalid"
	imageOwnerSelf           = "self"
	maxImageIDsInErrorString = 50
	// maxInstanceTypesPerRequest is the most InstanceType.N values EC2
	// accepts (API reference, DescribeInstanceTypes: "Maximum number of
	// 100 items").
	maxInstanceTypesPerRequest = 100
)

// imageOwnerAliases are the aliases Owners accepts besides "self" and account IDs.
var imageOwnerAliases = []string{"amazon", "aws-backup-vault", "aws-marketplace"}

func checkMaxResults(v *int32, maxAllowed int) (int, *apiError) {
	if v == nil {
		return 0, nil
	}
	n := int(*v)
	if n < minMaxResults {
		return 0, newAPIError(CodeInvalidParameterValue, "Value ( %d ) for parameter maxResults is invalid. Expecting a value greater than %d.", n, minMaxResults)
	}
	if n > maxAllowed {
		return 0, newAPIError(CodeInvalidParameterValue, "Value ( %d ) for parameter maxResults is invalid. Expecting a value less than or equal to %d.", n, maxAllowed)
	}
	return n, nil
}

type ownerMatch struct {
	self  bool
	alias string
	id    string
}

func (o ownerMatch) matches(img *ec2types.Image, account string) bool {
	switch {
	case o.self:
		return ownerOf(img) == account
	case o.alias != "":
		return img.ImageOwnerAlias != nil && *img.ImageOwnerAlias == o.alias
	default:
		return ownerOf(img) == o.id
	}
}

func ownerOf(img *ec2types.Image) string {
	if img.OwnerId == nil {
		return ""
	}
	return *img.OwnerId
}

type imageQuery struct {
	filters           []compiledFilter[ec2types.Image]
	owners            []ownerMatch
	ids               []string // sorted, unique; nil means every image
	includeDeprecated bool
	includeDisabled   bool
	publicOnly        bool // ExecutableBy "all": images anyone may launch
	limit             int  // 0: no limit
	after             string
	fingerprint       uint64
	dryRun            bool
}

func (b *Backend) compileImageQuery(in *ec2.DescribeImagesInput) (*imageQuery, *apiError) {
	q := &imageQuery{
		includeDeprecated: in.IncludeDeprecated != nil && *in.IncludeDeprecated,
		includeDisabled:   in.IncludeDisabled != nil && *in.IncludeDisabled,
		dryRun:            in.DryRun != nil && *in.DryRun,
	}
	var aerr *apiError
	if q.limit, aerr = checkMaxResults(in.MaxResults, maxImagesMaxResults); aerr != nil {
		return nil, aerr
	}
	if q.filters, aerr = compileFilters(in.Filters, lookupImageFilter, unsupportedImageFilters); aerr != nil {
		return nil, aerr
	}
	for _, o := range in.Owners {
		switch {
		case o == imageOwnerSelf:
			q.owners = append(q.owners, ownerMatch{self: true})
		case slices.Contains(imageOwnerAliases, o):
			q.owners = append(q.owners, ownerMatch{alias: o})
		case accountIDPattern.MatchString(o):
			q.owners = append(q.owners, ownerMatch{id: o})
		default:
			return nil, newAPIError(CodeInvalidUserIDMalformed, "User ID '%s' is invalid", o)
		}
	}
	for _, u := range in.ExecutableUsers {
		if u != "all" {
			return nil, newAPIError(CodeUnsupported, "ExecutableBy '%s' is valid in EC2 but ec2fake does not model launch permissions; only 'all' (public images) is implemented.", u)
		}
		q.publicOnly = true
	}
	for _, id := range in.ImageIds {
		if !amiIDPattern.MatchString(id) {
			return nil, newAPIError(CodeInvalidAMIIDMalformed, "Invalid id: \"%s\" (expecting \"ami-...\")", id)
		}
	}
	if len(in.ImageIds) > 0 {
		q.ids = sortedUnique(in.ImageIds)
	}
	fp := newFingerprinter(tokenOpImages)
	fp.filters(in.Filters)
	fp.strs("owners", sortedUnique(in.Owners))
	fp.strs("executable", sortedUnique(in.ExecutableUsers))
	fp.strs("ids", q.ids)
	fp.flag("deprecated", in.IncludeDeprecated)
	fp.flag("disabled", in.IncludeDisabled)
	q.fingerprint = fp.h
	if in.NextToken != nil && *in.NextToken != "" {
		after, ok := decodeToken(*in.NextToken, tokenOpImages, q.fingerprint, fixtureAMIIDPattern.MatchString)
		if !ok {
			return nil, newAPIError(CodeInvalidParameterValue, invalidNextTokenMessage)
		}
		q.after = after
	}
	return q, nil
}

// visible applies EC2's visibility rules to one image: the caller sees
// public images and its own; Owners narrows that; disabled images need
// IncludeDisabled; deprecated images need IncludeDeprecated unless the
// caller owns them or asked for them by ID; then every filter must match.
func (q *imageQuery) visible(s *storedImage, account string, now time.Time) bool {
	img := &s.img
	owned := ownerOf(img) == account
	public := img.Public != nil && *img.Public
	if !public && (!owned || q.publicOnly) {
		return false
	}
	if len(q.owners) > 0 {
		ok := false
		for _, o := range q.owners {
			if o.matches(img, account) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	// A disabled image is private (prepareImage and DisableImage keep it
	// so); the owner check repeats that rule where it matters.
	if img.State == ec2types.ImageStateDisabled && (!q.includeDisabled || !owned) {
		return false
	}
	if !owned && !q.includeDeprecated && q.ids == nil && s.deprecated(now) {
		return false
	}
	for i := range q.filters {
		if !q.filters[i].match(img, q.filters[i].vs) {
			return false
		}
	}
	return true
}

func (b *Backend) describeImages(in *ec2.DescribeImagesInput) (*ec2.DescribeImagesOutput, *apiError) {
	q, aerr := b.compileImageQuery(in)
	if aerr != nil {
		return nil, aerr
	}
	now, account := b.clock(), b.accountID()
	b.mu.RLock()
	defer b.mu.RUnlock()

	candidates := b.sorted
	if q.ids != nil {
		candidates = make([]*storedImage, 0, len(q.ids))
		var missing []string
		for _, id := range q.ids {
			if s, ok := b.images[id]; ok {
				candidates = append(candidates, s)
			} else {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			return nil, notFoundImages(missing)
		}
	}
	if q.dryRun {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	start := 0
	if q.after != "" {
		start, _ = slices.BinarySearchFunc(candidates, q.after, func(e *storedImage, id string) int { return strings.Compare(*e.img.ImageId, id) })
		if start < len(candidates) && *candidates[start].img.ImageId == q.after {
			start++
		}
	}
	// Find the page first, then copy it into a slice of the right size.
	var page []*storedImage
	more := false
	for _, s := range candidates[start:] {
		if !q.visible(s, account, now) {
			continue
		}
		if q.limit > 0 && len(page) == q.limit {
			more = true
			break
		}
		page = append(page, s)
	}
	out := &ec2.DescribeImagesOutput{Images: make([]ec2types.Image, len(page))}
	for i, s := range page {
		cloneImage(&out.Images[i], &s.img)
	}
	if more {
		tok := encodeToken(tokenOpImages, q.fingerprint, *page[len(page)-1].img.ImageId)
		out.NextToken = &tok
	}
	return out, nil
}

func notFoundImages(ids []string) *apiError {
	if len(ids) > maxImageIDsInErrorString {
		ids = ids[:maxImageIDsInErrorString]
	}
	if len(ids) == 1 {
		return newAPIError(CodeInvalidAMIIDNotFound, "The image id '[%s]' does not exist", ids[0])
	}
	return newAPIError(CodeInvalidAMIIDNotFound, "The image ids '[%s]' do not exist", strings.Join(ids, ", "))
}

type typeQuery struct {
	filters     []compiledFilter[ec2types.InstanceTypeInfo]
	names       []string // sorted, unique; nil means every type
	limit       int
	after       string
	fingerprint uint64
	dryRun      bool
}

func compileTypeQuery(in *ec2.DescribeInstanceTypesInput) (*typeQuery, *apiError) {
	q := &typeQuery{dryRun: in.DryRun != nil && *in.DryRun}
	var aerr *apiError
	if q.limit, aerr = checkMaxResults(in.MaxResults, maxTypesMaxResults); aerr != nil {
		return nil, aerr
	}
	if q.limit == 0 {
		q.limit = defaultTypesPageSize
	}
	if q.filters, aerr = compileFilters(in.Filters, lookupTypeFilter, nil); aerr != nil {
		return nil, aerr
	}
	if n := len(in.InstanceTypes); n > maxInstanceTypesPerRequest {
		return nil, newAPIError(CodeInvalidParameterValue, "The request names %d instance types; InstanceTypes may hold at most %d. Describe them in batches of %d.", n, maxInstanceTypesPerRequest, maxInstanceTypesPerRequest)
	}
	names := make([]string, len(in.InstanceTypes))
	for i, t := range in.InstanceTypes {
		names[i] = string(t)
	}
	if len(names) > 0 {
		q.names = sortedUnique(names)
	}
	fp := newFingerprinter(tokenOpTypes)
	fp.filters(in.Filters)
	fp.strs("types", q.names)
	q.fingerprint = fp.h
	if in.NextToken != nil && *in.NextToken != "" {
		after, ok := decodeToken(*in.NextToken, tokenOpTypes, q.fingerprint, instanceTypePattern.MatchString)
		if !ok {
			return nil, newAPIError(CodeInvalidParameterValue, invalidNextTokenMessage)
		}
		q.after = after
	}
	return q, nil
}

func (b *Backend) describeInstanceTypes(in *ec2.DescribeInstanceTypesInput) (*ec2.DescribeInstanceTypesOutput, *apiError) {
	q, aerr := compileTypeQuery(in)
	if aerr != nil {
		return nil, aerr
	}
	b.mu.RLock()
	defer b.mu.RUnlock()

	candidates := b.typeIDs
	if q.names != nil {
		var missing []string
		for _, t := range in.InstanceTypes { // in request order, as EC2 reports them
			if _, ok := b.types[string(t)]; !ok && !slices.Contains(missing, string(t)) {
				missing = append(missing, string(t))
			}
		}
		if len(missing) > 0 {
			return nil, newAPIError(CodeInvalidInstanceType, "The following supplied instance types do not exist: [%s]", strings.Join(missing, ", "))
		}
		candidates = q.names
	}
	if q.dryRun {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	start := 0
	if q.after != "" {
		start, _ = slices.BinarySearch(candidates, q.after)
		if start < len(candidates) && candidates[start] == q.after {
			start++
		}
	}
	out := &ec2.DescribeInstanceTypesOutput{InstanceTypes: []ec2types.InstanceTypeInfo{}}
	for _, name := range candidates[start:] {
		info := b.types[name]
		if !matchAll(q.filters, info) {
			continue
		}
		if len(out.InstanceTypes) == q.limit {
			tok := encodeToken(tokenOpTypes, q.fingerprint, string(out.InstanceTypes[len(out.InstanceTypes)-1].InstanceType))
			out.NextToken = &tok
			break
		}
		out.InstanceTypes = append(out.InstanceTypes, clone(*info))
	}
	return out, nil
}

func matchAll[T any](filters []compiledFilter[T], v *T) bool {
	for i := range filters {
		if !filters[i].match(v, filters[i].vs) {
			return false
		}
	}
	return true
}
