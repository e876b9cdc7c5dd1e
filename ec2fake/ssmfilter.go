package ec2fake

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// DescribeParameters filters. Messages are SSM's as getmoto/moto
// moto/ssm/models.py (_validate_parameter_filters_for_describe, 0af643a5)
// reproduces them; the keys and options are botocore's ssm service-2.json
// (ParameterStringFilter, ParametersFilter) at 0e6e2404.

// parameterMatch is a compiled set of filters: keep says whether a
// parameter passes, key identifies the filters for NextToken.
type parameterMatch struct {
	key  string
	keep func(*customParameter) bool
}

// describeFilter compiles DescribeParameters' Filters or ParameterFilters
// (not both).
func describeFilter(filters []ssmtypes.ParametersFilter, pfs []ssmtypes.ParameterStringFilter) (parameterMatch, *apiError) {
	if len(filters) > 0 && len(pfs) > 0 {
		return parameterMatch{}, newAPIError(CodeValidationException, "You can use either Filters or ParameterFilters in a single request.")
	}
	for _, f := range filters {
		k := string(f.Key)
		if f.Key == ssmtypes.ParametersFilterKeyKeyId {
			return parameterMatch{}, newAPIError(CodeUnsupported, "The KeyId filter is valid in SSM but ec2fake does not model KMS keys.")
		}
		if f.Key != ssmtypes.ParametersFilterKeyName && f.Key != ssmtypes.ParametersFilterKeyType {
			return parameterMatch{}, validationError(k, "filters.1.member.key", "Member must satisfy enum value set: [Name, Type, KeyId]")
		}
		// Legacy Filters: Name values are prefixes, Type values exact.
		option := "Equals"
		if f.Key == ssmtypes.ParametersFilterKeyName {
			option = "BeginsWith"
		}
		pfs = append(pfs, ssmtypes.ParameterStringFilter{Key: aws.String(k), Option: aws.String(option), Values: f.Values})
	}
	var tests []func(*customParameter) bool
	var key strings.Builder
	seen := map[string]bool{}
	for _, f := range pfs {
		test, aerr := compileFilter(f, seen)
		if aerr != nil {
			return parameterMatch{}, aerr
		}
		tests = append(tests, test)
		fmt.Fprintf(&key, "%s\x00%s\x00%s\x01", aws.ToString(f.Key), aws.ToString(f.Option), strings.Join(f.Values, "\x00"))
	}
	return parameterMatch{key: key.String(), keep: func(c *customParameter) bool {
		for _, t := range tests {
			if !t(c) {
				return false
			}
		}
		return true
	}}, nil
}

// compileFilter checks one ParameterStringFilter and returns its test.
func compileFilter(f ssmtypes.ParameterStringFilter, seen map[string]bool) (func(*customParameter) bool, *apiError) {
	if f.Key == nil {
		return nil, notNull("parameterFilters.1.member.key")
	}
	key := *f.Key
	switch {
	case key == "KeyId" || key == "Label" || strings.HasPrefix(key, "tag:"):
		return nil, newAPIError(CodeUnsupported, "The %s filter is valid in SSM but ec2fake does not model it; filter the answer yourself.", key)
	case !slices.Contains([]string{"Name", "Type", "Path", "Tier", "DataType"}, key):
		return nil, newAPIError(CodeInvalidFilterKey, "The following filter key is not valid: %s. Valid filter keys include: [Path, Name, Type, KeyId, Tier].", key)
	case seen[key]:
		return nil, newAPIError(CodeInvalidFilterKey, "The following filter is duplicated in the request: %s. A request can contain only one occurrence of a specific filter.", key)
	case len(f.Values) == 0:
		return nil, newAPIError(CodeInvalidFilterValue, "The following filter values are missing : null for filter key %s.", key)
	}
	seen[key] = true
	if key == "Path" {
		return pathFilter(f)
	}
	option := cmpOr(aws.ToString(f.Option), "Equals")
	if option != "Equals" && option != "BeginsWith" && !(key == "Name" && option == "Contains") {
		return nil, newAPIError(CodeInvalidFilterOption, "The following filter option is not valid: %s. Valid options include: [BeginsWith, Equals].", option)
	}
	if aerr := checkFilterValues(key, f.Values); aerr != nil {
		return nil, aerr
	}
	field := map[string]func(parameterVersion, string) string{
		"Name":     func(_ parameterVersion, name string) string { return "/" + strings.TrimPrefix(name, "/") },
		"Type":     func(v parameterVersion, _ string) string { return string(v.typ) },
		"Tier":     func(v parameterVersion, _ string) string { return string(v.tier) },
		"DataType": func(v parameterVersion, _ string) string { return v.dataType },
	}[key]
	values := slices.Clone(f.Values)
	if key == "Name" && option != "Contains" {
		for i, v := range values {
			values[i] = "/" + strings.TrimPrefix(v, "/")
		}
	}
	match := map[string]func(string, string) bool{"Equals": func(a, b string) bool { return a == b }, "BeginsWith": strings.HasPrefix, "Contains": strings.Contains}[option]
	return func(c *customParameter) bool {
		got := field(c.latest(), c.name)
		return slices.ContainsFunc(values, func(v string) bool { return match(got, v) })
	}, nil
}

// checkFilterValues refuses Type and Tier values SSM does not have.
func checkFilterValues(key string, values []string) *apiError {
	valid := map[string][]string{"Type": {"String", "StringList", "SecureString"}, "Tier": {"Standard", "Advanced", "Intelligent-Tiering"}}[key]
	if valid == nil {
		return nil
	}
	for _, v := range values {
		if !slices.Contains(valid, v) {
			return newAPIError(CodeInvalidFilterOption, "The following filter value is not valid: %s. Valid values include: [%s].", v, strings.Join(valid, ", "))
		}
	}
	return nil
}

// pathFilter compiles a Path filter: OneLevel (default) keeps parameters
// directly below one of the paths, Recursive every level below.
func pathFilter(f ssmtypes.ParameterStringFilter) (func(*customParameter) bool, *apiError) {
	option := cmpOr(aws.ToString(f.Option), "OneLevel")
	if option != "OneLevel" && option != "Recursive" {
		return nil, newAPIError(CodeInvalidFilterOption, "The following filter option is not valid: %s. Valid options include: [Recursive, OneLevel].", option)
	}
	var paths []parameterPath
	for _, v := range f.Values {
		lower := strings.ToLower(v)
		if strings.HasPrefix(lower, "/aws") || strings.HasPrefix(lower, "/ssm") {
			return nil, newAPIError(CodeValidationException, `Filters for common parameters can't be prefixed with "aws" or "ssm" (case-insensitive). When using global parameters, please specify within a global namespace.`)
		}
		pp, aerr := parseParameterPath(v)
		if aerr != nil {
			return nil, aerr
		}
		paths = append(paths, pp)
	}
	recursive := option == "Recursive"
	return func(c *customParameter) bool {
		return slices.ContainsFunc(paths, func(pp parameterPath) bool { return pp.lists(c.name, recursive) })
	}, nil
}
