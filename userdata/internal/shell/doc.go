// Package shell walks a bash script's syntax tree (mvdan.cc/sh/v3/syntax)
// in execution order, keeping the variables whose values are known without
// running anything, and records every call of a command with a given base
// name, with its arguments expanded as bash expands them where they are
// static. It also holds the one quoting rule for bash words ([Quote]).
//
// A [Walker] is used by one goroutine for one script; [Quote] and [Walk]
// are pure.
package shell
