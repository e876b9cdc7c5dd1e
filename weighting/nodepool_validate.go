package weighting

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/validation"
	"github.com/ec2select/ec2select/userdata"
)

// Karpenter's limits on a NodePool (karpenter.sh/v1 CRD, v1.14).
const (
	maxRequirements = 100 // spec.template.spec.requirements
	maxLabels       = 100 // spec.template.metadata.labels
	maxKeyLength    = 316 // a requirement's key
	maxBudgets      = 50  // spec.disruption.budgets, and a budget's reasons
	// maxAnnotationBytes is the API server's limit on an object's
	// annotations, keys and values together.
	maxAnnotationBytes = 256 * 1024
)

// The CRD's patterns, as written there. Go's \s is ASCII whitespace where
// the API server's (ECMA-262) also takes Unicode spaces, so a schedule
// separated by those is refused here, never wrongly accepted.
var (
	quantityPattern       = regexp.MustCompile(`^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$`)
	nillableDuration      = regexp.MustCompile(`^(([0-9]+(s|m|h))+|Never)$`)
	gracePeriodPattern    = regexp.MustCompile(`^([0-9]+(s|m|h))+$`)
	budgetNodesPattern    = regexp.MustCompile(`^((100|[0-9]{1,2})%|[0-9]+)$`)
	budgetDurationPattern = regexp.MustCompile(`^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`)
	schedulePattern       = regexp.MustCompile(`^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$`)
)

// sortedKeys returns the keys of m in order, and nil, without allocating,
// for the empty maps that most NodePools have.
func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(m))
}

func (np *NodePool) validateMetadata() error {
	if err := poolName(np.Name); err != nil {
		return err
	}
	if err := objectLabels("metadata.labels", np.ObjectLabels); err != nil {
		return err
	}
	return annotations("metadata.annotations", np.ObjectAnnotations)
}

// poolName checks a NodePool's name: a Kubernetes object name that is also
// a label value, since it becomes the karpenter.sh/nodepool label.
func poolName(s string) error {
	if s == "" {
		return errors.New("metadata.name is empty; name it, for example \"default\"")
	}
	if err := validation.DNS1123Subdomain(s); err != nil {
		return fmt.Errorf("metadata.name %q is not a DNS-1123 subdomain (%v); use lower-case letters, digits, '-' and '.'", s, err)
	}
	if len(s) > validation.MaxNameLength {
		return fmt.Errorf("metadata.name %q is %d characters; Karpenter writes it into the karpenter.sh/nodepool label, which allows at most %d", s, len(s), validation.MaxNameLength)
	}
	return nil
}

// objectLabels checks labels as the API server checks any object's.
func objectLabels(path string, labels map[string]string) error {
	for _, k := range sortedKeys(labels) {
		if err := validation.QualifiedName(k); err != nil {
			return fmt.Errorf("%s: key %q: %v", path, k, err)
		}
		if err := validation.LabelValue(labels[k]); err != nil {
			return fmt.Errorf("%s[%s]: value %q: %v", path, k, labels[k], err)
		}
	}
	return nil
}

// annotations checks annotations as the API server checks any object's:
// keys are qualified names once lower-cased, and all of them fit in 256 KiB.
func annotations(path string, m map[string]string) error {
	size := 0
	for _, k := range sortedKeys(m) {
		if err := validation.QualifiedName(strings.ToLower(k)); err != nil {
			return fmt.Errorf("%s: key %q: %v", path, k, err)
		}
		size += len(k) + len(m[k])
	}
	if size > maxAnnotationBytes {
		return fmt.Errorf("%s: %d bytes; the API server allows at most %d, so move large values elsewhere", path, size, maxAnnotationBytes)
	}
	return nil
}

func (np *NodePool) validateSpec() error {
	if np.Weight < 0 || np.Weight > MaxWeight {
		return fmt.Errorf("spec.weight: %d is outside 1–100; use 1–100, or 0 for no weight", np.Weight)
	}
	if np.Replicas != nil {
		switch {
		case *np.Replicas < 0:
			return fmt.Errorf("spec.replicas: %d is negative; use 0 or more", *np.Replicas)
		case np.Weight != 0:
			return errors.New("spec.weight: a static NodePool (spec.replicas set) cannot have a weight; drop one of them")
		}
		for _, k := range sortedKeys(np.Limits) {
			if k != "nodes" {
				return fmt.Errorf("spec.limits[%s]: a static NodePool (spec.replicas set) supports only limits.nodes; drop it", k)
			}
		}
	}
	for _, k := range sortedKeys(np.Limits) {
		if !quantityPattern.MatchString(np.Limits[k]) {
			return fmt.Errorf("spec.limits[%s]: %q is not a Kubernetes quantity; write a number with an optional suffix, such as 1000, 500m or 1000Gi", k, np.Limits[k])
		}
	}
	return np.Disruption.validate(np.disruptionSet())
}

