package cli_test

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/ec2select/ec2select/examples/internal/cli"
)

// An example's entry point: -h prints the usage, anything else unexpected
// is a usage error with exit status 2.
func Example() {
	command := cli.Command{Name: "hello", Usage: "Usage: go run ./examples/hello [-name NAME]\n"}
	run := func(ctx context.Context, w io.Writer, args []string) error {
		fs := command.FlagSet()
		name := fs.String("name", "world", "who to greet")
		if help, err := command.Parse(fs, w, args); help || err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "hello, %s\n", *name)
		return err
	}
	for _, args := range [][]string{{"-name", "EC2"}, {"-h"}, {"extra"}} {
		err := run(context.Background(), os.Stdout, args)
		fmt.Println("exit", cli.ExitCode(err))
	}
	// Output:
	// hello, EC2
	// exit 0
	// Usage: go run ./examples/hello [-name NAME]
	//
	// Flags:
	//   -name string
	//     	who to greet (default "world")
	// exit 0
	// exit 2
}

// -nodes as preflight and explain read it: image ids, each with the
// number of nodes running it when the caller knows it.
func ExampleParseNodes() {
	nodes, err := cli.ParseNodes("ami-0b3122f71186d8752=6,ami-0b315b27118709bc2")
	fmt.Println(nodes, err)
	_, err = cli.ParseNodes("ami-0abc=3,i-0123")
	fmt.Println(err)
	// Output:
	// [{ami-0b3122f71186d8752 6} {ami-0b315b27118709bc2 0}] <nil>
	// entry 2: "i-0123" is not an AMI id; write ami-id or ami-id=count, as in ami-0abc=3,ami-0def
}
