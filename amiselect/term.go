package amiselect

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/amiselect/internal/eksname"
	"github.com/ec2select/ec2select/compat"
)

// Term selects AMIs, mirroring one entry of an EC2NodeClass's
// amiSelectorTerms. Set exactly one of:
//
//   - ID: one AMI by id;
//   - Name and/or Tags, optionally with Owner: every image whose name
//     matches Name (EC2 wildcards: * any run of characters, ? zero or one
//     character) and which
//     carries every tag in Tags (value "*": any value);
//   - SSMParameter: the name (or ARN) of an SSM parameter whose value is
//     an AMI id, read by [Resolve] through [Options].SSM;
//   - Alias: "family@version", the public EKS AMIs of a family (see the
//     package documentation for the grammar and the names it resolves to).
//
// An alias term must be the only term.
type Term struct {
	ID           string
	Name         string
	Owner        string // account id, "self" or "amazon"; name terms default to self and amazon
	Alias        string
	SSMParameter string
	Tags         map[string]string
}

// QueryOptions configures [Queries]. The zero value is valid for terms
// without an alias.
type QueryOptions struct {
	// KubernetesVersion is the cluster's minor version, such as "1.32".
	// Alias terms need it; it is validated whenever it is set.
	KubernetesVersion string
}

// maxResults is the page size asked of DescribeImages, EC2's maximum.
const maxResults = 1000

// query is one DescribeImages request and the terms it came from, named
// for error messages.
type query struct {
	input *ec2.DescribeImagesInput
	terms string
}

// Queries turns selector terms into DescribeImages requests: one per name,
// tag or alias term, and one for all ID terms together. Every request
// filters on state "available" and sets IncludeDeprecated, so that a
// deprecated image still in use can be found while an image that is still
// being built (or has failed) never is. The requests are fresh on every
// call and their order and contents depend only on the arguments.
//
// Invalid terms give an error naming the term by index and the fix; nothing
// is returned with it. So does an SSMParameter term, whose request
// depends on the parameter's value: [Resolve] reads it.
func Queries(terms []Term, opts QueryOptions) ([]*ec2.DescribeImagesInput, error) {
	qs, err := buildQueries(terms, opts, nil)
	if err != nil {
		return nil, err
	}
	out := make([]*ec2.DescribeImagesInput, len(qs))
	for i, q := range qs {
		out[i] = q.input
	}
	return out, nil
}

// fromSSM holds what SSM said for the terms that need it: the AMI id of
// each SSMParameter term, by index, the terms whose parameter SSM does
// not have and which match nothing, and, when the alias resolves through
// SSM, the image ids of its parameters.
type fromSSM struct {
	terms      map[int]string
	missing    []MissingParameter
	aliasBySSM bool
	aliasIDs   []string
}

// skipped reports whether term i matches nothing because its parameter is
// missing.
func (f *fromSSM) skipped(i int) bool {
	return f != nil && slices.ContainsFunc(f.missing, func(m MissingParameter) bool { return m.Term == i })
}

// checkTerms validates the terms and the Kubernetes version on their own.
func checkTerms(terms []Term, opts QueryOptions) (minorVersion, error) {
	if len(terms) == 0 {
		return minorVersion{}, errors.New("amiselect: no selector terms; give at least one term with an id, name, tags, ssmParameter or alias")
	}
	var k8s minorVersion
	if opts.KubernetesVersion != "" {
		v, err := parseMinorVersion(opts.KubernetesVersion)
		if err != nil {
			return minorVersion{}, err
		}
		k8s = v
	}
	for i, t := range terms {
		if err := validateTerm(i, t, len(terms)); err != nil {
			return minorVersion{}, err
		}
	}
	if terms[0].Alias != "" {
		if _, err := parseAlias(terms[0].Alias, opts.KubernetesVersion, k8s); err != nil {
			return minorVersion{}, fmt.Errorf("amiselect: term 0: %w", err)
		}
	}
	return k8s, nil
}

