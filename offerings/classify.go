package offerings

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/aws/smithy-go"
)

// Classification is what one EC2 error code means for the next launch:
// its Class, the Scope it is about, and where the meaning was read.
type Classification struct {
	// Code is the EC2 error code as classified ("" when the error carried
	// none, such as a broken connection).
	Code  string `json:"code"`
	Class Class  `json:"class"`
	Scope Scope  `json:"scope"`
	// Source cites what the meaning was read from; empty for a code this
	// package does not know.
	Source string `json:"source,omitempty"`
}

// Where the codes' meanings were read. EC2's error reference
// (docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html, read
// 2026-11) lists each code and says what it means; Karpenter's errors
// package (karpenter-provider-aws v1.14.1, bde00654, pkg/errors/errors.go)
// says which ones it treats as temporary capacity; the SDK's retryer says
// which codes are throttles.
const (
	srcEC2Common = "EC2 API reference, error codes: common client errors"
	srcEC2Action = "EC2 API reference, error codes: client errors for specific actions"
	srcEC2Server = "EC2 API reference, error codes: server errors"
	srcKarpenter = "karpenter-provider-aws v1.14.1 pkg/errors/errors.go"
	srcInstance  = "karpenter-provider-aws v1.14.1 pkg/providers/instance/instance.go"
	srcSDK       = "aws-sdk-go-v2 v1.47.6 aws/retry/standard.go:69-84 (DefaultThrottleErrorCodes)"
)

