package amiselect

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// MinAge through SSM. A public parameter names one image, the release AWS
// recommends now; a soak needs the releases before it, to keep serving
// the newest one old enough. SSM keeps them: each version of the
// parameter is a release it named, and GetParameterHistory lists them,
// oldest first, the last being its value now. (The release-named
// parameters, .../amazon-eks-node-al2023-x86_64-standard-1.32-v20250403/
// image_id, hold the same ids, but finding their names takes
// GetParametersByPath over every release AWS ever published, and Windows
// has none: ec2fake/ssmpublic.go sets the layout out with its sources.)

// SSMHistoryClient is an [SSMClient] that can also read a parameter's
// history. [Resolve] needs one to apply [SelectOptions].MinAge to an alias
// resolved through SSM; *ssm.Client satisfies it (IAM action
// ssm:GetParameterHistory).
type SSMHistoryClient interface {
	SSMClient
	ssm.GetParameterHistoryAPIClient
}

// ErrMinAgeNeedsHistory is wrapped by the error [Resolve] returns when
// MinAge is set for an alias resolved through SSM ([AliasBySSM]) and
// [Options].SSM cannot read a parameter's history (it is no
// [SSMHistoryClient]): the soak cannot be applied, and is never silently
// ignored.
var ErrMinAgeNeedsHistory = errors.New("MinAge through SSM needs GetParameterHistory")

// maxHistoryResults is GetParameterHistory's page size limit.
const maxHistoryResults = 50

// soakHistory is what the public parameters of an alias named, each
// parameter's versions in order, for a soak.
type soakHistory struct {
	params []parameterVersions
}

// parameterVersions is the image ids one parameter named, oldest first;
// the last is its value now.
type parameterVersions struct {
	name   string
	values []string
}

// readSoakHistory reads the history of every public parameter of the
// alias terms resolve through SSM, when opts sets a MinAge; nil when
// there is no soak or no alias through SSM. Terms and options have been
// checked.
func readSoakHistory(ctx context.Context, terms []Term, opts Options) (*soakHistory, error) {
	if opts.Select.MinAge <= 0 || opts.Aliases != AliasBySSM || terms[0].Alias == "" {
		return nil, nil
	}
	k8s, _ := parseMinorVersion(opts.Query.KubernetesVersion)
	spec, _ := parseAlias(terms[0].Alias, opts.Query.KubernetesVersion, k8s)
	fail := func(err error) (*soakHistory, error) {
		return nil, fmt.Errorf("amiselect: term 0 (alias %q through SSM): %w", spec.alias, err)
	}
	client, ok := opts.SSM.(SSMHistoryClient)
	if !ok {
		return fail(fmt.Errorf("MinAge (%v) holds back releases younger than it, which needs the releases each public parameter named before its current one, "+
			"and Options.SSM (%T) has no GetParameterHistory to read them; pass a client that has it, such as *ssm.Client, "+
			"resolve the alias by name (Options.Aliases = AliasByName), or set MinAge to 0: %w", opts.Select.MinAge, opts.SSM, ErrMinAgeNeedsHistory))
	}
	h := &soakHistory{}
	for _, name := range aliasParameters(spec, opts.Query.KubernetesVersion) {
		values, err := readHistory(ctx, client, name, opts.UntypedNotFound)
		if err != nil {
			return fail(err)
		}
		if len(values) > 0 {
			h.params = append(h.params, parameterVersions{name: name, values: values})
		}
	}
	return h, nil
}

// readHistory pages through one parameter's history and returns the
// image ids it named, oldest first. A parameter SSM does not have (by
// notFound, untyped as Options.UntypedNotFound) has no history, as
// readAliasParameters treats it; a version whose value is no AMI id names
// no image and is skipped.
func readHistory(ctx context.Context, client ssm.GetParameterHistoryAPIClient, name string, untyped bool) ([]string, error) {
	in := &ssm.GetParameterHistoryInput{Name: aws.String(name), MaxResults: aws.Int32(maxHistoryResults)}
	p := ssm.NewGetParameterHistoryPaginator(client, in, func(o *ssm.GetParameterHistoryPaginatorOptions) { o.StopOnDuplicateToken = true })
	var versions []ssmtypes.ParameterHistory
	for p.HasMorePages() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, err := p.NextPage(ctx)
		if notFound(err, untyped) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the history of public parameter %q: %w", name, err)
		}
		versions = append(versions, out.Parameters...)
	}
	slices.SortStableFunc(versions, func(a, b ssmtypes.ParameterHistory) int { return int(a.Version - b.Version) })
	var values []string
	for _, v := range versions {
		if value := aws.ToString(v.Value); hasAMIPrefix(value) {
			values = append(values, value)
		}
	}
	return values, nil
}

// ids lists every image id the history names, sorted, once each.
func (h *soakHistory) ids() []string {
	var out []string
	for _, p := range h.params {
		out = append(out, p.values...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// candidates keeps the images a soak may select: for each parameter, the
// image it names now and each image it named before that does not rank
// above it by the rule without a soak (newest, then greatest name, then
// smallest ID). A release newer than the current value is one SSM named
// and then withdrew, so it never serves; and a parameter whose current
// image EC2 does not describe as available offers nothing, as without a
// soak. Without MinAge, Select over what is kept selects each
// parameter's current image, so MinAge only ever holds back.
//
// current lists the ids the parameters hold now, as read before the
// history: if a parameter moved in between, both are kept.
func (h *soakHistory) candidates(images []ec2types.Image, current []string) []ec2types.Image {
	byID := make(map[string]*ec2types.Image, len(images))
	for i := range images {
		byID[aws.ToString(images[i].ImageId)] = &images[i]
	}
	keep := map[string]bool{}
	for _, id := range current {
		keep[id] = true
	}
	for _, p := range h.params {
		id := p.values[len(p.values)-1]
		cur := byID[id]
		if cur == nil {
			continue
		}
		keep[id] = true
		var now cand
		var arch string
		if !admitCand(cur, &now, &arch, nil) {
			continue // Select refuses it, with its reason
		}
		for _, old := range p.values {
			if img := byID[old]; img != nil && !ranksAbove(img, &now) {
				keep[old] = true
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(images), func(img ec2types.Image) bool { return !keep[aws.ToString(img.ImageId)] })
}

// ranksAbove reports whether img is newer than c by the rule without a
// soak or deprecation; an image Select refuses ranks nowhere.
func ranksAbove(img *ec2types.Image, c *cand) bool {
	var o cand
	var arch string
	return admitCand(img, &o, &arch, nil) && o.newer(c)
}

// idQueries is the requests for images by id, at most maxImageIDFilter
// ids each (EC2's limit on one filter's values).
func idQueries(ids []string, label string) []query {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var qs []query
	for chunk := range slices.Chunk(ids, maxImageIDFilter) {
		qs = append(qs, idQuery(chunk, label))
	}
	return qs
}
