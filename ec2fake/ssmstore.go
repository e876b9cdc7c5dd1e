package ec2fake

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// maxParameterVersions is how many versions of a parameter SSM keeps: "the
// 100 most recently created versions" (botocore ssm service-2.json,
// ParameterMaxVersionLimitExceeded); older ones are deleted on the next
// write.
const maxParameterVersions = 100

// parameterVersion is one version of one of the account's parameters.
type parameterVersion struct {
	version        int64
	value          string
	typ            ssmtypes.ParameterType
	dataType       string
	description    string
	allowedPattern string
	tier           ssmtypes.ParameterTier
	modified       time.Time
}

// customParameter is one of the account's parameters with the versions SSM
// keeps, oldest first. It is replaced, never changed in place, so a reader
// holding one under the read lock may use it after unlocking.
type customParameter struct {
	name     string
	versions []parameterVersion
}

func (c *customParameter) latest() parameterVersion { return c.versions[len(c.versions)-1] }

// parameter renders version v in region for account.
func (c *customParameter) parameter(v parameterVersion, region, account string) ssmtypes.Parameter {
	t := v.modified
	return ssmtypes.Parameter{
		Name: aws.String(c.name), Value: aws.String(v.value), Type: v.typ, DataType: aws.String(v.dataType),
		Version: v.version, LastModifiedDate: &t, ARN: aws.String(parameterARN(region, account, c.name, false)),
	}
}

// find returns version v, or the latest for v == 0.
func (c *customParameter) find(v int64) (parameterVersion, bool) {
	if v == 0 {
		return c.latest(), true
	}
	i := slices.IndexFunc(c.versions, func(pv parameterVersion) bool { return pv.version == v })
	if i < 0 {
		return parameterVersion{}, false
	}
	return c.versions[i], true
}

// putCustomLocked stores a new version of name; b.mu is held for writing.
// overwrite false makes an existing parameter an error.
func (b *Backend) putCustomLocked(name string, v parameterVersion, overwrite bool) (int64, *apiError) {
	if b.params == nil {
		b.params = map[string]*customParameter{}
	}
	old, exists := b.params[name]
	if exists && !overwrite {
		return 0, newAPIError(CodeParameterAlreadyExists, "The parameter already exists. To overwrite this value, set the overwrite option in the request to true.")
	}
	next := &customParameter{name: name}
	v.version = 1
	if exists {
		v.version = old.latest().version + 1
		keep := old.versions
		if len(keep) >= maxParameterVersions {
			keep = keep[len(keep)-maxParameterVersions+1:]
		}
		next.versions = slices.Clone(keep)
	} else {
		i, _ := slices.BinarySearch(b.paramNames, name)
		b.paramNames = slices.Insert(b.paramNames, i, name)
	}
	next.versions = append(next.versions, v)
	b.params[name] = next
	return v.version, nil
}

// deleteCustomLocked removes name; b.mu is held for writing.
func (b *Backend) deleteCustomLocked(name string) bool {
	if _, ok := b.params[name]; !ok {
		return false
	}
	delete(b.params, name)
	i, _ := slices.BinarySearch(b.paramNames, name)
	b.paramNames = slices.Delete(b.paramNames, i, i+1)
	return true
}

// customParameter returns the account's parameter name, if any.
func (b *Backend) customParameter(name string) (*customParameter, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	c, ok := b.params[name]
	return c, ok
}

// customParametersAfter returns, in name order, the account's parameters
// after the name after ("" = from the start) for which keep holds, at most
// limit+1 of them (one more than a page, to tell whether another follows).
func (b *Backend) customParametersAfter(after string, limit int, keep func(*customParameter) bool) []*customParameter {
	b.mu.RLock()
	defer b.mu.RUnlock()
	i, found := slices.BinarySearch(b.paramNames, after)
	if found {
		i++
	}
	var out []*customParameter
	for _, n := range b.paramNames[i:] {
		if c := b.params[n]; keep(c) {
			out = append(out, c)
			if len(out) > limit {
				break
			}
		}
	}
	return out
}

