// Package validation holds Kubernetes' own syntax rules for label keys, label
// values and DNS subdomains, shared by compat and userdata so that both agree
// with the API server and the kubelet to the character, and the one rule
// for text that becomes a process argument, shared by userdata's shell and
// PowerShell quoting.
//
// Each check returns nil or an error whose text says what rule the input
// broke; callers add the package prefix and the name of the field.
package validation

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	// MaxNameLength is the limit on the name part of a qualified name and on
	// a label value.
	MaxNameLength = 63
	// MaxSubdomainLength is the limit on a DNS-1123 subdomain, the prefix of
	// a qualified name.
	MaxSubdomainLength = 253
)

// QualifiedName checks s against Kubernetes' IsQualifiedName: an optional
// DNS-1123 subdomain prefix and a slash, then a name of at most 63
// characters that starts and ends with an alphanumeric and has only
// alphanumerics, '-', '_' and '.' between.
func QualifiedName(s string) error {
	prefix, name, found := strings.Cut(s, "/")
	if found {
		if strings.Contains(name, "/") {
			return errors.New("a qualified name has at most one '/'")
		}
		if prefix == "" {
			return errors.New("the prefix before '/' must not be empty")
		}
		if err := DNS1123Subdomain(prefix); err != nil {
			return fmt.Errorf("prefix %q: %v", prefix, err)
		}
	} else {
		name = prefix
	}
	if name == "" {
		return errors.New("the name part must not be empty")
	}
	if len(name) > MaxNameLength {
		return fmt.Errorf("the name part is %d characters; at most %d are allowed", len(name), MaxNameLength)
	}
	if !isNameBody(name) {
		return errors.New("the name part must start and end with a letter or digit and contain only letters, digits, '-', '_' and '.'")
	}
	return nil
}

// LabelValue checks s against Kubernetes' IsValidLabelValue: empty, or at
// most 63 characters that start and end with an alphanumeric and have only
// alphanumerics, '-', '_' and '.' between. A '/' is never allowed.
func LabelValue(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxNameLength {
		return fmt.Errorf("%d characters; at most %d are allowed", len(s), MaxNameLength)
	}
	if !isNameBody(s) {
		return errors.New("must be empty, or start and end with a letter or digit and contain only letters, digits, '-', '_' and '.'")
	}
	return nil
}

// DNS1123Subdomain checks s against Kubernetes' IsDNS1123Subdomain: at most
// 253 characters of lowercase alphanumerics, '-' and '.', each dot-separated
// label starting and ending with an alphanumeric.
func DNS1123Subdomain(s string) error {
	if len(s) > MaxSubdomainLength {
		return fmt.Errorf("%d characters; at most %d are allowed", len(s), MaxSubdomainLength)
	}
	for label := range strings.SplitSeq(s, ".") {
		if !isDNSLabel(label) {
			return errors.New("must be lowercase letters, digits, '-' and '.', each part starting and ending with a letter or digit")
		}
	}
	return nil
}

func isNameBody(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isDNSLabel(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isLowerAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

// ArgumentText checks that s can be passed as a process argument: valid
// UTF-8 (a script with invalid UTF-8 cannot be parsed reliably) and no NUL
// byte (an argument ends at one).
func ArgumentText(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%q is not valid UTF-8", s)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return fmt.Errorf("%q contains a NUL byte, which no argument can carry", s)
	}
	return nil
}
