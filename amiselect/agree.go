package amiselect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
)

// AliasDifference is one requirement set (an architecture and variant)
// for which an alias resolved by name and through SSM selects different
// images.
type AliasDifference struct {
	Arch    string
	Variant Variant
	// ByName and BySSM are the AMIs each way selects for the set; the
	// zero AMI (empty ID) means that way selects none.
	ByName, BySSM AMI
	// Reason says how they differ, such as "SSM recommends an older
	// release (v20250317) than the newest available by name (v20250403)".
	Reason string
}

// CompareAliasSources resolves an alias term both ways, by name and
// through SSM (opts.SSM, which must be set; opts.Aliases is ignored), and
// returns, per requirement set, where the two select different images,
// ordered by architecture and variant. No differences means the two agree
// on every set. Both resolutions judge deprecation at the same instant.
//
// An error from either resolution is returned whole, naming the way that
// failed; the differences are data, not errors.
func CompareAliasSources(ctx context.Context, client ec2.DescribeImagesAPIClient, alias string, opts Options) ([]AliasDifference, error) {
	if opts.SSM == nil {
		return nil, errors.New("amiselect: CompareAliasSources needs Options.SSM, an SSM client such as *ssm.Client, to read the alias's public parameters")
	}
	now := time.Now
	if opts.Select.Now != nil {
		now = opts.Select.Now
	}
	at := now()
	opts.Select.Now = func() time.Time { return at }
	terms := []Term{{Alias: alias}}

	opts.Aliases = AliasByName
	byName, err := Resolve(ctx, client, terms, opts)
	if err != nil {
		return nil, fmt.Errorf("amiselect: comparing alias %q, by name: %w", alias, err)
	}
	opts.Aliases = AliasBySSM
	bySSM, err := Resolve(ctx, client, terms, opts)
	if err != nil {
		return nil, fmt.Errorf("amiselect: comparing alias %q, through SSM: %w", alias, err)
	}
	return differences(byName.AMIs, bySSM.AMIs), nil
}

// differences pairs two selections' AMIs by requirement set and explains
// each set where their images differ.
func differences(byName, bySSM []AMI) []AliasDifference {
	sets := map[setKey]*AliasDifference{}
	at := func(a *AMI) *AliasDifference {
		k := keyOf(a)
		d, ok := sets[k]
		if !ok {
			d = &AliasDifference{Arch: a.Arch, Variant: a.Variant}
			sets[k] = d
		}
		return d
	}
	for i := range byName {
		at(&byName[i]).ByName = byName[i]
	}
	for i := range bySSM {
		at(&bySSM[i]).BySSM = bySSM[i]
	}
	var out []AliasDifference
	for _, d := range sets {
		if d.ByName.ID == d.BySSM.ID {
			continue
		}
		d.Reason = differenceReason(&d.ByName, &d.BySSM)
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b AliasDifference) int {
		return cmp.Or(cmp.Compare(a.Arch, b.Arch), cmp.Compare(a.Variant, b.Variant),
			cmp.Compare(a.ByName.Family.WindowsBuild()+a.BySSM.Family.WindowsBuild(), b.ByName.Family.WindowsBuild()+b.BySSM.Family.WindowsBuild()))
	})
	return out
}

func differenceReason(byName, bySSM *AMI) string {
	what := bySSM.Arch + " " + bySSM.Variant.String()
	switch {
	case bySSM.ID == "":
		return fmt.Sprintf("SSM publishes no parameter for the %s %s image; by name, %s", byName.Arch, byName.Variant, release(byName))
	case byName.ID == "":
		return fmt.Sprintf("no image name matches the %s image SSM names (%s)", what, release(bySSM))
	case bySSM.Created.Before(byName.Created):
		return fmt.Sprintf("SSM recommends an older release (%s) than the newest available by name (%s)", release(bySSM), release(byName))
	case bySSM.Created.After(byName.Created):
		return fmt.Sprintf("SSM names a newer release (%s) than any found by name (%s)", release(bySSM), release(byName))
	}
	return fmt.Sprintf("SSM names %s and the names select %s, both created %s", release(bySSM), release(byName), bySSM.Created.Format(time.RFC3339))
}

// release names an AMI's release, or its image when it has none.
func release(a *AMI) string {
	if a.Release != "" {
		return a.Release + ", " + a.ID
	}
	return a.Name + ", " + a.ID
}