// disruptionSet reports whether spec.disruption is written: a field of it is
// set, here or in Unknown.
func (np *NodePool) disruptionSet() bool {
	if !np.Disruption.zero() {
		return true
	}
	for k := range np.Unknown {
		if strings.HasPrefix(k, "/spec/disruption/") {
			return true
		}
	}
	return false
}

func (d Disruption) zero() bool {
	return d.ConsolidationPolicy == "" && d.ConsolidateAfter == "" && d.Budgets == nil
}

func (d Disruption) validate(set bool) error {
	switch d.ConsolidationPolicy {
	case "", WhenEmpty, WhenEmptyOrUnderutilized, Balanced:
	default:
		return fmt.Errorf("spec.disruption.consolidationPolicy: %q is not one of WhenEmpty, WhenEmptyOrUnderutilized, Balanced", d.ConsolidationPolicy)
	}
	if set && d.ConsolidateAfter == "" {
		return errors.New("spec.disruption.consolidateAfter is required once spec.disruption is written; set it, for example to 0s (at once), 5m or Never")
	}
	if err := duration("spec.disruption.consolidateAfter", d.ConsolidateAfter, nillableDuration, "30s, 5m, 1h30m or Never"); err != nil {
		return err
	}
	if len(d.Budgets) > maxBudgets {
		return fmt.Errorf("spec.disruption.budgets: %d budgets; Karpenter allows at most %d", len(d.Budgets), maxBudgets)
	}
	for i, b := range d.Budgets {
		if err := b.validate(fmt.Sprintf("spec.disruption.budgets[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func (b Budget) validate(path string) error {
	if b.Nodes != "" && !budgetNodesPattern.MatchString(b.Nodes) {
		return fmt.Errorf("%s.nodes: %q is neither a count nor a percentage of at most 100%%; write, for example, 5 or 10%%", path, b.Nodes)
	}
	if (b.Schedule == "") != (b.Duration == "") {
		return fmt.Errorf("%s: schedule and duration go together; set both (for example \"0 9 * * mon-fri\" and 8h) or neither", path)
	}
	if b.Schedule != "" && !schedulePattern.MatchString(b.Schedule) {
		return fmt.Errorf("%s.schedule: %q is not a cron schedule; write five fields (\"0 9 * * mon-fri\") or a macro such as @daily", path, b.Schedule)
	}
	if err := duration(path+".duration", b.Duration, budgetDurationPattern, "hours and minutes only, such as 8h, 30m or 1h30m"); err != nil {
		return err
	}
	if len(b.Reasons) > maxBudgets {
		return fmt.Errorf("%s.reasons: %d reasons; at most %d", path, len(b.Reasons), maxBudgets)
	}
	for i, r := range b.Reasons {
		switch r {
		case Underutilized, Empty, Drifted:
		default:
			return fmt.Errorf("%s.reasons[%d]: %q is not one of Underutilized, Empty, Drifted", path, i, r)
		}
		if slices.Contains(b.Reasons[:i], r) {
			return fmt.Errorf("%s.reasons[%d]: %s is listed twice; the list is a set, so keep one", path, i, r)
		}
	}
	return nil
}

// duration checks an optional duration against the CRD's pattern, and
// that Go can hold it: Karpenter decodes it with time.ParseDuration, so a
// value that overflows would make the NodePool unreadable.
func duration(path, s string, pattern *regexp.Regexp, example string) error {
	if s == "" {
		return nil
	}
	if !pattern.MatchString(s) {
		return fmt.Errorf("%s: %q is not a duration Karpenter accepts; write %s", path, s, example)
	}
	if s == "Never" {
		return nil
	}
	if _, err := time.ParseDuration(s); err != nil {
		return fmt.Errorf("%s: %q is too long for Karpenter to read (%v); write a shorter duration", path, s, err)
	}
	return nil
}

func (np *NodePool) validateTemplateMetadata() error {
	const path = "spec.template.metadata.labels"
	if len(np.Labels) > maxLabels {
		return fmt.Errorf("%s: %d labels; Karpenter allows at most %d", path, len(np.Labels), maxLabels)
	}
	for _, k := range sortedKeys(np.Labels) {
		if why := restrictedKey(k); why != "" {
			return fmt.Errorf("%s[%s]: %s", path, k, why)
		}
	}
	if err := objectLabels(path, np.Labels); err != nil {
		return err
	}
	return annotations("spec.template.metadata.annotations", np.Annotations)
}

// restrictedKey returns why Karpenter v1.14 refuses key in a NodePool's
// template labels or requirements, or "". The CRD takes the domain as the
// part before the first '/', or the whole key without one, and refuses
// every domain ending in karpenter.sh but for capacity-type; the node
// pool label and the hostname are refused by name.
func restrictedKey(key string) string {
	domain, _, _ := strings.Cut(key, "/")
	switch {
	case key == compat.LabelNodePool:
		return "Karpenter sets karpenter.sh/nodepool itself; drop it"
	case key == compat.LabelHostname:
		return "kubernetes.io/hostname is restricted; drop it"
	case strings.HasSuffix(domain, "karpenter.sh") && key != compat.LabelCapacityType:
		return fmt.Sprintf("the domain %s is restricted except for %s; use a domain of your own", domain, compat.LabelCapacityType)
	}
	return ""
}

// knownCapacityTypes are the values Karpenter knows for
// karpenter.sh/capacity-type; an In list needs at least one of them.
var knownCapacityTypes = []string{"on-demand", "reserved", "spot"}

func (np *NodePool) validateRequirements() error {
	const path = "spec.template.spec.requirements"
	if len(np.Requirements) > maxRequirements {
		return fmt.Errorf("%s: %d requirements; Karpenter allows at most %d, so merge some", path, len(np.Requirements), maxRequirements)
	}
	for i, r := range np.Requirements {
		if err := requirement(r); err != nil {
			return fmt.Errorf("%s[%d]: %v", path, i, err)
		}
	}
	// compat also applies Karpenter's rules for minValues: 1–50 when set,
	// and on In no more than the distinct values listed.
	if _, err := compat.NewRequirements(np.Requirements...); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// requirement checks what compat.NewRequirements does not.
func requirement(r compat.Requirement) error {
	if len(r.Key) > maxKeyLength {
		return fmt.Errorf("key %.40q... is %d characters; Karpenter allows at most %d", r.Key, len(r.Key), maxKeyLength)
	}
	if why := restrictedKey(r.Key); why != "" {
		return fmt.Errorf("%s: %s", r, why)
	}
	for _, v := range r.Values {
		if strings.ContainsAny(v, "*?") {
			return fmt.Errorf("%s: value %q is not a valid label value, and Karpenter has no wildcards; list the values, or write the preference as a Policy tier and let Policy.NodePools list them", r, v)
		}
	}
	if r.Key != compat.LabelCapacityType || r.Operator != compat.In {
		return nil
	}
	switch known := knownCapacityType(r.Values); {
	case known == 0:
		return fmt.Errorf("%s: no value is a capacity type Karpenter knows; use %s", r, strings.Join(knownCapacityTypes, ", "))
	case known < r.MinValues:
		return fmt.Errorf("%s: minValues %d exceeds the %d capacity types Karpenter knows in its values; lower minValues", r, r.MinValues, known)
	}
	return nil
}

func knownCapacityType(values []string) int {
	n := 0
	for _, v := range values {
		if slices.Contains(knownCapacityTypes, v) {
			n++
		}
	}
	return n
}

func (np *NodePool) validateTemplateSpec() error {
	ref := np.NodeClassRef
	switch {
	case ref.Group == "" || ref.Kind == "" || ref.Name == "":
		return fmt.Errorf("spec.template.spec.nodeClassRef needs a group, a kind and a name, such as {%s %s default}", DefaultNodeClassGroup, DefaultNodeClassKind)
	case strings.Contains(ref.Group, "/"):
		return fmt.Errorf("spec.template.spec.nodeClassRef.group: %q has a '/'; give the API group alone, such as %s", ref.Group, DefaultNodeClassGroup)
	}
	if err := taints(np.Taints, np.StartupTaints); err != nil {
		return err
	}
	if err := duration("spec.template.spec.expireAfter", np.ExpireAfter, nillableDuration, "720h, 30m or Never"); err != nil {
		return err
	}
	return duration("spec.template.spec.terminationGracePeriod", np.TerminationGracePeriod, gracePeriodPattern, "48h or 1h30m")
}

// taints checks both lists as Karpenter does: each taint valid, and no two
// taints, in either list, with the same key and effect.
func taints(taints, startup []userdata.Taint) error {
	const taintsPath, startupPath = "spec.template.spec.taints", "spec.template.spec.startupTaints"
	path := func(i int) string {
		if i < len(taints) {
			return fmt.Sprintf("%s[%d]", taintsPath, i)
		}
		return fmt.Sprintf("%s[%d]", startupPath, i-len(taints))
	}
	at := func(i int) userdata.Taint {
		if i < len(taints) {
			return taints[i]
		}
		return startup[i-len(taints)]
	}
	for i := range len(taints) + len(startup) {
		t := at(i)
		if err := t.Validate(); err != nil {
			// userdata's error already says what is wrong and how to fix
			// it; the path replaces its package prefix.
			return fmt.Errorf("%s: %s", path(i), strings.TrimPrefix(err.Error(), "userdata: "))
		}
		for j := range i {
			if at(j).Matches(t) {
				return fmt.Errorf("%s: %s has the key and effect of %s; Karpenter refuses two taints with one key and effect, so keep one", path(i), t, path(j))
			}
		}
	}
	return nil
}