// customParameterName: letters, digits and ._-/ (SSM's parameter name
// characters), and, when hierarchical, a leading slash.
var customParameterName = regexp.MustCompile(`^(/[a-zA-Z0-9_.-]+)+$|^[a-zA-Z0-9_.-]+$`)

// SSM's wording for a name it will not store (the AWS CLI shows these as
// "An error occurred (ValidationException) when calling the PutParameter
// operation: ..."); the same texts as getmoto/moto moto/ssm/models.py
// put_parameter at 0af643a5, which reproduces them.
const (
	msgNameReserved      = `Parameter name: can't be prefixed with "aws" or "ssm" (case-insensitive).`
	msgPathReservedOrBad = `Parameter name: can't be prefixed with "ssm" (case-insensitive). If formed as a path, it can consist of sub-paths divided by slash symbol; each sub-path can be formed as a mix of letters, numbers and the following 3 symbols .-_`
	msgHierarchyTooDeep  = "A hierarchy can have a maximum of 15 levels. For more information, see Requirements and constraints for parameter names in the Amazon Web Services Systems Manager User Guide."
)

// checkWritableName applies SSM's rules for a name PutParameter may
// create: at most 2048 characters, no "aws" or "ssm" prefix (a path under
// /aws is another account's: AccessDeniedException), letters, digits and
// "._-" between slashes, and at most 15 levels.
func checkWritableName(name string) *apiError {
	if aerr := checkNameLength(name, "name"); aerr != nil {
		return aerr
	}
	lower := strings.ToLower(strings.TrimPrefix(name, "/"))
	path := strings.Count(name, "/") > 1
	switch {
	case strings.HasPrefix(strings.ToLower(name), "/aws/") && path:
		return newAPIError(CodeAccessDenied, "No access to reserved parameter name: %s.", name)
	case (strings.HasPrefix(lower, "aws") || strings.HasPrefix(lower, "ssm")) && !path:
		return newAPIError(CodeValidationException, "%s", msgNameReserved)
	case strings.HasPrefix(lower, "ssm") || strings.HasPrefix(lower, "aws") || !customParameterName.MatchString(name):
		return newAPIError(CodeValidationException, "%s", msgPathReservedOrBad)
	case strings.Count(name, "/") > maxParameterPathLevels:
		return newAPIError(CodeHierarchyLevelLimitExceeded, "%s", msgHierarchyTooDeep)
	}
	return nil
}

// PutParameter stores a custom String parameter (data type text) whose
// value is an AMI ID, the kind an EC2NodeClass ssmParameter term names:
// EC2's IDs or fixture IDs as [Backend.PutImage] takes them (Karpenter's
// fake SSM hands out "ami-" and 16 mixed-case alphanumerics). It replaces
// any parameter of that name (its Version goes up by one, as with
// Overwrite in SSM). The name follows SSM's rules: letters, digits and "._-", "/" only as a
// hierarchy separator after a leading "/", at most 15 levels and 1011
// characters, not beginning with the reserved "aws" or "ssm" (in any case,
// with or without the slash) — public parameters come from the images.
// Over HTTP, AmazonSSM.PutParameter stores any String or StringList value
// with SSM's rules and errors.
func (b *Backend) PutParameter(name, value string) error {
	if err := checkCustomParameterName(name); err != nil {
		return fmt.Errorf("ec2fake: PutParameter(%q): %w", name, err)
	}
	if !fixtureAMIIDPattern.MatchString(value) {
		return fmt.Errorf("ec2fake: PutParameter(%q): value %q is not an AMI ID; use \"ami-\" followed by letters, digits or hyphens, such as \"ami-0123456789abcdef0\" or \"ami-id-amd64\"", name, value)
	}
	v := parameterVersion{value: value, typ: ssmtypes.ParameterTypeString, dataType: parameterDataTypeText, tier: ssmtypes.ParameterTierStandard, modified: b.clock().UTC()}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.putCustomLocked(name, v, true)
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

// DeleteParameter removes one of the account's parameters with all its
// versions.
func (b *Backend) DeleteParameter(name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.deleteCustomLocked(name) {
		return fmt.Errorf("ec2fake: DeleteParameter(%q): parameter %w", name, ErrNotFound)
	}
	return nil
}
