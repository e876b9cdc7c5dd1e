// Package cli is the command line the examples share, so that each one
// behaves the same way: -h prints the usage and exits 0; an unknown flag, a
// stray argument or bad input exits 2 with the reason (and the usage, for a
// bad command line); any other failure exits 1; and everything -live does
// is bounded by -timeout through its context.
//
// Each example's entry point is a [Run]: main calls [Main] with it, and
// tests call it directly with their own arguments.
//
// What more than one example needs has one home here: the -live flags
// ([Live]); the offline answer, a fake EC2 of every recorded EKS AMI
// release ([Offline]); the soak time and running images ([Rollout],
// [ParseNodes]); how an EC2NodeClass launches nodes, for capacity
// estimates ([Launch]); and the words of reports ([Count], [AMIs]).
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// Run is an example's whole program: it writes its report (or, for -h, its
// usage) to w and returns an error for [ExitCode] to classify.
type Run func(ctx context.Context, w io.Writer, args []string) error

// Main runs run with the process's arguments, stdout and a context that
// ends on an interrupt, prints any error to stderr prefixed with name, and
// exits with [ExitCode]. A bad command line is followed by the usage.
func Main(name string, run Run) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Stdout, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		var ue *UsageError
		if errors.As(err, &ue) && ue.Usage != "" {
			fmt.Fprintf(os.Stderr, "\n%s", ue.Usage)
		}
	}
	os.Exit(ExitCode(err))
}

// ExitCode is the exit status for err: 0 for none, 2 for a *[UsageError]
// or *[InputError], 1 for anything else.
func ExitCode(err error) int {
	var ue *UsageError
	var ie *InputError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue), errors.As(err, &ie):
		return 2
	}
	return 1
}

// UsageError is a bad command line. Usage, when set, is the usage text
// [Main] prints after the error.
type UsageError struct {
	Err   error
	Usage string
}

func (e *UsageError) Error() string { return e.Err.Error() + " (run with -h for help)" }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *[UsageError] with the formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// InputError is input the program cannot read (a file, a manifest), as
// opposed to a bad command line; its message names the input.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Inputf returns an *[InputError] with the formatted message.
func Inputf(format string, args ...any) error {
	return &InputError{Err: fmt.Errorf(format, args...)}
}

// Command describes one example's command line.
type Command struct {
	// Name is the example's directory name, as in go run ./examples/NAME.
	Name string
	// Usage is the text before the flag list: the synopsis line and what the
	// example does. It should end with a newline.
	Usage string
	// Args names the positional arguments the example takes, for the
	// error; empty means it takes none.
	Args string
}

// FlagSet returns an empty flag set for c that reports errors instead of
// printing them or exiting.
func (c Command) FlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Parse parses args into fs. For -h (or -help) it writes the usage to w and
// returns help true; the caller then returns nil. An unknown flag, a bad
// flag value or, when c takes no arguments, any argument is a *[UsageError]
// carrying the usage.
func (c Command) Parse(fs *flag.FlagSet, w io.Writer, args []string) (help bool, err error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, err := io.WriteString(w, c.usage(fs))
			return true, err
		}
		return false, &UsageError{Err: err, Usage: c.usage(fs)}
	}
	if c.Args == "" && fs.NArg() > 0 {
		return false, &UsageError{
			Err:   fmt.Errorf("unexpected argument %q; %s takes no arguments, only flags (quote flag values that contain spaces or *)", fs.Arg(0), c.Name),
			Usage: c.usage(fs),
		}
	}
	return false, nil
}

// usage is the help text: c.Usage, then every flag.
func (c Command) usage(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString(c.Usage)
	var any bool
	fs.VisitAll(func(*flag.Flag) { any = true })
	if !any {
		b.WriteString("\nIt takes no flags but -h.\n")
		return b.String()
	}
	b.WriteString("\nFlags:\n")
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// Set reports the flags given on the command line, by name.
func Set(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
