package ec2fake

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
)

// SSM operation names, as used in Fault.Operation, SetLatency and
// Call.Operation.
const (
	OpGetParameter        = "GetParameter"
	OpGetParameters       = "GetParameters"
	OpGetParametersByPath = "GetParametersByPath"
	OpPutParameter        = "PutParameter"
	OpDeleteParameter     = "DeleteParameter"
	OpDescribeParameters  = "DescribeParameters"
	OpGetParameterHistory = "GetParameterHistory"
)

// ssmOperations lists the SSM operations a Backend answers.
var ssmOperations = []string{OpGetParameter, OpGetParameters, OpGetParametersByPath, OpPutParameter, OpDeleteParameter, OpDescribeParameters, OpGetParameterHistory}

// SSM error codes returned by the fake, as the SDK reports them
// (apiErr.ErrorCode()). Those botocore's ssm model defines arrive as the
// SDK's modeled types (*ssmtypes.ParameterNotFound, ...), in process and
// over HTTP.
const (
	CodeParameterNotFound           = "ParameterNotFound"
	CodeParameterVersionNotFound    = "ParameterVersionNotFound"
	CodeInvalidNextToken            = "InvalidNextToken"
	CodeValidationException         = "ValidationException"
	CodeParameterAlreadyExists      = "ParameterAlreadyExists"
	CodeHierarchyLevelLimitExceeded = "HierarchyLevelLimitExceededException"
	CodeParameterPatternMismatch    = "ParameterPatternMismatchException"
	CodeInvalidAllowedPattern       = "InvalidAllowedPatternException"
	CodeInvalidFilterKey            = "InvalidFilterKey"
	CodeInvalidFilterOption         = "InvalidFilterOption"
	CodeInvalidFilterValue          = "InvalidFilterValue"
	CodeAccessDenied                = "AccessDeniedException"
)

// SSM's documented limits (API reference: GetParameters Names 1-10 items,
// GetParametersByPath MaxResults 1-10, DescribeParameters and
// GetParameterHistory MaxResults 1-50, names and paths 1-2048 characters,
// a hierarchy of at most 15 levels).
const (
	maxParameterNames      = 10
	maxParametersPage      = 10
	maxDescribePage        = 10 // default; getmoto/moto responses.py describe_parameters
	maxDescribePageLimit   = 50
	maxHistoryPage         = 50
	maxParameterNameLength = 2048
	maxParameterPathLevels = 15
	parameterDataTypeText  = "text"
	invalidSSMTokenMessage = "The NextToken is not valid."
)

const (
	tokenOpParametersByPath   = 'p'
	tokenOpParameterHistory   = 'h'
	tokenOpDescribeParameters = 'd'
)

// parameterStore is the part of *ssm.Client a Backend implements in
// process, method for method, so that code written against a narrow
// interface of these methods takes either. PutParameter and
// DeleteParameter are served over HTTP; in process the Backend has simpler
// methods of those names.
type parameterStore interface {
	GetParameter(context.Context, *ssm.GetParameterInput, ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
	GetParameters(context.Context, *ssm.GetParametersInput, ...func(*ssm.Options)) (*ssm.GetParametersOutput, error)
	GetParametersByPath(context.Context, *ssm.GetParametersByPathInput, ...func(*ssm.Options)) (*ssm.GetParametersByPathOutput, error)
	DescribeParameters(context.Context, *ssm.DescribeParametersInput, ...func(*ssm.Options)) (*ssm.DescribeParametersOutput, error)
	GetParameterHistory(context.Context, *ssm.GetParameterHistoryInput, ...func(*ssm.Options)) (*ssm.GetParameterHistoryOutput, error)
}

var (
	_ ssm.GetParametersByPathAPIClient = (*Backend)(nil)
	_ ssm.DescribeParametersAPIClient  = (*Backend)(nil)
	_ ssm.GetParameterHistoryAPIClient = (*Backend)(nil)
	_ parameterStore                   = (*Backend)(nil)
	_ parameterStore                   = (*ssm.Client)(nil)
)

// publicParameters returns the current public index, building it if the
// images changed since it was last built.
func (b *Backend) publicParameters() *publicIndex {
	b.mu.RLock()
	idx := b.paramIndex
	b.mu.RUnlock()
	if idx != nil {
		return idx
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paramIndex == nil {
		b.paramIndex = buildPublicIndex(b.sorted)
	}
	return b.paramIndex
}

// GetParameter implements the SSM operation: the parameter named by
// in.Name, which may carry a ":VERSION" selector, in the region the option
// functions set (else Options.Region). Errors are what *ssm.Client
// returns; a missing parameter is *ssmtypes.ParameterNotFound.
func (b *Backend) GetParameter(ctx context.Context, in *ssm.GetParameterInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	if in != nil && in.Name == nil {
		return nil, clientValidationError(OpGetParameter, "GetParameterInput", "Name")
	}
	region := b.regionOfOptions(optFns)
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParameter, in, inRegion(region, b.getParameter))
	return result(OpGetParameter, out, requestID, aerr, ctxErr)
}

// GetParameters implements the SSM operation: the parameters named, in the
// order asked, and the names not found in InvalidParameters (not an error).
func (b *Backend) GetParameters(ctx context.Context, in *ssm.GetParametersInput, optFns ...func(*ssm.Options)) (*ssm.GetParametersOutput, error) {
	if in != nil && in.Names == nil {
		return nil, clientValidationError(OpGetParameters, "GetParametersInput", "Names")
	}
	region := b.regionOfOptions(optFns)
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParameters, in, inRegion(region, b.getParameters))
	return result(OpGetParameters, out, requestID, aerr, ctxErr)
}

