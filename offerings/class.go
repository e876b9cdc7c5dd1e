package offerings

import (
	"fmt"
	"strconv"
)

// Class is what a launch error means for the next launch. Its text form is
// the word in the constants' comments. The zero value is not a class.
type Class uint8

// The classes, from the narrowest cause to the widest.
const (
	// OfferingUnavailable ("offering-unavailable"): EC2 has no capacity for
	// the offering now; launch something else and try it again later.
	OfferingUnavailable Class = iota + 1
	// SubnetUnavailable ("subnet-unavailable"): the subnet cannot take the
	// instance (no free address); use another subnet.
	SubnetUnavailable
	// AccountLimit ("account-limit"): a quota of the account is used up
	// (vCPUs, spot instances, fleets) or the account may not launch yet.
	AccountLimit
	// Throttled ("throttled"): EC2 refused the request's rate; retry the
	// same request later, more slowly.
	Throttled
	// ServerError ("server-error"): EC2 failed on its side; retry later.
	ServerError
	// Configuration ("configuration"): the request is wrong (a missing
	// AMI, a denied permission, a malformed parameter); retrying it cannot
	// succeed, so it is not retried and marks nothing.
	Configuration
	// Unknown ("unknown"): a code this package does not know, or no code
	// at all; treated as retry later, never as a crash.
	Unknown
)

var classText = [...]string{
	OfferingUnavailable: "offering-unavailable", SubnetUnavailable: "subnet-unavailable", AccountLimit: "account-limit",
	Throttled: "throttled", ServerError: "server-error", Configuration: "configuration", Unknown: "unknown",
}

// String returns the class's word.
func (c Class) String() string {
	if c >= OfferingUnavailable && c <= Unknown {
		return classText[c]
	}
	return "Class(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) {
	if c < OfferingUnavailable || c > Unknown {
		return nil, fmt.Errorf("offerings: cannot marshal %s", c)
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Class) UnmarshalText(b []byte) error {
	for v := OfferingUnavailable; v <= Unknown; v++ {
		if classText[v] == string(b) {
			*c = v
			return nil
		}
	}
	return fmt.Errorf("offerings: class %q is none of %v", b, classText[1:])
}

// Retry reports whether a failed launch of this class may be retried:
// every class but Configuration.
func (c Class) Retry() bool { return c != Configuration }

// Scope is what a launch error is about, and so what a mark covers. Its
// text form is the word in the constants' comments. The zero value is not
// a scope.
type Scope uint8

// The scopes, narrowest first.
const (
	// ScopeOffering ("offering"): one instance type in one zone as one
	// capacity type (and, reserved, from one reservation).
	ScopeOffering Scope = iota + 1
	// ScopeTypeCapacityType ("instance-type-capacity-type"): one instance
	// type as one capacity type, in every zone.
	ScopeTypeCapacityType
	// ScopeCapacityType ("capacity-type"): every offering of one capacity
	// type.
	ScopeCapacityType
	// ScopeZone ("zone"): every offering in one zone.
	ScopeZone
	// ScopeSubnet ("subnet"): one subnet; a zone is out once every subnet
	// it has is.
	ScopeSubnet
	// ScopeAccount ("account"): every launch of the account.
	ScopeAccount
)

var scopeText = [...]string{
	ScopeOffering: "offering", ScopeTypeCapacityType: "instance-type-capacity-type", ScopeCapacityType: "capacity-type",
	ScopeZone: "zone", ScopeSubnet: "subnet", ScopeAccount: "account",
}

// String returns the scope's word.
func (s Scope) String() string {
	if s >= ScopeOffering && s <= ScopeAccount {
		return scopeText[s]
	}
	return "Scope(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText implements encoding.TextMarshaler.
func (s Scope) MarshalText() ([]byte, error) {
	if s < ScopeOffering || s > ScopeAccount {
		return nil, fmt.Errorf("offerings: cannot marshal %s", s)
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Scope) UnmarshalText(b []byte) error {
	for v := ScopeOffering; v <= ScopeAccount; v++ {
		if scopeText[v] == string(b) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("offerings: scope %q is none of %v", b, scopeText[1:])
}