// buildQueries validates the terms and builds their requests. ssm holds
// the values SSM gave; nil means none were read, so an SSMParameter term
// is an error.
func buildQueries(terms []Term, opts QueryOptions, ssm *fromSSM) ([]query, error) {
	k8s, err := checkTerms(terms, opts)
	if err != nil {
		return nil, err
	}
	if alias := terms[0].Alias; alias != "" {
		if ssm != nil && ssm.aliasBySSM {
			return idQueries(ssm.aliasIDs, fmt.Sprintf("term 0 (alias %q through SSM)", alias)), nil
		}
		spec, _ := parseAlias(alias, opts.KubernetesVersion, k8s) // checked above
		return []query{aliasQuery(spec, opts.KubernetesVersion)}, nil
	}

	var qs []query
	var ids []string
	var idTerms []string
	for i, t := range terms {
		switch {
		case t.ID != "":
			ids = append(ids, t.ID)
			idTerms = append(idTerms, strconv.Itoa(i))
		case t.SSMParameter != "":
			if ssm.skipped(i) {
				continue
			}
			id, ok := "", false
			if ssm != nil {
				id, ok = ssm.terms[i]
			}
			if !ok {
				return nil, fmt.Errorf("amiselect: term %d: ssmParameter %q names an SSM parameter, whose value only Resolve can read; call Resolve with Options.SSM set", i, t.SSMParameter)
			}
			ids = append(ids, id)
			idTerms = append(idTerms, strconv.Itoa(i))
		default:
			qs = append(qs, query{input: selectorQuery(t), terms: describeTerm(i, t)})
		}
	}
	if len(ids) > 0 {
		label := "term " + idTerms[0] + " (id)"
		if len(idTerms) > 1 {
			label = "terms " + strings.Join(idTerms, ", ") + " (ids)"
		}
		// IDs go first, as one request, whatever their position.
		qs = append([]query{idQuery(ids, label)}, qs...)
	}
	return qs, nil
}

// idQuery is the one request for images by id.
func idQuery(ids []string, label string) query {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	in := &ec2.DescribeImagesInput{
		Filters:           []ec2types.Filter{filter("image-id", ids...), availableFilter()},
		IncludeDeprecated: aws.Bool(true),
		MaxResults:        aws.Int32(maxResults),
	}
	return query{input: in, terms: label}
}

// validateTerm checks one term on its own and against how many terms there
// are.
func validateTerm(i int, t Term, n int) error {
	hasTags := len(t.Tags) > 0
	switch {
	case t.Alias != "":
		if t.ID != "" || t.Name != "" || t.Owner != "" || t.SSMParameter != "" || hasTags {
			return fmt.Errorf("amiselect: term %d: alias %q cannot be combined with id, name, owner, ssmParameter or tags; put the alias in a term of its own", i, t.Alias)
		}
		if n > 1 {
			return fmt.Errorf("amiselect: term %d: alias %q must be the only term; select other AMIs in a separate selection", i, t.Alias)
		}
	case t.SSMParameter != "":
		// Karpenter reads only the parameter of such a term and ignores
		// its other fields (pkg/providers/amifamily/ami.go); say so.
		if t.ID != "" || t.Name != "" || t.Owner != "" || hasTags {
			return fmt.Errorf("amiselect: term %d: ssmParameter %q cannot be combined with id, name, owner or tags; the parameter names one AMI, so drop the other fields", i, t.SSMParameter)
		}
		if strings.TrimSpace(t.SSMParameter) != t.SSMParameter {
			return fmt.Errorf("amiselect: term %d: ssmParameter %q has surrounding spaces; remove them", i, t.SSMParameter)
		}
	case t.ID != "":
		if t.Name != "" || t.Owner != "" || hasTags {
			return fmt.Errorf("amiselect: term %d: id %q cannot be combined with name, owner or tags; an id selects exactly one AMI, so drop the other fields", i, t.ID)
		}
		if !isAMIID(t.ID) {
			return fmt.Errorf("amiselect: term %d: id %q is not an AMI id: Karpenter's EC2NodeClass requires one to match ami-[0-9a-z]+; use the image's id, such as \"ami-0123456789abcdef0\"", i, t.ID)
		}
	case t.Name == "" && !hasTags:
		if t.Owner != "" {
			return fmt.Errorf("amiselect: term %d: owner %q alone selects nothing; add a name or tags", i, t.Owner)
		}
		return fmt.Errorf("amiselect: term %d is empty; set an id, a name, tags, an ssmParameter or an alias", i)
	}
	for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
		if k == "" {
			return fmt.Errorf("amiselect: term %d: a tag has an empty key; remove it or name the tag", i)
		}
		if t.Tags[k] == "" {
			return fmt.Errorf("amiselect: term %d: tag %q has an empty value; use \"*\" to match any value", i, k)
		}
	}
	if strings.TrimSpace(t.Owner) != t.Owner {
		return fmt.Errorf("amiselect: term %d: owner %q has surrounding spaces; remove them", i, t.Owner)
	}
	return nil
}

// isAMIID reports whether s is an AMI id as Karpenter's EC2NodeClass CRD
// admits one: its amiSelectorTerms id pattern is ami-[0-9a-z]+, which the
// API server matches unanchored (Go's regexp MatchString), so the id must
// contain "ami-" followed by a lowercase letter or digit, and may carry
// anything around it ("ami-id-amd64" in Karpenter's tests). EC2's own ids
// ("ami-" and 8 or 17 lowercase hex digits) are a small part of that.
func isAMIID(s string) bool {
	for {
		i := strings.Index(s, "ami-")
		if i < 0 {
			return false
		}
		s = s[i+len("ami-"):]
		if s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] >= 'a' && s[0] <= 'z') {
			return true
		}
	}
}