// launchCodes are every EC2 error code a launch (CreateFleet, per instance
// or for the whole call, and RunInstances) can return that this package
// knows, sorted by code. Any other code is Unknown.
var launchCodes = sortedCodes([]Classification{
	// No capacity for the offering now. Karpenter marks exactly these
	// offerings unavailable (errors.go:56-65, instance.go:610-642).
	{"InsufficientInstanceCapacity", OfferingUnavailable, ScopeOffering, srcEC2Server + "; " + srcKarpenter + ":57"},
	{"InsufficientHostCapacity", OfferingUnavailable, ScopeOffering, srcEC2Server},
	{"InsufficientReservedInstanceCapacity", OfferingUnavailable, ScopeOffering, srcEC2Server},
	{"InsufficientCapacity", OfferingUnavailable, ScopeOffering, srcEC2Server},
	{"UnfulfillableCapacity", OfferingUnavailable, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":60"},
	// "Unsupported": the zone has constraints on that instance type (EC2's
	// reference gives exactly that example); Karpenter marks the offering.
	{"Unsupported", OfferingUnavailable, ScopeOffering, srcEC2Common + "; " + srcKarpenter + ":61"},
	{"SpotMaxPriceTooLow", OfferingUnavailable, ScopeOffering, srcEC2Action},
	// The reservation launched into has no room: only that reserved
	// offering (its key holds the reservation ID) is out.
	{"ReservationCapacityExceeded", OfferingUnavailable, ScopeOffering, srcKarpenter + ":53,64; " + srcInstance + ":652-675"},
	// Public addresses of the zone: every launch there needs one.
	{"InsufficientAddressCapacity", OfferingUnavailable, ScopeZone, srcEC2Server},

	{"InsufficientFreeAddressesInSubnet", SubnetUnavailable, ScopeSubnet, srcEC2Action + "; " + srcKarpenter + ":33,62; " + srcInstance + ":602-603"},

	// Quotas per instance family (vCPUs, spot requests) hold in every zone:
	// the type is out as that capacity type everywhere.
	{"MaxSpotInstanceCountExceeded", AccountLimit, ScopeTypeCapacityType, srcEC2Action + "; " + srcKarpenter + ":58"},
	{"VcpuLimitExceeded", AccountLimit, ScopeTypeCapacityType, srcEC2Action + "; " + srcKarpenter + ":59"},
	{"InstanceLimitExceeded", AccountLimit, ScopeTypeCapacityType, srcEC2Action},
	{"MaxFleetCountExceeded", AccountLimit, ScopeAccount, srcEC2Action + "; " + srcKarpenter + ":34,63"},
	{"PendingVerification", AccountLimit, ScopeAccount, srcEC2Common + "; " + srcKarpenter + ":283"},
	// No spot service-linked role and no right to create it: no spot launch
	// works; Karpenter marks the whole capacity type (instance.go:644-645).
	{"AuthFailure.ServiceLinkedRoleCreationNotPermitted", AccountLimit, ScopeCapacityType, srcKarpenter + ":32,179-181; " + srcInstance + ":644-645"},

	{"RequestLimitExceeded", Throttled, ScopeAccount, srcEC2Server + "; " + srcKarpenter + ":31; " + srcSDK},
	{"Throttling", Throttled, ScopeAccount, srcSDK},
	{"ThrottlingException", Throttled, ScopeAccount, srcSDK},
	{"EC2ThrottledException", Throttled, ScopeAccount, srcSDK},
	{"RequestThrottled", Throttled, ScopeAccount, srcSDK},

	{"InternalError", ServerError, ScopeOffering, srcEC2Server + "; " + srcKarpenter + ":272"},
	{"InternalFailure", ServerError, ScopeOffering, srcEC2Server},
	{"ServiceUnavailable", ServerError, ScopeOffering, srcEC2Server},
	{"Unavailable", ServerError, ScopeOffering, srcEC2Server},
	{"ServerInternal", ServerError, ScopeOffering, srcEC2Server},

	// The request itself is wrong or not allowed: no waiting fixes it.
	{"AuthFailure", Configuration, ScopeAccount, srcEC2Common},
	{"Blocked", Configuration, ScopeAccount, srcEC2Common},
	{"UnauthorizedOperation", Configuration, ScopeAccount, srcEC2Common + "; " + srcKarpenter + ":30"},
	{"OptInRequired", Configuration, ScopeAccount, srcEC2Common},
	{"InvalidClientTokenId", Configuration, ScopeAccount, srcEC2Common},
	{"MissingAuthenticationToken", Configuration, ScopeAccount, srcEC2Common},
	{"IncompleteSignature", Configuration, ScopeAccount, srcEC2Common},
	{"RequestExpired", Configuration, ScopeAccount, srcEC2Common},
	{"DryRunOperation", Configuration, ScopeOffering, srcEC2Common + "; " + srcKarpenter + ":29"},
	{"IdempotentParameterMismatch", Configuration, ScopeOffering, srcEC2Common},
	{"InvalidAction", Configuration, ScopeOffering, srcEC2Common},
	{"InvalidParameter", Configuration, ScopeOffering, srcEC2Common},
	{"InvalidParameterCombination", Configuration, ScopeOffering, srcEC2Common},
	{"InvalidParameterDependency", Configuration, ScopeOffering, srcEC2Common},
	{"InvalidParameterValue", Configuration, ScopeOffering, srcEC2Common + "; " + srcKarpenter + ":28"},
	{"InvalidQueryParameter", Configuration, ScopeOffering, srcEC2Common},
	{"MalformedQueryString", Configuration, ScopeOffering, srcEC2Common},
	{"MissingAction", Configuration, ScopeOffering, srcEC2Common},
	{"MissingParameter", Configuration, ScopeOffering, srcEC2Common},
	{"UnknownParameter", Configuration, ScopeOffering, srcEC2Common},
	{"UnsupportedOperation", Configuration, ScopeOffering, srcEC2Common},
	{"InvalidAMIID.Malformed", Configuration, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":263"},
	{"InvalidAMIID.NotFound", Configuration, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":266"},
	{"InvalidAMIID.Unavailable", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidLaunchTemplateName.NotFoundException", Configuration, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":27"},
	{"InvalidLaunchTemplateId.NotFound", Configuration, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":44"},
	{"InvalidLaunchTemplateId.Malformed", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidLaunchTemplateId.VersionNotFound", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidUserData.Malformed", Configuration, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":35"},
	{"InvalidGroup.NotFound", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidKeyPair.NotFound", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidBlockDeviceMapping", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidPlacementGroup.Unknown", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidCapacityReservationId.NotFound", Configuration, ScopeOffering, srcEC2Action + "; " + srcKarpenter + ":41"},
	{"InvalidCapacityReservationId.Malformed", Configuration, ScopeOffering, srcEC2Action},
	{"InvalidInstanceType", Configuration, ScopeTypeCapacityType, srcEC2Action},
	{"InvalidSubnetID.NotFound", Configuration, ScopeSubnet, srcEC2Action},
	{"InvalidSubnetID.Malformed", Configuration, ScopeSubnet, srcEC2Action},
})

func sortedCodes(cs []Classification) []Classification {
	slices.SortFunc(cs, func(a, b Classification) int { return strings.Compare(a.Code, b.Code) })
	return cs
}

// codeIndex finds a code's row in launchCodes; built once, never written.
var codeIndex = func() map[string]Classification {
	m := make(map[string]Classification, len(launchCodes))
	for _, c := range launchCodes {
		m[c.Code] = c
	}
	return m
}()

// Classify says what an EC2 error code means for the next launch. It is
// total: every string, known or not, gets exactly one class and one
// scope. A code this package does not know is Unknown at the scope of the
// offering (retry later, never a crash). EC2's old SOAP prefixes
// ("Client.", "Server.") are read through.
func Classify(code string) Classification {
	bare := strings.TrimPrefix(strings.TrimPrefix(code, "Client."), "Server.")
	if c, ok := codeIndex[bare]; ok {
		c.Code = code
		return c
	}
	return Classification{Code: code, Class: Unknown, Scope: ScopeOffering}
}

// ClassifyError classifies err as a launch call returned it: the code of
// the smithy.APIError inside it (errors.As, as aws-sdk-go-v2 wraps them),
// or, for an error without one (a broken connection, the caller's
// context ending), Unknown with no code: whether the launch happened is
// not known, so it is retried later, never taken for a configuration
// error. A nil error is Unknown too; callers ask only about failures.
func ClassifyError(err error) Classification {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return Classify(apiErr.ErrorCode())
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Classification{Class: Unknown, Scope: ScopeOffering, Source: "the caller's context ended before EC2 answered"}
	}
	return Classification{Class: Unknown, Scope: ScopeOffering}
}

// Codes returns every code Classify knows, sorted by code, each with its
// class, scope and source.
func Codes() []Classification { return slices.Clone(launchCodes) }