// GetParametersByPath implements ssm.GetParametersByPathAPIClient: the
// parameters below Path (one level, or every level with Recursive), in name
// order, MaxResults (1-10, default 10) at a time.
func (b *Backend) GetParametersByPath(ctx context.Context, in *ssm.GetParametersByPathInput, optFns ...func(*ssm.Options)) (*ssm.GetParametersByPathOutput, error) {
	if in != nil && in.Path == nil {
		return nil, clientValidationError(OpGetParametersByPath, "GetParametersByPathInput", "Path")
	}
	region := b.regionOfOptions(optFns)
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParametersByPath, in, inRegion(region, b.getParametersByPath))
	return result(OpGetParametersByPath, out, requestID, aerr, ctxErr)
}

// DescribeParameters implements ssm.DescribeParametersAPIClient: the
// account's own parameters (never AWS's public ones), in name order,
// MaxResults (1-50, default 10) at a time, narrowed by Filters or
// ParameterFilters (Name, Type, Path, Tier, DataType).
func (b *Backend) DescribeParameters(ctx context.Context, in *ssm.DescribeParametersInput, optFns ...func(*ssm.Options)) (*ssm.DescribeParametersOutput, error) {
	region := b.regionOfOptions(optFns)
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeParameters, in, inRegion(region, b.describeParameters))
	return result(OpDescribeParameters, out, requestID, aerr, ctxErr)
}

// GetParameterHistory implements ssm.GetParameterHistoryAPIClient: every
// version of a parameter, oldest first, MaxResults (1-50, default 50) at a
// time — each PutParameter of the account's own parameters, each release a
// public parameter has named.
func (b *Backend) GetParameterHistory(ctx context.Context, in *ssm.GetParameterHistoryInput, optFns ...func(*ssm.Options)) (*ssm.GetParameterHistoryOutput, error) {
	if in != nil && in.Name == nil {
		return nil, clientValidationError(OpGetParameterHistory, "GetParameterHistoryInput", "Name")
	}
	region := b.regionOfOptions(optFns)
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParameterHistory, in, inRegion(region, b.getParameterHistory))
	return result(OpGetParameterHistory, out, requestID, aerr, ctxErr)
}

// inRegion binds an operation to the region it answers for.
func inRegion[I, O any](region string, run func(*I, string) (*O, *apiError)) func(*I) (*O, *apiError) {
	return func(in *I) (*O, *apiError) { return run(in, region) }
}

// clientValidationError is the error *ssm.Client returns, without sending
// anything, when a required member is nil.
func clientValidationError(op, context, member string) error {
	ip := smithy.InvalidParamsError{Context: context}
	ip.Add(smithy.NewErrParamRequired(member))
	return &smithy.OperationError{ServiceID: serviceSSM, OperationName: op, Err: ip}
}

// validationError is SSM's (Coral's) wording for a constraint violation.
func validationError(value, member, constraint string) *apiError {
	return newAPIError(CodeValidationException, "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: %s", value, member, constraint)
}

func checkNameLength(name, member string) *apiError {
	switch {
	case len(name) < 1:
		return validationError(name, member, "Member must have length greater than or equal to 1")
	case len(name) > maxParameterNameLength:
		return validationError(name, member, fmt.Sprintf("Member must have length less than or equal to %d", maxParameterNameLength))
	}
	return nil
}