// hasAMIPrefix reports whether an SSM parameter's value can name an
// image, by Karpenter's rule for ssmParameter terms: it starts with
// "ami-" (aws/karpenter-provider-aws pkg/providers/amifamily/ami.go:129
// @v1.14.1), so mixed case such as Karpenter's fake SSM returns passes.
func hasAMIPrefix(s string) bool {
	return strings.HasPrefix(s, "ami-")
}

// selectorQuery builds the request for a name and/or tag term.
func selectorQuery(t Term) *ec2.DescribeImagesInput {
	in := &ec2.DescribeImagesInput{
		IncludeDeprecated: aws.Bool(true),
		MaxResults:        aws.Int32(maxResults),
	}
	if t.Name != "" {
		in.Filters = append(in.Filters, filter("name", t.Name))
	}
	for _, k := range slices.Sorted(maps.Keys(t.Tags)) {
		if v := t.Tags[k]; v == "*" {
			in.Filters = append(in.Filters, filter("tag-key", k))
		} else {
			in.Filters = append(in.Filters, filter("tag:"+k, v))
		}
	}
	in.Filters = append(in.Filters, availableFilter())
	switch {
	case t.Owner != "":
		in.Owners = []string{t.Owner}
	case t.Name != "":
		in.Owners = []string{"self", "amazon"}
	}
	return in
}

func describeTerm(i int, t Term) string {
	var parts []string
	if t.Name != "" {
		parts = append(parts, fmt.Sprintf("name %q", t.Name))
	}
	if len(t.Tags) > 0 {
		parts = append(parts, fmt.Sprintf("%d tags", len(t.Tags)))
	}
	if t.Owner != "" {
		parts = append(parts, fmt.Sprintf("owner %q", t.Owner))
	}
	return fmt.Sprintf("term %d (%s)", i, strings.Join(parts, ", "))
}

func filter(name string, values ...string) ec2types.Filter {
	return ec2types.Filter{Name: aws.String(name), Values: values}
}

func availableFilter() ec2types.Filter {
	return filter("state", string(ec2types.ImageStateAvailable))
}

// minorVersion is a parsed "1.NN" Kubernetes version.
type minorVersion struct{ major, minor int }

func parseMinorVersion(s string) (minorVersion, error) {
	major, minor, ok := strings.Cut(s, ".")
	if !ok || !eksname.IsNumber(major) || !eksname.IsNumber(minor) || len(minor) > 3 || major != "1" {
		hint := ""
		if t := strings.TrimPrefix(s, "v"); t != s && eksname.IsK8sVersion(t) {
			hint = fmt.Sprintf(" (drop the \"v\": %q)", t)
		} else if parts := strings.Split(s, "."); len(parts) == 3 && eksname.IsK8sVersion(parts[0]+"."+parts[1]) {
			hint = fmt.Sprintf(" (drop the patch version: %q)", parts[0]+"."+parts[1])
		}
		return minorVersion{}, fmt.Errorf("amiselect: Kubernetes version %q is not a minor version such as \"1.32\"%s", s, hint)
	}
	m, _ := strconv.Atoi(minor)
	return minorVersion{major: 1, minor: m}, nil
}

// The Kubernetes versions that bound a family's AMIs.
const (
	al2LastMinor          = 32 // compat.AL2 AMIs end with Kubernetes 1.32
	windows2025FirstMinor = 35 // Windows Server 2025 AMIs start with Kubernetes 1.35
)

// aliasSpec is a parsed, checked alias.
type aliasSpec struct {
	alias  string
	family compat.AMIFamily
	// pinned is the release in the names' format ("v20250403",
	// "v1.26.2", "v1.26.2-360b7a38"), or "" for latest.
	pinned string
}

// parseAlias parses "family@version" and checks it against the
// Kubernetes version.
func parseAlias(alias, k8sText string, k8s minorVersion) (aliasSpec, error) {
	family, version, ok := strings.Cut(alias, "@")
	if !ok || family == "" || version == "" {
		return aliasSpec{}, fmt.Errorf("alias %q is not family@version; use e.g. \"al2023@latest\"", alias)
	}
	f, ok := aliasFamily(family)
	if !ok {
		hint := ""
		if lower := strings.ToLower(family); lower != family {
			if _, ok := aliasFamily(lower); ok {
				hint = fmt.Sprintf(" (families are lowercase: %q)", lower)
			}
		}
		return aliasSpec{}, fmt.Errorf("alias %q: unknown family %q%s; use al2, al2023, bottlerocket, windows2019, windows2022 or windows2025", alias, family, hint)
	}
	pinned, err := aliasVersion(f, version)
	if err != nil {
		return aliasSpec{}, fmt.Errorf("alias %q: %w", alias, err)
	}
	if k8sText == "" {
		return aliasSpec{}, fmt.Errorf("alias %q needs QueryOptions.KubernetesVersion, the cluster's minor version such as \"1.32\", because each family publishes AMIs per Kubernetes version", alias)
	}
	if err := versionGate(alias, f, k8sText, k8s); err != nil {
		return aliasSpec{}, err
	}
	return aliasSpec{alias: alias, family: f, pinned: pinned}, nil
}

