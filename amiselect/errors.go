package amiselect

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aws/smithy-go"

	"github.com/ec2select/ec2select/amiselect/amimap"
	"github.com/ec2select/ec2select/compat"
)

// The sentinels a controller branches on, each matched with errors.Is by
// the error type that carries the details.
var (
	// ErrUnsupportedKubernetesVersion: an alias's family publishes no AMIs
	// for the cluster's Kubernetes version ([*UnsupportedVersionError]).
	// Karpenter's EC2NodeClass controller marks such a class AMIsReady
	// False with reason UnsupportedAlias and stops retrying
	// (pkg/controllers/nodeclass/ami.go:52-57,
	// aws/karpenter-provider-aws@v1.14.1): the alias will not start
	// resolving by itself.
	ErrUnsupportedKubernetesVersion = errors.New("amiselect: the AMI family publishes no AMIs for this Kubernetes version")
	// ErrParameterNotFound: SSM does not have a parameter a term names
	// ([*MissingParameterError]).
	ErrParameterNotFound = errors.New("amiselect: SSM parameter not found")
	// ErrNoCompatibleAMI: no instance type can run any selected AMI
	// ([*NoCompatibleAMIError]); it is amimap's.
	ErrNoCompatibleAMI = amimap.ErrNoCompatibleAMI
)

// UnsupportedVersionError refuses an alias whose family publishes no AMIs
// for the Kubernetes version asked: AL2 ends with Kubernetes 1.32, and
// Windows Server 2025 starts with 1.35. errors.Is(err,
// [ErrUnsupportedKubernetesVersion]) matches it.
type UnsupportedVersionError struct {
	// Alias is the term's alias, such as "al2@latest".
	Alias  string
	Family compat.AMIFamily
	// KubernetesVersion is the version asked, such as "1.33".
	KubernetesVersion string
	// First and Last bound the minor versions the family publishes AMIs
	// for ("1.35", "1.32"); "" where the family has no such bound.
	First, Last string
}

func (e *UnsupportedVersionError) Error() string {
	if e.Last != "" {
		return fmt.Sprintf("alias %q: %s has no AMIs for Kubernetes %s (its last is %s); use al2023 or bottlerocket", e.Alias, e.Family, e.KubernetesVersion, e.Last)
	}
	return fmt.Sprintf("alias %q: Windows Server 2025 AMIs start with Kubernetes %s, not %s; use windows2022", e.Alias, e.First, e.KubernetesVersion)
}

// Is matches [ErrUnsupportedKubernetesVersion].
func (e *UnsupportedVersionError) Is(target error) bool {
	return target == ErrUnsupportedKubernetesVersion
}

// versionGate is the family's bound that k8s falls outside, or nil.
func versionGate(alias string, f compat.AMIFamily, k8sText string, k8s minorVersion) error {
	switch {
	case f == compat.AL2 && k8s.minor > al2LastMinor:
		return &UnsupportedVersionError{Alias: alias, Family: f, KubernetesVersion: k8sText, Last: fmt.Sprintf("1.%d", al2LastMinor)}
	case f == compat.Windows2025 && k8s.minor < windows2025FirstMinor:
		return &UnsupportedVersionError{Alias: alias, Family: f, KubernetesVersion: k8sText, First: fmt.Sprintf("1.%d", windows2025FirstMinor)}
	}
	return nil
}

// MissingParameterError is an SSM parameter that SSM does not have, named
// by an SSMParameter term. Err is SSM's own error (a
// *ssmtypes.ParameterNotFound from a real client), so errors.As finds
// that too; errors.Is(err, [ErrParameterNotFound]) matches it.
type MissingParameterError struct {
	// Term is the term's index; Parameter its name or ARN.
	Term      int
	Parameter string
	Err       error
}

func (e *MissingParameterError) Error() string {
	return fmt.Sprintf("amiselect: term %d: SSM parameter %q does not exist; check its name and the region, remove the term, "+
		"or set Options.SkipMissingParameters to let it match nothing, as Karpenter does: %v", e.Term, e.Parameter, e.Err)
}

// Unwrap returns SSM's error.
func (e *MissingParameterError) Unwrap() error { return e.Err }

// Is matches [ErrParameterNotFound].
func (e *MissingParameterError) Is(target error) bool { return target == ErrParameterNotFound }

// notFound reports whether err says SSM does not have the parameter: a
// ParameterNotFound code, or, when untyped is set, an error that carries
// no API error code at all and whose text says "not found", as
// Karpenter's fake SSM API answers ("parameter not found",
// pkg/fake/ssmapi.go:57, aws/karpenter-provider-aws@v1.14.1). An error
// with another code (a throttle) is never a missing parameter.
func notFound(err error, untyped bool) bool {
	if err == nil {
		return false
	}
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode() == "ParameterNotFound"
	}
	return untyped && strings.Contains(strings.ToLower(err.Error()), "not found")
}