// notNull is SSM's answer to a request that omits a required member (the
// SDK never sends one; other clients can).
func notNull(member string) *apiError {
	return newAPIError(CodeValidationException, "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", member)
}

// lookup finds a parameter by name with an optional ":VERSION" selector,
// in region. SSM trims spaces around a name and rejects spaces inside it;
// labels and ARNs are valid in SSM but not modelled.
func (b *Backend) lookup(raw, region string) (ssmtypes.Parameter, *apiError) {
	name := strings.TrimSpace(raw)
	if strings.ContainsAny(name, " \t\n") {
		return ssmtypes.Parameter{}, newAPIError(CodeValidationException, "Parameter name: can't contain spaces: '%s'.", raw)
	}
	if strings.HasPrefix(name, "arn:") {
		return ssmtypes.Parameter{}, newAPIError(CodeUnsupported, "Parameter ARNs are valid in SSM but ec2fake does not resolve them; use the parameter name.")
	}
	selector := ""
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name, selector = name[:i], name[i+1:]
	}
	var version int64
	if selector != "" {
		v, err := strconv.ParseInt(selector, 10, 64)
		if err != nil {
			return ssmtypes.Parameter{}, newAPIError(CodeUnsupported, "Parameter labels (%q) are valid in SSM but ec2fake does not model them; use a version number or none.", selector)
		}
		version = v
	}
	p, found, ok := b.parameterVersion(name, version, region)
	switch {
	case !found:
		return ssmtypes.Parameter{}, parameterNotFound(name)
	case !ok:
		return ssmtypes.Parameter{}, newAPIError(CodeParameterVersionNotFound, "Systems Manager could not find version %d of %s. Verify the version and try again.", version, name)
	}
	if selector != "" {
		p.Selector = aws.String(":" + selector)
	}
	return p, nil
}

// parameterVersion returns version v (0: the current one) of the
// parameter name, the account's own or public. found is false if no such
// parameter exists, ok false if it has no version v.
func (b *Backend) parameterVersion(name string, v int64, region string) (p ssmtypes.Parameter, found, ok bool) {
	if c, exists := b.customParameter(name); exists {
		pv, ok := c.find(v)
		return c.parameter(pv, region, b.accountID()), true, ok
	}
	pub, exists := b.publicParameters().byName[name]
	if !exists {
		return ssmtypes.Parameter{}, false, false
	}
	if v == 0 {
		return pub.current(region), true, true
	}
	if v < 1 || v > int64(len(pub.releases)) {
		return ssmtypes.Parameter{}, true, false
	}
	return pub.version(int(v), region), true, true
}

func (b *Backend) getParameter(in *ssm.GetParameterInput, region string) (*ssm.GetParameterOutput, *apiError) {
	if in.Name == nil {
		return nil, notNull("name")
	}
	if aerr := checkNameLength(*in.Name, "name"); aerr != nil {
		return nil, aerr
	}
	p, aerr := b.lookup(*in.Name, region)
	if aerr != nil {
		return nil, aerr
	}
	return &ssm.GetParameterOutput{Parameter: &p}, nil
}

func (b *Backend) getParameters(in *ssm.GetParametersInput, region string) (*ssm.GetParametersOutput, *apiError) {
	if in.Names == nil {
		return nil, notNull("names")
	}
	if n := len(in.Names); n < 1 || n > maxParameterNames {
		constraint := "Member must have length greater than or equal to 1"
		if n > 0 {
			constraint = fmt.Sprintf("Member must have length less than or equal to %d", maxParameterNames)
		}
		return nil, validationError("["+strings.Join(in.Names, ", ")+"]", "names", constraint)
	}
	for _, n := range in.Names {
		if aerr := checkNameLength(n, "names"); aerr != nil {
			return nil, aerr
		}
	}
	out := &ssm.GetParametersOutput{Parameters: []ssmtypes.Parameter{}, InvalidParameters: []string{}}
	seen := map[string]bool{}
	for _, n := range in.Names {
		if seen[n] {
			continue
		}
		seen[n] = true
		p, aerr := b.lookup(n, region)
		switch {
		case aerr == nil:
			out.Parameters = append(out.Parameters, p)
		case aerr.code == CodeParameterNotFound || aerr.code == CodeParameterVersionNotFound:
			out.InvalidParameters = append(out.InvalidParameters, n)
		default:
			return nil, aerr
		}
	}
	return out, nil
}
