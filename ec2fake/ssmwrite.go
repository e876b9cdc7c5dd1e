package ec2fake

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// SSM's value limits: 4 KB for the Standard tier, 8 KB for Advanced
// (the Systems Manager User Guide, "Managing parameter tiers").
const (
	maxStandardValue = 4096
	maxAdvancedValue = 8192
)

const dataTypeEC2Image = "aws:ec2:image"

// putParameter is AmazonSSM.PutParameter for the account's parameters:
// String and StringList, data types text and aws:ec2:image, tiers,
// descriptions and allowed patterns; SecureString, KMS keys and parameter
// policies are valid in SSM and Unsupported here.
func (b *Backend) putParameter(in *ssm.PutParameterInput) (*ssm.PutParameterOutput, *apiError) {
	switch {
	case in.Name == nil:
		return nil, notNull("name")
	case in.Value == nil:
		return nil, notNull("value")
	}
	name := *in.Name
	if aerr := checkWritableName(name); aerr != nil {
		return nil, aerr
	}
	if aerr := checkPutUnsupported(in); aerr != nil {
		return nil, aerr
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	old, exists := b.params[name]
	if exists && !aws.ToBool(in.Overwrite) {
		return nil, newAPIError(CodeParameterAlreadyExists, "The parameter already exists. To overwrite this value, set the overwrite option in the request to true.")
	}
	v, aerr := newVersion(in, old, b.clock().UTC())
	if aerr != nil {
		return nil, aerr
	}
	version, aerr := b.putCustomLocked(name, v, true)
	if aerr != nil {
		return nil, aerr
	}
	return &ssm.PutParameterOutput{Version: version, Tier: v.tier}, nil
}

// checkPutUnsupported refuses what SSM accepts but the fake does not model,
// and what SSM refuses before looking at the parameter.
func checkPutUnsupported(in *ssm.PutParameterInput) *apiError {
	switch {
	case *in.Value == "":
		return validationError("", "value", "Member must have length greater than or equal to 1")
	case in.Type == ssmtypes.ParameterTypeSecureString:
		return newAPIError(CodeUnsupported, "SecureString parameters are valid in SSM but ec2fake does not model KMS encryption; use String or StringList.")
	case in.KeyId != nil:
		return newAPIError(CodeUnsupported, "KeyId is valid in SSM but ec2fake does not model KMS keys; leave it out.")
	case in.Policies != nil:
		return newAPIError(CodeUnsupported, "Parameter policies are valid in SSM but ec2fake does not model them; leave Policies out.")
	case aws.ToBool(in.Overwrite) && len(in.Tags) > 0:
		return newAPIError(CodeValidationException, "Invalid request: tags and overwrite can't be used together. To create a parameter with tags, please remove overwrite flag. To update tags for an existing parameter, please use AddTagsToResource or RemoveTagsFromResource.")
	case in.Type != "" && !slices.Contains(in.Type.Values(), in.Type):
		return validationError(string(in.Type), "type", "Member must satisfy enum value set: [SecureString, StringList, String]")
	case in.Tier != "" && !slices.Contains(in.Tier.Values(), in.Tier):
		return validationError(string(in.Tier), "tier", "Member must satisfy enum value set: [Standard, Advanced, Intelligent-Tiering]")
	}
	return nil
}

// newVersion builds the version a PutParameter writes; what the request
// leaves out is kept from the previous version (old, nil when creating).
func newVersion(in *ssm.PutParameterInput, old *customParameter, now time.Time) (parameterVersion, *apiError) {
	v := parameterVersion{value: *in.Value, typ: in.Type, dataType: aws.ToString(in.DataType), description: aws.ToString(in.Description),
		allowedPattern: aws.ToString(in.AllowedPattern), tier: in.Tier, modified: now}
	if old != nil {
		prev := old.latest()
		v.typ = cmpOr(v.typ, prev.typ)
		v.dataType = cmpOr(v.dataType, prev.dataType)
		v.tier = cmpOr(v.tier, prev.tier)
		if in.Description == nil {
			v.description = prev.description
		}
		if in.AllowedPattern == nil {
			v.allowedPattern = prev.allowedPattern
		}
	}
	if v.typ == "" {
		return v, newAPIError(CodeValidationException, "A parameter type is required when you create a parameter.")
	}
	v.dataType = cmpOr(v.dataType, parameterDataTypeText)
	if aerr := checkValue(&v); aerr != nil {
		return v, aerr
	}
	return v, nil
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// checkValue applies the data type, the allowed pattern and the tier's size
// limit, and settles Intelligent-Tiering on the tier the value needs.
func checkValue(v *parameterVersion) *apiError {
	switch v.dataType {
	case parameterDataTypeText:
	case dataTypeEC2Image:
		if v.typ != ssmtypes.ParameterTypeString || !amiIDPattern.MatchString(v.value) {
			return newAPIError(CodeValidationException, "Parameter value %s is not valid for data type aws:ec2:image: use a String parameter holding an AMI ID (ami- followed by 8 or 17 hexadecimal digits).", v.value)
		}
	default:
		return newAPIError(CodeValidationException, "The following data type is not supported: %s (Data type names are all lowercase.)", v.dataType)
	}
	if v.allowedPattern != "" {
		re, err := regexp.Compile(v.allowedPattern)
		if err != nil {
			return newAPIError(CodeInvalidAllowedPattern, "The allowed pattern %s is not a valid regular expression: %v.", v.allowedPattern, err)
		}
		if loc := re.FindStringIndex(v.value); loc == nil || loc[0] != 0 || loc[1] != len(v.value) {
			return newAPIError(CodeParameterPatternMismatch, "Parameter value, cannot be validated against allowedPattern: %s", v.allowedPattern)
		}
	}
	n := utf8.RuneCountInString(v.value)
	switch {
	case v.tier == ssmtypes.ParameterTierIntelligentTiering && n <= maxStandardValue, v.tier == "":
		v.tier = ssmtypes.ParameterTierStandard
	case v.tier == ssmtypes.ParameterTierIntelligentTiering:
		v.tier = ssmtypes.ParameterTierAdvanced
	}
	switch {
	case v.tier == ssmtypes.ParameterTierStandard && n > maxStandardValue:
		return newAPIError(CodeValidationException, "Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html")
	case n > maxAdvancedValue:
		return validationError(v.value[:32]+"...", "value", "Member must have length less than or equal to 8192")
	}
	return nil
}

// deleteParameter is AmazonSSM.DeleteParameter for the account's
// parameters.
func (b *Backend) deleteParameter(in *ssm.DeleteParameterInput) (*ssm.DeleteParameterOutput, *apiError) {
	if in.Name == nil {
		return nil, notNull("name")
	}
	if aerr := checkNameLength(*in.Name, "name"); aerr != nil {
		return nil, aerr
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.deleteCustomLocked(*in.Name) {
		return nil, parameterNotFound(*in.Name)
	}
	return &ssm.DeleteParameterOutput{}, nil
}

// parameterNotFound is SSM's ParameterNotFound, naming the parameter as
// the request spelt it.
func parameterNotFound(name string) *apiError {
	return newAPIError(CodeParameterNotFound, "Parameter %s not found.", name)
}

// maxResultsIn checks a MaxResults member against SSM's range, giving the
// default when it is absent.
func maxResultsIn(n *int32, def, limit int) (int, *apiError) {
	if n == nil {
		return def, nil
	}
	switch {
	case *n < 1:
		return 0, validationError(strconv.Itoa(int(*n)), "maxResults", "Member must have value greater than or equal to 1")
	case int(*n) > limit:
		return 0, validationError(strconv.Itoa(int(*n)), "maxResults", fmt.Sprintf("Member must have value less than or equal to %d", limit))
	}
	return int(*n), nil
}

// getParameterHistory is AmazonSSM.GetParameterHistory: every version of a
// parameter SSM keeps, oldest first — for the account's parameters each
// PutParameter, for a public one each release it has named.
func (b *Backend) getParameterHistory(in *ssm.GetParameterHistoryInput, region string) (*ssm.GetParameterHistoryOutput, *apiError) {
	if in.Name == nil {
		return nil, notNull("name")
	}
	name := *in.Name
	if aerr := checkNameLength(name, "name"); aerr != nil {
		return nil, aerr
	}
	limit, aerr := maxResultsIn(in.MaxResults, maxHistoryPage, maxHistoryPage)
	if aerr != nil {
		return nil, aerr
	}
	history, ok := b.history(name, region)
	if !ok {
		return nil, parameterNotFound(name)
	}
	fp := newFingerprinter(tokenOpParameterHistory)
	fp.str(name)
	after := 0
	if tok := aws.ToString(in.NextToken); tok != "" {
		key, ok := decodeToken(tok, tokenOpParameterHistory, fp.h, func(k string) bool { _, err := strconv.Atoi(k); return err == nil })
		if !ok {
			return nil, newAPIError(CodeInvalidNextToken, invalidSSMTokenMessage)
		}
		after, _ = strconv.Atoi(key)
	}
	out := &ssm.GetParameterHistoryOutput{Parameters: []ssmtypes.ParameterHistory{}}
	i, _ := slices.BinarySearchFunc(history, int64(after)+1, func(h ssmtypes.ParameterHistory, v int64) int { return int(h.Version - v) })
	for _, h := range history[i:] {
		if len(out.Parameters) == limit {
			tok := encodeToken(tokenOpParameterHistory, fp.h, strconv.FormatInt(out.Parameters[limit-1].Version, 10))
			out.NextToken = &tok
			break
		}
		out.Parameters = append(out.Parameters, h)
	}
	return out, nil
}

// history lists every version of the parameter name, oldest first.
func (b *Backend) history(name, region string) ([]ssmtypes.ParameterHistory, bool) {
	if c, ok := b.customParameter(name); ok {
		out := make([]ssmtypes.ParameterHistory, len(c.versions))
		for i, v := range c.versions {
			out[i] = historyOf(c.parameter(v, region, b.accountID()), v.description, v.allowedPattern, v.tier)
		}
		return out, true
	}
	p, ok := b.publicParameters().byName[name]
	if !ok {
		return nil, false
	}
	out := make([]ssmtypes.ParameterHistory, len(p.releases))
	for i := range p.releases {
		out[i] = historyOf(p.version(i+1, region), "", "", ssmtypes.ParameterTierStandard)
	}
	return out, true
}

func historyOf(p ssmtypes.Parameter, description, pattern string, tier ssmtypes.ParameterTier) ssmtypes.ParameterHistory {
	h := ssmtypes.ParameterHistory{Name: p.Name, Type: p.Type, Value: p.Value, Version: p.Version, LastModifiedDate: p.LastModifiedDate,
		DataType: p.DataType, Tier: tier, Labels: []string{}, Policies: []ssmtypes.ParameterInlinePolicy{}}
	if description != "" {
		h.Description = aws.String(description)
	}
	if pattern != "" {
		h.AllowedPattern = aws.String(pattern)
	}
	return h
}

// describeParameters is AmazonSSM.DescribeParameters: the account's
// parameters (not AWS's public ones), in name order, MaxResults (1-50,
// default 10) at a time, narrowed by Filters or ParameterFilters.
func (b *Backend) describeParameters(in *ssm.DescribeParametersInput, region string) (*ssm.DescribeParametersOutput, *apiError) {
	limit, aerr := maxResultsIn(in.MaxResults, maxDescribePage, maxDescribePageLimit)
	if aerr != nil {
		return nil, aerr
	}
	if aws.ToBool(in.Shared) {
		return nil, newAPIError(CodeUnsupported, "Shared parameters are valid in SSM but ec2fake does not model sharing; leave Shared out.")
	}
	match, aerr := describeFilter(in.Filters, in.ParameterFilters)
	if aerr != nil {
		return nil, aerr
	}
	fp := newFingerprinter(tokenOpDescribeParameters)
	fp.str(match.key)
	after := ""
	if tok := aws.ToString(in.NextToken); tok != "" {
		var ok bool
		if after, ok = decodeToken(tok, tokenOpDescribeParameters, fp.h, func(string) bool { return true }); !ok {
			return nil, newAPIError(CodeInvalidNextToken, invalidSSMTokenMessage)
		}
	}
	found := b.customParametersAfter(after, limit, match.keep)
	out := &ssm.DescribeParametersOutput{Parameters: []ssmtypes.ParameterMetadata{}}
	for i, c := range found {
		if i == limit {
			tok := encodeToken(tokenOpDescribeParameters, fp.h, found[limit-1].name)
			out.NextToken = &tok
			break
		}
		out.Parameters = append(out.Parameters, metadataOf(c, region, b.accountID()))
	}
	return out, nil
}

func metadataOf(c *customParameter, region, account string) ssmtypes.ParameterMetadata {
	v := c.latest()
	p := c.parameter(v, region, account)
	m := ssmtypes.ParameterMetadata{Name: p.Name, ARN: p.ARN, Type: p.Type, LastModifiedDate: p.LastModifiedDate, Version: p.Version,
		Tier: v.tier, DataType: p.DataType, Policies: []ssmtypes.ParameterInlinePolicy{}}
	if v.description != "" {
		m.Description = aws.String(v.description)
	}
	if v.allowedPattern != "" {
		m.AllowedPattern = aws.String(v.allowedPattern)
	}
	return m
}