// aliasQuery is the request for an alias's public AMI names.
func aliasQuery(spec aliasSpec, k8s string) query {
	in := &ec2.DescribeImagesInput{
		Owners:            []string{"amazon"},
		Filters:           []ec2types.Filter{filter("name", aliasNames(spec.family, k8s, spec.pinned)...), availableFilter()},
		IncludeDeprecated: aws.Bool(true),
		MaxResults:        aws.Int32(maxResults),
	}
	return query{input: in, terms: fmt.Sprintf("term 0 (alias %q)", spec.alias)}
}

// aliasFamily returns the family an alias names: its lowercase name, as
// Karpenter's alias grammar requires.
func aliasFamily(name string) (compat.AMIFamily, bool) {
	for _, f := range compat.AMIFamilies() {
		if a := f.Alias(); a != "" && a == name {
			return f, true
		}
	}
	return "", false
}

// aliasVersion validates an alias's version and returns the release it
// pins in the family's name format ("v20250403", "v1.26.2", "v1.26.2-360b7a38"),
// or "" for latest.
func aliasVersion(f compat.AMIFamily, version string) (string, error) {
	if version == "latest" {
		return "", nil
	}
	switch f {
	case compat.AL2, compat.AL2023:
		if len(version) == 9 && version[0] == 'v' && eksname.IsDigits(version[1:]) {
			if _, err := time.Parse("20060102", version[1:]); err == nil {
				return version, nil
			}
		}
		hint := ""
		if len(version) == 8 && eksname.IsDigits(version) {
			hint = fmt.Sprintf(" (add the \"v\": \"v%s\")", version)
		}
		return "", fmt.Errorf("version %q is not \"latest\" or a release date such as \"v20250403\"%s", version, hint)
	case compat.Bottlerocket:
		v := strings.TrimPrefix(version, "v")
		semver, commit, hasCommit := strings.Cut(v, "-")
		if eksname.IsSemver(semver) && (!hasCommit || isLowerHex(commit)) {
			return "v" + v, nil
		}
		return "", fmt.Errorf("version %q is not \"latest\" or a Bottlerocket release such as \"v1.26.2\" (optionally with its build, \"v1.26.2-360b7a38\")", version)
	}
	return "", fmt.Errorf("version %q: only the latest release of the Windows AMIs is published; use %s@latest", version, f.Alias())
}

func isLowerHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// aliasNames returns the name patterns of a family's public EKS AMIs for
// one Kubernetes version, every architecture and variant, in a fixed
// order. pinned is the release in the names' format, or "" for any
// release.
func aliasNames(f compat.AMIFamily, k8s, pinned string) []string {
	switch f {
	case compat.AL2, compat.AL2023:
		release := "v*"
		if pinned != "" {
			release = pinned
		}
		if f == compat.AL2 {
			return []string{
				"amazon-eks-node-" + k8s + "-" + release,
				"amazon-eks-arm64-node-" + k8s + "-" + release,
				"amazon-eks-gpu-node-" + k8s + "-" + release,
			}
		}
		names := make([]string, 0, 5)
		for _, av := range []string{"x86_64-standard", "x86_64-nvidia", "x86_64-neuron", "arm64-standard", "arm64-nvidia"} {
			names = append(names, "amazon-eks-node-al2023-"+av+"-"+k8s+"-"+release)
		}
		return names
	case compat.Bottlerocket:
		release := "v*"
		switch {
		case pinned == "":
		case strings.Contains(pinned, "-"):
			release = pinned
		default:
			release = pinned + "-*"
		}
		names := make([]string, 0, 4)
		for _, v := range []string{"x86_64", "aarch64", "nvidia-x86_64", "nvidia-aarch64"} {
			names = append(names, "bottlerocket-aws-k8s-"+k8s+"-"+v+"-"+release)
		}
		return names
	}
	year := strings.TrimPrefix(string(f), "Windows")
	return []string{"Windows_Server-" + year + "-English-Core-EKS_Optimized-" + k8s + "-*"}
}
