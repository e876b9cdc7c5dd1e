// Command pendingami shows problem 5 (karpenter-provider-aws #7652): a
// name-prefix AMI selector matched an image Packer was still building, the
// newest, and Karpenter selected it. Over HTTP against ec2fake, amiselect
// selects only available images, puts deprecated ones last, refuses a
// malformed date instead of panicking, and picks the new image once it is
// available.
package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/examples/internal/cli"
)

func main() { cli.Main(command.Name, run) }

var command = cli.Command{Name: "pendingami", Usage: `Usage: go run ./examples/pendingami

It shows problem 5 (karpenter-provider-aws #7652): a name-prefix AMI
selector matched an image Packer was still building, the newest, and
Karpenter selected it. Over HTTP against ec2fake, amiselect selects only
available images, puts deprecated ones last, refuses a malformed date
instead of panicking, and picks the new image once it is available.
`}

// run parses args (only -h) and runs the demonstration.
func run(ctx context.Context, w io.Writer, args []string) error {
	if help, err := command.Parse(command.FlagSet(), w, args); help || err != nil {
		return err
	}
	return demo(ctx, w)
}

// now fixes the clock, so that deprecation is judged the same on every run.
func now() time.Time { return time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC) }

func demo(ctx context.Context, w io.Writer) error {
	fmt.Fprintln(w, `Problem 5, karpenter-provider-aws #7652: an amiSelectorTerm by name prefix matched an image Packer
was still building (state pending). It was the newest, so Karpenter selected it and triggered drift.
A malformed CreationDate would have panicked its sort.`)

	backend := ec2fake.NewWithCatalog(ec2fake.Options{Now: now})
	srv := ec2fake.NewServer(backend)
	defer srv.Close()
	client := ec2fake.NewClient(srv.URL) // a real *ec2.Client, over HTTP

	term := amiselect.Term{Name: "team-base-al2023-*", Owner: "self"}
	// The request without a state filter, as Karpenter sent it before v1.3.0.
	images, err := describe(ctx, client, &ec2.DescribeImagesInput{
		Owners:            []string{term.Owner},
		Filters:           []ec2types.Filter{{Name: aws.String("name"), Values: []string{term.Name}}},
		IncludeDeprecated: aws.Bool(true),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\n1. DescribeImages owner %s, name=%s, no state filter: %d images\n", term.Owner, term.Name, len(images))
	for _, img := range images {
		fmt.Fprintf(w, "    %s  %-31s %-9s %-28s deprecated %s\n", aws.ToString(img.ImageId), aws.ToString(img.Name),
			img.State, aws.ToString(img.CreationDate), orNone(aws.ToString(img.DeprecationTime)))
	}
	fmt.Fprintln(w, "\n2. amiselect.Select on those images:")
	printSelection(w, amiselect.Select(images, amiselect.SelectOptions{Now: now}), images)

	if err := resolve(ctx, w, client, term, "\n3. amiselect.Resolve"); err != nil {
		return err
	}
	if err := backend.SetImageState(ec2fake.ImageTeamBasePending, ec2types.ImageStateAvailable); err != nil {
		return err
	}
	return resolve(ctx, w, client, term, "\n4. Packer finishes, "+ec2fake.ImageTeamBasePending+" becomes available; amiselect.Resolve")
}

// resolve prints the request amiselect sends for term, and the selection
// Resolve makes from its answer.
func resolve(ctx context.Context, w io.Writer, client *ec2.Client, term amiselect.Term, title string) error {
	qs, err := amiselect.Queries([]amiselect.Term{term}, amiselect.QueryOptions{})
	if err != nil {
		return err
	}
	request := []string{fmt.Sprintf("owners %v", qs[0].Owners)}
	for _, f := range qs[0].Filters {
		request = append(request, aws.ToString(f.Name)+"="+strings.Join(f.Values, ","))
	}
	images, err := describe(ctx, client, qs[0])
	if err != nil {
		return err
	}
	sel, err := amiselect.Resolve(ctx, client, []amiselect.Term{term}, amiselect.Options{Select: amiselect.SelectOptions{Now: now}})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s:\n    request: %s; %d images\n", title, strings.Join(request, ", "), len(images))
	printSelection(w, sel, images)
	return nil
}

// describe pages through DescribeImages and returns the images by name.
func describe(ctx context.Context, client ec2.DescribeImagesAPIClient, in *ec2.DescribeImagesInput) ([]ec2types.Image, error) {
	var images []ec2types.Image
	pages := ec2.NewDescribeImagesPaginator(client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		images = append(images, page.Images...)
	}
	slices.SortFunc(images, func(a, b ec2types.Image) int { return strings.Compare(aws.ToString(a.Name), aws.ToString(b.Name)) })
	return images, nil
}

// printSelection prints the selected AMIs, the rejected images, and the
// valid images of images that lost to a better one with the same
// requirements, with the reason.
func printSelection(w io.Writer, sel amiselect.Selection, images []ec2types.Image) {
	for _, a := range sel.AMIs {
		fmt.Fprintf(w, "    selected  %s %s, created %s\n", a, a.Name, a.Created.Format(time.DateOnly))
	}
	for _, r := range sel.Rejected {
		fmt.Fprintf(w, "    rejected  %s %s: %s: %s\n", r.ImageID, r.Name, r.Kind, r.Reason)
	}
	for _, img := range images {
		id := aws.ToString(img.ImageId)
		alone := amiselect.Select([]ec2types.Image{img}, amiselect.SelectOptions{Now: now}).AMIs
		if len(alone) == 0 || slices.ContainsFunc(sel.AMIs, func(a amiselect.AMI) bool { return a.ID == id }) {
			continue // rejected, or selected
		}
		lost := alone[0]
		i := slices.IndexFunc(sel.AMIs, func(a amiselect.AMI) bool { return a.Requirements.Equal(lost.Requirements) })
		if i < 0 {
			continue // the answers changed between the two requests
		}
		winner := sel.AMIs[i]
		why := "older than"
		if lost.Deprecated && !winner.Deprecated {
			why = "deprecated, so it ranks after the non-deprecated"
		}
		fmt.Fprintf(w, "    passed over %s %s, created %s: %s %s\n", id, lost.Name, lost.Created.Format(time.DateOnly), why, winner.ID)
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
