package ec2fake

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
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
)

// SSM error codes returned by the fake, as the SDK reports them
// (apiErr.ErrorCode()). ParameterNotFound, ParameterVersionNotFound,
// InvalidNextToken and ValidationException arrive as the SDK's modeled
// types (*ssmtypes.ParameterNotFound, ...), in process and over HTTP.
const (
	CodeParameterNotFound        = "ParameterNotFound"
	CodeParameterVersionNotFound = "ParameterVersionNotFound"
	CodeInvalidNextToken         = "InvalidNextToken"
	CodeValidationException      = "ValidationException"
)

// SSM's documented limits (API reference: GetParameters Names 1-10 items,
// GetParametersByPath MaxResults 1-10, names and paths 1-2048 characters, a
// hierarchy of at most 15 levels).
const (
	maxParameterNames       = 10
	maxParametersPage       = 10
	maxParameterNameLength  = 2048
	maxParameterPathLevels  = 15
	parameterRegion         = "us-east-1"
	parameterTypeString     = "String"
	parameterDataTypeText   = "text"
	invalidSSMTokenMessage  = "The NextToken is not valid."
	tokenOpParametersByPath = 'p'
)

// parameterStore is the part of *ssm.Client a Backend implements in
// process, method for method, so that code written against a narrow
// interface of these methods takes either. (The SDK exports only
// ssm.GetParametersByPathAPIClient among them; callers declare their own
// one-method interfaces for the others.)
type parameterStore interface {
	GetParameter(context.Context, *ssm.GetParameterInput, ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
	GetParameters(context.Context, *ssm.GetParametersInput, ...func(*ssm.Options)) (*ssm.GetParametersOutput, error)
	GetParametersByPath(context.Context, *ssm.GetParametersByPathInput, ...func(*ssm.Options)) (*ssm.GetParametersByPathOutput, error)
}

var (
	_ ssm.GetParametersByPathAPIClient = (*Backend)(nil)
	_ parameterStore                   = (*Backend)(nil)
	_ parameterStore                   = (*ssm.Client)(nil)
)

// parameterIndex is every parameter the backend serves, sorted by name. It
// is immutable once built; a Backend rebuilds it on the first SSM call after
// its images or custom parameters change.
type parameterIndex struct {
	sorted []*ssmtypes.Parameter
	byName map[string]*ssmtypes.Parameter
}

// customParameterName: letters, digits and ._-/ (SSM's parameter name
// characters), and, when hierarchical, a leading slash.
var customParameterName = regexp.MustCompile(`^(/[a-zA-Z0-9_.-]+)+$|^[a-zA-Z0-9_.-]+$`)

// PutParameter stores a custom String parameter whose value is an AMI ID,
// the kind an EC2NodeClass ssmParameter term names, replacing any parameter
// of that name (its Version goes up by one, as with Overwrite in SSM). The
// name follows SSM's rules: letters, digits and "._-", "/" only as a
// hierarchy separator after a leading "/", at most 15 levels and 1011
// characters, not beginning with the reserved "aws" or "ssm" (in any case,
// with or without the slash) — public parameters come from the images.
func (b *Backend) PutParameter(name, value string) error {
	if err := checkCustomParameterName(name); err != nil {
		return fmt.Errorf("ec2fake: PutParameter(%q): %w", name, err)
	}
	if !amiIDPattern.MatchString(value) {
		return fmt.Errorf("ec2fake: PutParameter(%q): value %q is not an AMI ID; use \"ami-\" followed by 8 or 17 lowercase hex digits", name, value)
	}
	now := b.clock().UTC()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.params == nil {
		b.params = map[string]*ssmtypes.Parameter{}
	}
	version := int64(1)
	if old, ok := b.params[name]; ok {
		version = old.Version + 1
	}
	b.params[name] = &ssmtypes.Parameter{
		Name: aws.String(name), Value: aws.String(value), Type: parameterTypeString, DataType: aws.String(parameterDataTypeText),
		Version: version, LastModifiedDate: &now,
		ARN: aws.String(fmt.Sprintf("arn:aws:ssm:%s:%s:parameter/%s", parameterRegion, b.accountID(), strings.TrimPrefix(name, "/"))),
	}
	b.paramIndex = nil
	return nil
}

func checkCustomParameterName(name string) error {
	lower := strings.ToLower(strings.TrimPrefix(name, "/"))
	switch {
	case len(name) == 0 || len(name) > 1011:
		return fmt.Errorf("name must be 1-1011 characters")
	case !customParameterName.MatchString(name):
		return fmt.Errorf("name may hold only letters, digits, \"._-\" and, after a leading \"/\", \"/\" between levels")
	case strings.Count(name, "/") > maxParameterPathLevels:
		return fmt.Errorf("name has more than %d levels", maxParameterPathLevels)
	case strings.HasPrefix(lower, "aws") || strings.HasPrefix(lower, "ssm"):
		return fmt.Errorf("names beginning with \"aws\" or \"ssm\" are reserved; public parameters are derived from the Amazon images loaded")
	}
	return nil
}

// DeleteParameter removes a custom parameter put with PutParameter.
func (b *Backend) DeleteParameter(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.params[name]; !ok {
		return fmt.Errorf("ec2fake: DeleteParameter(%q): parameter %w", name, ErrNotFound)
	}
	delete(b.params, name)
	b.paramIndex = nil
	return nil
}

// parameters returns the current index, building it if the images or
// custom parameters changed since it was last built.
func (b *Backend) parameters() *parameterIndex {
	b.mu.RLock()
	idx := b.paramIndex
	b.mu.RUnlock()
	if idx != nil {
		return idx
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.paramIndex == nil {
		b.paramIndex = buildParameterIndex(b.sorted, b.params)
	}
	return b.paramIndex
}

// seriesEntry is one image feeding a public parameter.
type seriesEntry struct {
	img     *ec2types.Image
	version []int
	created time.Time
}

// newer breaks every tie: release, then creation date, then image ID.
func (e seriesEntry) newer(o seriesEntry) bool {
	if c := compareVersions(e.version, o.version); c != 0 {
		return c > 0
	}
	if !e.created.Equal(o.created) {
		return e.created.After(o.created)
	}
	return *e.img.ImageId > *o.img.ImageId
}

func buildParameterIndex(images []*storedImage, custom map[string]*ssmtypes.Parameter) *parameterIndex {
	newest := map[string]seriesEntry{} // parameter name -> image it names
	releases := map[string]int{}       // series name -> releases seen
	for _, s := range images {
		p, ok := s.publishedParameters()
		if !ok {
			continue
		}
		e := seriesEntry{img: &s.img, version: p.version}
		if s.img.CreationDate != nil {
			e.created, _ = time.Parse(time.RFC3339, *s.img.CreationDate)
		}
		names := []string{p.series}
		if p.release != "" {
			names = append(names, p.release)
		}
		for _, n := range names {
			if old, ok := newest[n]; !ok || e.newer(old) {
				newest[n] = e
			}
		}
		releases[p.series]++
	}
	idx := &parameterIndex{byName: make(map[string]*ssmtypes.Parameter, len(newest)+len(custom))}
	for name, e := range newest {
		version := int64(1)
		if n, ok := releases[name]; ok {
			version = int64(n)
		}
		idx.add(publicParameter(name, e, version))
	}
	for _, p := range custom {
		idx.add(p)
	}
	slices.SortFunc(idx.sorted, func(x, y *ssmtypes.Parameter) int { return strings.Compare(*x.Name, *y.Name) })
	return idx
}

func (idx *parameterIndex) add(p *ssmtypes.Parameter) {
	idx.sorted = append(idx.sorted, p)
	idx.byName[*p.Name] = p
}

func publicParameter(name string, e seriesEntry, version int64) *ssmtypes.Parameter {
	p := &ssmtypes.Parameter{
		Name: aws.String(name), Value: aws.String(*e.img.ImageId), Type: parameterTypeString, DataType: aws.String(parameterDataTypeText),
		Version: version, ARN: aws.String(fmt.Sprintf("arn:aws:ssm:%s::parameter%s", parameterRegion, name)),
	}
	if !e.created.IsZero() {
		t := e.created.UTC()
		p.LastModifiedDate = &t
	}
	return p
}

func copyParameter(p *ssmtypes.Parameter) ssmtypes.Parameter {
	c := *p
	if p.LastModifiedDate != nil {
		t := *p.LastModifiedDate
		c.LastModifiedDate = &t
	}
	return c
}

// GetParameter implements the SSM operation: the parameter named by
// in.Name, which may carry a ":VERSION" selector. Errors are what
// *ssm.Client returns; a missing parameter is *ssmtypes.ParameterNotFound.
// The option functions are accepted and ignored.
func (b *Backend) GetParameter(ctx context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	if in != nil && in.Name == nil {
		return nil, clientValidationError(OpGetParameter, "GetParameterInput", "Name")
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParameter, in, b.getParameter)
	return result(OpGetParameter, out, requestID, aerr, ctxErr)
}

// GetParameters implements the SSM operation: the parameters named, in the
// order asked, and the names not found in InvalidParameters (not an error).
func (b *Backend) GetParameters(ctx context.Context, in *ssm.GetParametersInput, _ ...func(*ssm.Options)) (*ssm.GetParametersOutput, error) {
	if in != nil && in.Names == nil {
		return nil, clientValidationError(OpGetParameters, "GetParametersInput", "Names")
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParameters, in, b.getParameters)
	return result(OpGetParameters, out, requestID, aerr, ctxErr)
}

// GetParametersByPath implements ssm.GetParametersByPathAPIClient: the
// parameters below Path (one level, or every level with Recursive), in name
// order, MaxResults (1-10, default 10) at a time.
func (b *Backend) GetParametersByPath(ctx context.Context, in *ssm.GetParametersByPathInput, _ ...func(*ssm.Options)) (*ssm.GetParametersByPathOutput, error) {
	if in != nil && in.Path == nil {
		return nil, clientValidationError(OpGetParametersByPath, "GetParametersByPathInput", "Path")
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpGetParametersByPath, in, b.getParametersByPath)
	return result(OpGetParametersByPath, out, requestID, aerr, ctxErr)
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

// lookup finds a parameter by name with an optional ":VERSION" selector.
// SSM trims spaces around a name and rejects spaces inside it; labels and
// ARNs are valid in SSM but not modelled.
func (idx *parameterIndex) lookup(raw string) (*ssmtypes.Parameter, *apiError) {
	name := strings.TrimSpace(raw)
	if strings.ContainsAny(name, " \t\n") {
		return nil, newAPIError(CodeValidationException, "Parameter name: can't contain spaces: '%s'.", raw)
	}
	if strings.HasPrefix(name, "arn:") {
		return nil, newAPIError(CodeUnsupported, "Parameter ARNs are valid in SSM but ec2fake does not resolve them; use the parameter name.")
	}
	selector := ""
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name, selector = name[:i], name[i+1:]
	}
	p, ok := idx.byName[name]
	if !ok {
		return nil, &apiError{code: CodeParameterNotFound, status: 400}
	}
	if selector == "" {
		return p, nil
	}
	v, err := strconv.ParseInt(selector, 10, 64)
	if err != nil {
		return nil, newAPIError(CodeUnsupported, "Parameter labels (%q) are valid in SSM but ec2fake does not model them; use a version number or none.", selector)
	}
	if v != p.Version {
		return nil, newAPIError(CodeParameterVersionNotFound, "Systems Manager could not find version %d of %s. Verify the version and try again.", v, name)
	}
	c := copyParameter(p)
	c.Selector = aws.String(":" + selector)
	return &c, nil
}

// notNull is SSM's answer to a request that omits a required member (the
// SDK never sends one; other clients can).
func notNull(member string) *apiError {
	return newAPIError(CodeValidationException, "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", member)
}

func (b *Backend) getParameter(in *ssm.GetParameterInput) (*ssm.GetParameterOutput, *apiError) {
	if in.Name == nil {
		return nil, notNull("name")
	}
	name := *in.Name
	if aerr := checkNameLength(name, "name"); aerr != nil {
		return nil, aerr
	}
	p, aerr := b.parameters().lookup(name)
	if aerr != nil {
		return nil, aerr
	}
	c := copyParameter(p)
	return &ssm.GetParameterOutput{Parameter: &c}, nil
}

func (b *Backend) getParameters(in *ssm.GetParametersInput) (*ssm.GetParametersOutput, *apiError) {
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
	idx := b.parameters()
	out := &ssm.GetParametersOutput{Parameters: []ssmtypes.Parameter{}, InvalidParameters: []string{}}
	seen := map[string]bool{}
	for _, n := range in.Names {
		if seen[n] {
			continue
		}
		seen[n] = true
		p, aerr := idx.lookup(n)
		switch {
		case aerr == nil:
			out.Parameters = append(out.Parameters, copyParameter(p))
		case aerr.code == CodeParameterNotFound || aerr.code == CodeParameterVersionNotFound:
			out.InvalidParameters = append(out.InvalidParameters, n)
		default:
			return nil, aerr
		}
	}
	return out, nil
}
