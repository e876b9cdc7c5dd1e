package kubelet

import (
	"fmt"
	"strconv"
	"strings"
)

// The minor releases of Kubernetes 1.x the tables cover (upstream/README.md
// says where each comes from).
const (
	FirstMinor = 24
	LastMinor  = 36
)

// Releases is a set of kubelet minor releases: bit i is Kubernetes
// 1.(FirstMinor+i). Facts that differ between releases (flags, feature
// gates, eviction signals) are certain for a set only when every release
// in it agrees.
type Releases uint32

// The release sets of the AMI families when the Kubernetes version is not
// known: AL2 AMIs from 1.24 to 1.32 (the last with AL2), the other
// families from 1.28 on.
var (
	ReleasesAll     = Span(FirstMinor, LastMinor)
	ReleasesAL2     = Span(24, 32)
	ReleasesCurrent = Span(28, LastMinor)
)

// Minor returns the set holding only Kubernetes 1.minor; empty when the
// tables do not cover it.
func Minor(minor int) Releases {
	if minor < FirstMinor || minor > LastMinor {
		return 0
	}
	return 1 << (minor - FirstMinor)
}

// Span returns the releases from 1.lo to 1.hi, both included, that the
// tables cover.
func Span(lo, hi int) Releases {
	var r Releases
	for m := max(lo, FirstMinor); m <= min(hi, LastMinor); m++ {
		r |= Minor(m)
	}
	return r
}

// Has reports whether Kubernetes 1.minor is in r.
func (r Releases) Has(minor int) bool { return Minor(minor) != 0 && r&Minor(minor) != 0 }

// String lists r as runs of minors: "1.24–1.28, 1.33"; "none" when empty.
func (r Releases) String() string {
	var runs []string
	for m := FirstMinor; m <= LastMinor; m++ {
		if !r.Has(m) {
			continue
		}
		end := m
		for end < LastMinor && r.Has(end+1) {
			end++
		}
		if end == m {
			runs = append(runs, fmt.Sprintf("1.%d", m))
		} else {
			runs = append(runs, fmt.Sprintf("1.%d–1.%d", m, end))
		}
		m = end
	}
	if len(runs) == 0 {
		return "none"
	}
	return strings.Join(runs, ", ")
}

// ParseMinor reads a Kubernetes minor version as amiselect takes it,
// "1.32": major 1, a minor of one to three digits, no "v", no patch.
func ParseMinor(s string) (int, error) {
	major, minor, ok := strings.Cut(s, ".")
	n, err := strconv.Atoi(minor)
	if !ok || major != "1" || err != nil || n < 0 || len(minor) > 3 || strings.ContainsAny(minor, "+-") {
		hint := ""
		switch t := strings.TrimPrefix(s, "v"); {
		case t != s:
			hint = fmt.Sprintf(" (drop the \"v\": %q)", t)
		case strings.Count(s, ".") == 2:
			hint = fmt.Sprintf(" (drop the patch version: %q)", s[:strings.LastIndex(s, ".")])
		}
		//lint:ignore ST1005 Kubernetes is a proper noun
		return 0, fmt.Errorf("Kubernetes version %q is not a minor version such as \"1.32\"%s", s, hint)
	}
	return n, nil
}

// releaseChars reads one row of a table: one character per release from
// FirstMinor, '.' meaning absent; it returns the releases whose character
// is in set.
func releaseChars(row, set string) Releases {
	var r Releases
	for i := 0; i < len(row) && i <= LastMinor-FirstMinor; i++ {
		if strings.IndexByte(set, row[i]) >= 0 {
			r |= 1 << i
		}
	}
	return r
}
