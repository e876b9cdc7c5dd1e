// Package facts digests the facts behind an instance type's requirements
// on some keys into a few bytes, so that a caller comparing many
// instance types with the same requirements (amiselect.Map) compares each
// distinct kind of type once.
//
// The digest reads compat.InstanceType's fields exactly as
// compat.InstanceType.Requirements turns them into requirements;
// TestDigestDecidesRequirements holds the two together. Everything here is
// safe for concurrent use; the zero KeySet is empty.
package facts
