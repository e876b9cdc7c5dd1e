package ec2fake

import (
	"fmt"
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
// the aws CLI examples in Karpenter's documentation rely on.
type parameterPath struct {
	prefix string // what every name below the path starts with; ends in "/"
	public bool   // lists AWS's public parameters rather than the account's
}

func parseParameterPath(path string) (parameterPath, *apiError) {
	if aerr := checkNameLength(path, "path"); aerr != nil {
		return parameterPath{}, aerr
	}
	if !strings.HasPrefix(path, "/") {
		return parameterPath{}, newAPIError(CodeValidationException, "The path %q is not valid: a path begins with a forward slash (/), e.g. /aws/service/eks/optimized-ami.", path)
	}
	trimmed := strings.TrimSuffix(path, "/")
	if trimmed == "" {
		return parameterPath{prefix: "/"}, nil
	}
	levels := strings.Split(trimmed[1:], "/")
	if len(levels) > maxParameterPathLevels {
		return parameterPath{}, newAPIError(CodeValidationException, "The path %q is not valid: a hierarchy has at most %d levels.", path, maxParameterPathLevels)
	}
	for _, l := range levels {
		if l == "" || !customParameterName.MatchString(l) {
			return parameterPath{}, newAPIError(CodeValidationException, "The path %q is not valid: each level holds letters, digits, \"_\", \".\" or \"-\".", path)
		}
	}
	return parameterPath{prefix: trimmed + "/", public: isPublicParameterPath(trimmed)}, nil
}

// lists reports whether a parameter of the given name is listed for the
// path: below it (directly, unless recursive) and in the same namespace —
// GetParametersByPath on /aws/service/... lists AWS's public parameters,
// any other path the account's own.
func (pp parameterPath) lists(name string, recursive bool) bool {
	rest, ok := strings.CutPrefix(name, pp.prefix)
	if !ok || rest == "" || strings.HasPrefix(name, publicParameterRoot) != pp.public {
		return false
	}
	return recursive || !strings.Contains(rest, "/")
}

func (b *Backend) getParametersByPath(in *ssm.GetParametersByPathInput) (*ssm.GetParametersByPathOutput, *apiError) {
	if in.Path == nil {
		return nil, notNull("path")
	}
	pp, aerr := parseParameterPath(*in.Path)
	if aerr != nil {
		return nil, aerr
	}
	limit := maxParametersPage
	if in.MaxResults != nil {
		if n := *in.MaxResults; n < 1 || n > maxParametersPage {
			constraint := "Member must have value greater than or equal to 1"
			if n > maxParametersPage {
				constraint = fmt.Sprintf("Member must have value less than or equal to %d", maxParametersPage)
			}
			return nil, validationError(fmt.Sprint(n), "maxResults", constraint)
		}
		limit = int(*in.MaxResults)
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
		if after, ok = decodeToken(tok, tokenOpParametersByPath, fp.h, func(k string) bool { return strings.HasPrefix(k, pp.prefix) }); !ok {
			return nil, newAPIError(CodeInvalidNextToken, invalidSSMTokenMessage)
		}
	}
	return pageOfParameters(b.parameters(), pp, recursive, after, limit, fp.h), nil
}

func pageOfParameters(idx *parameterIndex, pp parameterPath, recursive bool, after string, limit int, fingerprint uint64) *ssm.GetParametersByPathOutput {
	out := &ssm.GetParametersByPathOutput{Parameters: []ssmtypes.Parameter{}}
	start := searchParameters(idx.sorted, max(after, pp.prefix))
	for _, p := range idx.sorted[start:] {
		name := *p.Name
		if name == after {
			continue
		}
		if !strings.HasPrefix(name, pp.prefix) {
			break
		}
		if !pp.lists(name, recursive) {
			continue
		}
		if len(out.Parameters) == limit {
			tok := encodeToken(tokenOpParametersByPath, fingerprint, *out.Parameters[len(out.Parameters)-1].Name)
			out.NextToken = &tok
			break
		}
		out.Parameters = append(out.Parameters, copyParameter(p))
	}
	return out
}

// searchParameters returns the index of the first parameter named key or
// after it.
func searchParameters(sorted []*ssmtypes.Parameter, key string) int {
	lo, hi := 0, len(sorted)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if *sorted[mid].Name < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
