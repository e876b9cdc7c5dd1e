package kubelet

import (
	"fmt"
	"strings"
)

// flag is what the model knows about one kubelet flag.
type flag struct {
	bool bool     // takes no separate value
	in   Releases // the sampled releases that have it
}

// Releases is a set of the sampled kubelet releases: bit 0 v1.24.17, bit
// 1 v1.28.15, bit 2 v1.32.9, bit 3 v1.34.1.
type Releases uint8

// The sampled releases each family's AMIs ship: AL2 AMIs exist for
// Kubernetes 1.24 to 1.32 (AL2 was dropped after 1.32); the others are
// current from 1.28 on.
const (
	ReleasesAL2     Releases = 0b0111
	ReleasesCurrent Releases = 0b1110
)

// shorthands are the kubelet's one-letter flags: -v (klog verbosity,
// takes a value) and -h (help).
var shorthands = map[byte]bool{'v': false, 'h': true}

// Arg is one flag the kubelet accepted, in command-line order, its name
// normalized ('_' read as '-').
type Arg struct {
	Name, Value string
}

// ParseArgs reads the kubelet's argv the way pflag does for the kubelet
// (spf13/pflag flag.go parseLongArg, parseShortArg; the kubelet
// normalizes '_' in names to '-'): "--name=value"; "--name value" for a
// flag that is not a bool, whatever the next word looks like; "--name" for
// a bool; "--" ends the flags. exit is non-empty, naming the cause, when
// the kubelet exits instead of starting: an unknown flag, a single-dash
// long flag ("unknown shorthand flag"), a non-bool flag at the end without
// its value, --help or --version, or a word that is not a flag ("unknown
// command", cmd/kubelet/app/server.go). versioned names a flag only some
// of the sampled releases in releases have. bad is the index of the word
// that makes the kubelet exit, -1 if none.
func ParseArgs(args []string, releases Releases) (flags []Arg, exit, versioned string, bad int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return nil, fmt.Sprintf("the kubelet gets the stray argument %q (\"unknown command\")", args[i+1]), "", i + 1
			}
			return flags, "", versioned, -1
		case !strings.HasPrefix(a, "-") || a == "-":
			return nil, fmt.Sprintf("the kubelet gets the stray argument %q (\"unknown command\"); a bool flag takes its value as --flag=false, and values with spaces need quotes", a), "", i
		case !strings.HasPrefix(a, "--"):
			f, n, why := parseShorthand(a, args[i+1:])
			if why != "" {
				return nil, why, "", i
			}
			flags, i = append(flags, f), i+n
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		name = strings.ReplaceAll(name, "_", "-")
		def, known := lookupFlag(name, releases)
		switch {
		case !known:
			return nil, fmt.Sprintf("the kubelet has no flag --%s (\"unknown flag\")", name), "", i
		case name == "help" || name == "version":
			return nil, fmt.Sprintf("--%s makes the kubelet print and exit", name), "", i
		case def.in&releases != releases && versioned == "":
			versioned = name
		}
		if !hasValue && !def.bool {
			if i+1 >= len(args) {
				return nil, fmt.Sprintf("the kubelet flag --%s has no value (\"flag needs an argument\")", name), "", i
			}
			i++
			value = args[i]
		}
		flags = append(flags, Arg{Name: name, Value: value})
	}
	return flags, "", versioned, -1
}

// lookupFlag returns the flag name when one of releases has it.
func lookupFlag(name string, releases Releases) (flag, bool) {
	def, known := flags[name]
	return def, known && def.in&releases != 0
}

// parseShorthand reads a single-dash argument: only -v (with its value
// attached, after '=', or as the next word) and -h exist. n is the number
// of following words consumed.
func parseShorthand(a string, rest []string) (f Arg, n int, exit string) {
	c := a[1]
	isBool, known := shorthands[c]
	switch {
	case !known:
		return f, 0, fmt.Sprintf("the kubelet reads %q as one-letter flags and has no -%c (\"unknown shorthand flag\"); long flags start with --", a, c)
	case isBool:
		return f, 0, fmt.Sprintf("%s makes the kubelet print its usage and exit", a)
	case len(a) > 2:
		return Arg{Name: "v", Value: strings.TrimPrefix(a[2:], "=")}, 0, ""
	case len(rest) == 0:
		return f, 0, "the kubelet flag -v has no value (\"flag needs an argument\")"
	}
	return Arg{Name: "v", Value: rest[0]}, 1, ""
}
