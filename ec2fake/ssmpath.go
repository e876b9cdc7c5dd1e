package ec2fake

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// parameterPath is a validated GetParametersByPath path.
//
//	path  = "/" | "/" level { "/" level } [ "/" ]
//	level = 1*( ALPHA | DIGIT | "_" | "." | "-" )
//
// A trailing slash names the same hierarchy as none ("/a/b/" = "/a/b"), as
// the aws CLI examples in Karpenter's documentation rely on. "/" lists the
// account's parameters at the top of the hierarchy, including those whose
// names have no slash at all ("flat"), as SSM does.
type parameterPath struct {
	prefix string // what every name below the path starts with; ends in "/"
	public bool   // lists AWS's public parameters rather than the account's
}

// msgPathRequirements is SSM's answer to a path it cannot read (the same
// text in getmoto/moto moto/ssm/models.py at 0af643a5, and quoted by moto's
// tests as captured from AWS).
const msgPathRequirements = `The parameter doesn't meet the parameter name requirements. The parameter name must begin with a forward slash "/". It can't be prefixed with "aws" or "ssm" (case-insensitive). It must use only letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters are not allowed. All sub-paths, if specified, must use the forward slash symbol "/". Valid example: /get/parameters2-/by1./path0_.`

func parseParameterPath(path string) (parameterPath, *apiError) {
	if aerr := checkNameLength(path, "path"); aerr != nil {
		return parameterPath{}, aerr
	}
	bad := newAPIError(CodeValidationException, "%s", msgPathRequirements)
	if !strings.HasPrefix(path, "/") {
		return parameterPath{}, bad
	}
	trimmed := strings.TrimSuffix(path, "/")
	if trimmed == "" {
		return parameterPath{prefix: "/"}, nil
	}
	levels := strings.Split(trimmed[1:], "/")
	if len(levels) > maxParameterPathLevels {
		return parameterPath{}, bad
	}
	for _, l := range levels {
		if l == "" || !customParameterName.MatchString(l) {
			return parameterPath{}, bad
		}
	}
	return parameterPath{prefix: trimmed + "/", public: isPublicParameterPath(trimmed)}, nil
}

// lists reports whether a parameter of the given name is listed for the
// path: below it (directly, unless recursive) and in the same namespace —
// GetParametersByPath on /aws/service/... lists AWS's public parameters,
// any other path the account's own.
func (pp parameterPath) lists(name string, recursive bool) bool {
	if strings.HasPrefix(name, publicParameterRoot) != pp.public {
		return false
	}
	rest, ok := strings.CutPrefix(name, pp.prefix)
	if !ok && pp.prefix == "/" && !strings.HasPrefix(name, "/") {
		rest, ok = name, true // "flat" is at the top, beside "/flat"
	}
	if !ok || rest == "" {
		return false
	}
	return recursive || !strings.Contains(rest, "/")
}

func (b *Backend) getParametersByPath(in *ssm.GetParametersByPathInput, region string) (*ssm.GetParametersByPathOutput, *apiError) {
	if in.Path == nil {
		return nil, notNull("path")
	}
	pp, aerr := parseParameterPath(*in.Path)
	if aerr != nil {
		return nil, aerr
	}
	limit, aerr := maxResultsIn(in.MaxResults, maxParametersPage, maxParametersPage)
	if aerr != nil {
		return nil, aerr
	}
	if len(in.ParameterFilters) > 0 {
		return nil, newAPIError(CodeUnsupported, "ParameterFilters are valid in SSM but ec2fake does not model them; filter the answer yourself.")
	}
	recursive := aws.ToBool(in.Recursive)
	fp := newFingerprinter(tokenOpParametersByPath)
	fp.str(pp.prefix)
	fp.flag("recursive", in.Recursive)
	after := ""
	if tok := aws.ToString(in.NextToken); tok != "" {
		var ok bool
		if after, ok = decodeToken(tok, tokenOpParametersByPath, fp.h, func(k string) bool { return pp.lists(k, recursive) }); !ok {
			return nil, newAPIError(CodeInvalidNextToken, invalidSSMTokenMessage)
		}
	}
	var page []ssmtypes.Parameter
	var more bool
	if pp.public {
		page, more = b.publicPage(pp, recursive, after, limit, region)
	} else {
		page, more = b.customPage(pp, recursive, after, limit, region)
	}
	out := &ssm.GetParametersByPathOutput{Parameters: page}
	if more {
		tok := encodeToken(tokenOpParametersByPath, fp.h, *page[len(page)-1].Name)
		out.NextToken = &tok
	}
	return out, nil
}

// publicPage lists up to limit public parameters below pp after the name
// after, and whether more follow.
func (b *Backend) publicPage(pp parameterPath, recursive bool, after string, limit int, region string) ([]ssmtypes.Parameter, bool) {
	idx := b.publicParameters()
	out := []ssmtypes.Parameter{}
	start := searchParameters(idx.sorted, max(after, pp.prefix))
	for _, p := range idx.sorted[start:] {
		if p.name == after || !pp.lists(p.name, recursive) {
			if !strings.HasPrefix(p.name, pp.prefix) {
				break
			}
			continue
		}
		if len(out) == limit {
			return out, true
		}
		out = append(out, p.current(region))
	}
	return out, false
}

// customPage is publicPage for the account's parameters.
func (b *Backend) customPage(pp parameterPath, recursive bool, after string, limit int, region string) ([]ssmtypes.Parameter, bool) {
	found := b.customParametersAfter(after, limit, func(c *customParameter) bool { return pp.lists(c.name, recursive) })
	out := make([]ssmtypes.Parameter, 0, min(len(found), limit))
	for _, c := range found[:min(len(found), limit)] {
		out = append(out, c.parameter(c.latest(), region, b.accountID()))
	}
	return out, len(found) > limit
}

// searchParameters returns the index of the first parameter named key or
// after it.
func searchParameters(sorted []*publicParameter, key string) int {
	lo, hi := 0, len(sorted)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if sorted[mid].name < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
