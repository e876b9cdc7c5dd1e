package kubelet

import (
	"fmt"
	"strings"
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
// command", cmd/kubelet/app/server.go). versioned names a flag not known
// to be in every release of releases (or that is a bool in only some).
// bad is the index of the word that makes the kubelet exit, -1 if none.
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
		in, unknown, isBool := lookupFlag(name, releases)
		switch {
		case in == 0 && unknown == 0:
			return nil, fmt.Sprintf("the kubelet has no flag --%s (\"unknown flag\")", name), "", i
		case name == "help" || name == "version":
			return nil, fmt.Sprintf("--%s makes the kubelet print and exit", name), "", i
		case in != releases && versioned == "":
			versioned = name
		}
		if !hasValue && !isBool {
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

// lookupFlag returns the releases among releases that have the flag
// name, those where the table does not know, and whether it is a bool
// where it is there (takes no separate value); a flag that is a bool in
// some releases and takes a value in others is counted only where it is a
// bool, so that the others make it versioned.
func lookupFlag(name string, releases Releases) (in, unknown Releases, isBool bool) {
	row, ok := flagTable()[name]
	if !ok {
		return 0, 0, false
	}
	unknown = releaseChars(row, "?") & releases
	bools, values := releaseChars(row, "b")&releases, releaseChars(row, "v")&releases
	if bools != 0 {
		return bools, unknown, true
	}
	return values, unknown, false
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
