// Package eksname holds the pieces of EKS image and parameter names that
// amiselect and amimap both read: Kubernetes versions, release dates and
// versions, architectures.
package eksname

import (
	"strings"

	"github.com/ec2select/ec2select/compat"
)

// IsK8sThenDate matches "{k8s}-v{YYYYMMDD}".
func IsK8sThenDate(s string) bool {
	k8s, date, ok := strings.Cut(s, "-")
	return ok && IsK8sVersion(k8s) && len(date) == 9 && date[0] == 'v' && IsDigits(date[1:])
}

// IsK8sVersion matches a Kubernetes minor version, "1.32": digits, a dot,
// digits, without leading zeros.
func IsK8sVersion(s string) bool {
	major, minor, ok := strings.Cut(s, ".")
	return ok && IsNumber(major) && IsNumber(minor)
}

// IsSemver matches "X.Y.Z" of numbers.
func IsSemver(s string) bool {
	x, rest, ok := strings.Cut(s, ".")
	if !ok || !IsNumber(x) {
		return false
	}
	y, z, ok := strings.Cut(rest, ".")
	return ok && IsNumber(y) && IsNumber(z)
}

// IsDate matches "YYYY.MM.DD" or "YYYY-MM-DD".
func IsDate(s string) bool {
	return len(s) == 10 && (s[4] == '.' && s[7] == '.' || s[4] == '-' && s[7] == '-') &&
		IsDigits(s[:4]) && IsDigits(s[5:7]) && IsDigits(s[8:])
}

// IsNumber matches a decimal number without leading zeros.
func IsNumber(s string) bool {
	return IsDigits(s) && (s[0] != '0' || len(s) == 1)
}

func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func IsAlnum(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
			return false
		}
	}
	return true
}

// KubeArch maps an EC2 architecture to its Kubernetes name. Only these two
// run EKS nodes: i386, x86_64_mac and arm64_mac do not.
func KubeArch(ec2Arch string) (string, bool) {
	switch ec2Arch {
	case "x86_64":
		return compat.ArchAMD64, true
	case "arm64":
		return compat.ArchARM64, true
	}
	return "", false
}
