package weighting

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/internal/manifest"
	"github.com/ec2select/ec2select/internal/schema"
	"github.com/ec2select/ec2select/internal/validation"
	"github.com/ec2select/ec2select/userdata"
)

// Validate checks np as Karpenter v1.14.1 would hold it: first as the API
// server validates a karpenter.sh/v1 NodePool with the CRD karpenter-
// provider-aws v1.14.1 installs, then as Karpenter's runtime validation
// does, which marks a NodePool it refuses not ready so that it launches
// nothing. It reports every problem, each naming its field by its path in
// the resource and saying how to fix it.
//
// The API server's part: metadata as any object's (a DNS-1123 name;
// labels, annotations, finalizers and owner references as Kubernetes
// checks them), and the CRD's schema and x-kubernetes-validations rules,
// with its defaults applied: the weight is 1–100 or not set; replicas are
// not negative, and a static NodePool (replicas set) has no weight and no
// limit but nodes; limits are quantities; disruption needs consolidateAfter
// once written, budgets follow the CRD's patterns, at most 50 with a
// schedule and a duration together, reasons a set; template labels are at
// most 100 label values, with no key in the karpenter.sh domain but
// karpenter.sh/capacity-type, nor karpenter.sh/nodepool or
// kubernetes.io/hostname, nor a karpenter.k8s.aws key the AWS CRD does not
// list; at most 100 requirements, keys of at most 316 characters under the
// same rules, operators from the CRD's eight, In with values and at least
// minValues of them (1–50), Gt, Lt, Gte and Lte with one integer of 0 or
// more; a node class reference with a group (no '/'), a kind and a name;
// taints with a key and effect; durations matching the CRD's patterns. See
// nodePoolCRD for the rules, each with its path in the CRD.
//
// Karpenter's part (kubernetes-sigs/karpenter v1.14.1,
// pkg/apis/v1/nodepool_validation.go and nodeclaim_validation.go): template
// label keys are qualified names outside the restricted domains
// (karpenter.sh and karpenter.k8s.aws, but for the well-known labels);
// every requirement value is a label value, whatever the operator; keys
// are qualified names, not karpenter.sh/nodepool, outside the restricted
// domains; an In on karpenter.sh/capacity-type or
// karpenter.k8s.aws/instance-tenancy lists a value Karpenter knows, and at
// least minValues of them; no two taints share key and effect. (So Gt "+1",
// which the CRD's int() reads as 1, is refused: "+1" is not a label value.) Gte and Lte
// need Karpenter v1.9.0 or later.
//
// Stricter than both, because the NodePool would not work:
//   - the name is at most 63 characters, since Karpenter writes it into
//     the karpenter.sh/nodepool label of every node;
//   - template annotations are what the API server takes in any object's
//     metadata (qualified-name keys, 256 KiB in all), since Karpenter
//     copies them onto every NodeClaim;
//   - a taint's value is a label value, as the API server requires of a
//     Node's taints (the CRD and Karpenter take any qualified name, so
//     "a/b" passes them and then no node can carry the taint);
//   - durations fit Go's time.Duration, which Karpenter reads them into;
//   - requirements compile with [compat.NewRequirements], which also
//     refuses NotIn with no values, Exists and DoesNotExist with values
//     (Karpenter ignores them), and minValues on In above the number of
//     distinct values (Karpenter counts "In [a, a]" as two);
//   - a taint's timeAdded, which the CRD allows, is refused: the node
//     lifecycle controller stamps it on a Node, and [userdata.Taint] has
//     no place for it.
//
// Unknown may hold only metadata fields NodePool does not map (uid,
// resourceVersion, finalizers...), with values the API server reads: the
// CRD of Karpenter v1.14.1 has no other field.
func (np NodePool) Validate() error {
	return np.invalid(np.problems())
}

// ValidationError is the error Validate, the encoders and the decoders
// return for a NodePool Karpenter v1.14.1 would not take: every problem,
// each naming its field. Use [errors.As] to get it.
type ValidationError struct {
	// Name is the NodePool's metadata.name, "" when it has none.
	Name     string
	Problems []Problem
}

// Problem is one reason a NodePool is refused.
type Problem struct {
	// Path is the field, as the API server writes it
	// ("spec.template.spec.requirements[0].key", "spec.limits[cpu]").
	Path string
	// Message says what is wrong and how to fix it.
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

func (e *ValidationError) Error() string {
	name := e.Name
	if name == "" {
		name = "(unnamed)"
	}
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.String()
	}
	return fmt.Sprintf("weighting: NodePool %s: %s", name, strings.Join(msgs, "; "))
}

// invalid returns a *ValidationError for np's problems, or nil.
func (np *NodePool) invalid(errs []schema.Error) error {
	if len(errs) == 0 {
		return nil
	}
	e := &ValidationError{Name: np.Name, Problems: make([]Problem, len(errs))}
	for i, p := range errs {
		e.Problems[i] = Problem{Path: p.Path, Message: p.Problem}
	}
	return e
}

// validate is Validate without the prefix that names the NodePool, for
// errors that name it themselves.
func (np *NodePool) validate() error {
	return joinErrors(np.problems())
}

// problems are every reason Validate refuses np.
func (np *NodePool) problems() []schema.Error {
	doc, err := np.document()
	if err != nil {
		return []schema.Error{{Problem: err.Error()}}
	}
	if errs := checkDocument(doc, false); len(errs) > 0 {
		return errs
	}
	return np.validateRuntime()
}

// joinErrors makes one error of a list of problems, or nil.
func joinErrors(errs []schema.Error) error {
	if len(errs) == 0 {
		return nil
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}

// checkDocument validates a NodePool document as the API server's create
// path does (apiextensions-apiserver v0.35.3, pkg/apiserver/
// customresource_handler.go unstructuredSchemaCoercer.apply, then
// pkg/registry/customresource strategy and validator): it reads metadata
// as an ObjectMeta, prunes unknown fields (errors, as with kubectl's
// strict field validation), removes non-nullable nulls, drops status (the
// create path does), and validates a defaulted copy against the CRD.
// create adds what only creating refuses (metadata.resourceVersion). doc
// is left pruned, without nulls or status, and not defaulted.
func checkDocument(doc map[string]any, create bool) []schema.Error {
	meta, errs := manifest.Metadata(doc["metadata"], "metadata")
	if create {
		errs = append(errs, meta.ValidateCreate("metadata")...)
	} else {
		errs = append(errs, meta.Validate("metadata")...)
	}
	errs = append(errs, schema.Prune(doc, nodePoolCRD)...)
	schema.PruneNulls(doc, nodePoolCRD)
	delete(doc, "status")
	defaulted := schema.Copy(doc)
	schema.Default(defaulted, nodePoolCRD)
	return append(errs, schema.Validate(defaulted, nodePoolCRD, "")...)
}

// Karpenter's runtime rules on label keys (kubernetes-sigs/karpenter
// v1.14.1, pkg/apis/v1/labels.go; karpenter-provider-aws v1.14.1,
// pkg/apis/v1/labels.go init).
var (
	// restrictedDomains are RestrictedLabelDomains: karpenter.sh and the
	// provider's karpenter.k8s.aws.
	restrictedDomains = []string{"karpenter.sh", "karpenter.k8s.aws"}
	// wellKnownLabels are WellKnownLabels, which IsRestrictedLabel lets
	// through whatever their domain.
	wellKnownLabels = []string{
		compat.LabelNodePool, compat.LabelZone, compat.LabelRegion, compat.LabelInstanceType,
		compat.LabelArch, compat.LabelOS, compat.LabelCapacityType, compat.LabelWindowsBuild,
		compat.LabelCapacityReservationID, compat.LabelCapacityReservationType, compat.LabelCapacityReservationInterruptible,
		compat.LabelInstanceHypervisor, compat.LabelInstanceEncryptionInTransit, compat.LabelInstanceCategory,
		compat.LabelInstanceCapabilityFlex, compat.LabelInstanceFamily, compat.LabelInstanceGeneration,
		compat.LabelInstanceSize, compat.LabelInstanceLocalNVMe, compat.LabelInstanceCPU,
		compat.LabelInstanceCPUManufacturer, compat.LabelInstanceCPUClockSpeedMHz, compat.LabelInstanceMemory,
		compat.LabelInstanceEBSBandwidth, compat.LabelInstanceNetworkBandwidth, compat.LabelInstanceGPUName,
		compat.LabelInstanceGPUManufacturer, compat.LabelInstanceGPUCount, compat.LabelInstanceGPUMemory,
		compat.LabelInstanceAcceleratorName, compat.LabelInstanceAcceleratorManufacturer,
		compat.LabelInstanceAcceleratorCount, compat.LabelAWSZoneID, compat.LabelInstanceTenancy,
		compat.LabelPlacementGroupID, compat.LabelPlacementGroupPartition,
	}
	// normalizedLabels are NormalizedLabels: deprecated keys Karpenter
	// reads as their replacements before checking them.
	normalizedLabels = map[string]string{
		"failure-domain.beta.kubernetes.io/zone":   compat.LabelZone,
		"failure-domain.beta.kubernetes.io/region": compat.LabelRegion,
		"beta.kubernetes.io/arch":                  compat.LabelArch,
		"beta.kubernetes.io/os":                    compat.LabelOS,
		"beta.kubernetes.io/instance-type":         compat.LabelInstanceType,
	}
	// knownValues are WellKnownValuesForRequirements: an In on these keys
	// needs at least one of the values.
	knownValues = map[string][]string{
		compat.LabelCapacityType:    {"on-demand", "reserved", "spot"},
		compat.LabelInstanceTenancy: {"dedicated", "default"},
	}
)

// restrictedLabel returns why Karpenter's IsRestrictedLabel refuses key,
// or "" (pkg/apis/v1/labels.go L138-152).
func restrictedLabel(key string) string {
	if slices.Contains(wellKnownLabels, key) {
		return ""
	}
	if domain, _, ok := strings.Cut(key, "/"); ok {
		for _, d := range restrictedDomains {
			if domain == d || strings.HasSuffix(domain, "."+d) {
				return fmt.Sprintf("Karpenter restricts the domain %s to its well-known labels; use a domain of your own", d)
			}
		}
	}
	if key == compat.LabelHostname {
		return "Karpenter restricts kubernetes.io/hostname; drop it"
	}
	return ""
}

// validateRuntime checks what Karpenter's runtime validation adds to the
// CRD, and ec2select's stricter rules (see Validate).
func (np *NodePool) validateRuntime() []schema.Error {
	var errs []schema.Error
	add := func(path, problem string) { errs = append(errs, schema.Error{Path: path, Problem: problem}) }
	if len(np.Name) > validation.MaxNameLength {
		add("metadata.name", fmt.Sprintf("%q is %d characters; Karpenter writes it into the karpenter.sh/nodepool label of every node, which allows at most %d", np.Name, len(np.Name), validation.MaxNameLength))
	}
	// Karpenter copies the template's annotations onto each NodeClaim,
	// whose metadata the API server validates as any object's.
	errs = append(errs, manifest.Annotations("spec.template.metadata.annotations", np.Annotations)...)
	// nodepool_validation.go L33-49: template labels.
	for _, k := range slices.Sorted(maps.Keys(np.Labels)) {
		path := schema.Key("spec.template.metadata.labels", k)
		if err := validation.QualifiedName(k); err != nil {
			add(path, fmt.Sprintf("key %q is not a qualified name (%v); Karpenter refuses it", k, err))
		}
		if k == compat.LabelNodePool {
			add(path, "Karpenter sets karpenter.sh/nodepool itself; drop it")
		} else if why := restrictedLabel(k); why != "" {
			add(path, why)
		}
	}
	errs = append(errs, requirementsRuntime(np.Requirements)...)
	errs = append(errs, taints(np.Taints, np.StartupTaints)...)
	for _, d := range []struct{ path, value string }{
		{"spec.disruption.consolidateAfter", np.Disruption.ConsolidateAfter},
		{"spec.template.spec.expireAfter", np.ExpireAfter},
		{"spec.template.spec.terminationGracePeriod", np.TerminationGracePeriod},
	} {
		errs = append(errs, durationFits(d.path, d.value)...)
	}
	for i, b := range np.Disruption.Budgets {
		errs = append(errs, durationFits(fmt.Sprintf("spec.disruption.budgets[%d].duration", i), b.Duration)...)
	}
	return errs
}

// requirementsRuntime checks the requirements as Karpenter's runtime
// validation does, and then with compat's rules.
func requirementsRuntime(reqs []compat.Requirement) []schema.Error {
	var errs []schema.Error
	for i, r := range reqs {
		for _, p := range requirementRuntime(r) {
			errs = append(errs, schema.Error{Path: fmt.Sprintf("spec.template.spec.requirements[%d]", i), Problem: p})
		}
	}
	// compat would report the same values again; it adds its own rules
	// only when Karpenter's pass.
	if len(errs) == 0 {
		if _, err := compat.NewRequirements(reqs...); err != nil {
			errs = append(errs, schema.Error{Path: "spec.template.spec.requirements", Problem: strings.TrimPrefix(err.Error(), "compat: ")})
		}
	}
	return errs
}

// validateRequirements checks np's requirements alone, as validate does:
// for Policy.NodePools, whose NodePools differ from a base validate has
// checked only in their name, weight and requirements.
func (np *NodePool) validateRequirements() error {
	l := make([]any, len(np.Requirements))
	for i, r := range np.Requirements {
		m := map[string]any{"key": r.Key, "operator": string(r.Operator)}
		if len(r.Values) > 0 {
			values := make([]any, len(r.Values))
			for j, v := range r.Values {
				values[j] = v
			}
			m["values"] = values
		}
		if r.MinValues != 0 {
			m["minValues"] = int64(r.MinValues)
		}
		l[i] = m
	}
	if errs := schema.Validate(l, requirementsSchema, "spec.template.spec.requirements"); len(errs) > 0 {
		return joinErrors(errs)
	}
	return joinErrors(requirementsRuntime(np.Requirements))
}

// requirementRuntime is Karpenter's ValidateRequirement
// (nodeclaim_validation.go L117-162) and the nodepool key check
// (nodepool_validation.go L51-58), for what the CRD does not already
// refuse.
func requirementRuntime(r compat.Requirement) []string {
	var problems []string
	key := r.Key
	if n, ok := normalizedLabels[key]; ok {
		key = n
	}
	if r.Key == compat.LabelNodePool {
		problems = append(problems, "Karpenter sets karpenter.sh/nodepool itself; drop the requirement")
	} else if why := restrictedLabel(key); why != "" {
		problems = append(problems, fmt.Sprintf("key %s: %s", r.Key, why))
	}
	if err := validation.QualifiedName(r.Key); err != nil {
		problems = append(problems, fmt.Sprintf("key %q is not a qualified name (%v)", r.Key, err))
	}
	for _, v := range r.Values {
		if err := validation.LabelValue(v); err != nil {
			if strings.ContainsAny(v, "*?") {
				problems = append(problems, fmt.Sprintf("%s: value %q is not a valid label value, and Karpenter has no wildcards; list the values, or write the preference as a Policy tier and let Policy.NodePools list them", r, v))
				continue
			}
			problems = append(problems, fmt.Sprintf("%s: value %q is not a valid label value (%v); Karpenter refuses it whatever the operator", r, v, err))
		}
	}
	if known, ok := knownValues[key]; ok && r.Operator == compat.In {
		n := 0
		for _, v := range r.Values {
			if slices.Contains(known, v) {
				n++
			}
		}
		switch {
		case n == 0:
			problems = append(problems, fmt.Sprintf("%s: no value is one Karpenter knows for %s; use %s", r, key, strings.Join(known, ", ")))
		case n < r.MinValues:
			problems = append(problems, fmt.Sprintf("%s: minValues %d exceeds the %d values Karpenter knows in the list; lower minValues", r, r.MinValues, n))
		}
	}
	switch r.Operator {
	case compat.Gt, compat.Lt, compat.Gte, compat.Lte:
		// Karpenter reads the value with strconv.Atoi (L153), which
		// takes "+1"; the label value rule above has already refused it.
		if len(r.Values) == 1 {
			if n, err := strconv.Atoi(r.Values[0]); err != nil || n < 0 {
				problems = append(problems, fmt.Sprintf("%s: Karpenter needs a single integer of 0 or more", r))
			}
		}
	}
	return problems
}

// durationFits checks that Go can hold a duration the CRD's pattern
// admits: Karpenter decodes it with time.ParseDuration, so one that
// overflows makes the NodePool unreadable to it.
func durationFits(path, s string) []schema.Error {
	if s == "" || s == "Never" {
		return nil
	}
	if _, err := time.ParseDuration(s); err != nil {
		return []schema.Error{{Path: path, Problem: fmt.Sprintf("%q is too long for Karpenter to read (%v); write a shorter duration", s, err)}}
	}
	return nil
}

// taints checks both lists as Karpenter does (nodeclaim_validation.go
// L66-104): each taint valid, and no two taints, in either list, with the
// same key and effect.
func taints(taints, startup []userdata.Taint) []schema.Error {
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
	var errs []schema.Error
	for i := range len(taints) + len(startup) {
		t := at(i)
		if err := t.Validate(); err != nil {
			// userdata's error already says what is wrong and how to fix
			// it; the path replaces its package prefix.
			errs = append(errs, schema.Error{Path: path(i), Problem: strings.TrimPrefix(err.Error(), "userdata: ")})
			continue
		}
		for j := range i {
			if at(j).Matches(t) {
				errs = append(errs, schema.Error{Path: path(i), Problem: fmt.Sprintf("%s has the key and effect of %s; Karpenter refuses two taints with one key and effect, so keep one", t, path(j))})
				break
			}
		}
	}
	return errs
}

// poolName checks a generated NodePool's name: a DNS-1123 subdomain that
// also fits the karpenter.sh/nodepool label.
func poolName(s string) error {
	if err := validation.DNS1123Subdomain(s); err != nil {
		return fmt.Errorf("metadata.name %q is not a DNS-1123 subdomain (%v); use lower-case letters, digits, '-' and '.'", s, err)
	}
	if len(s) > validation.MaxNameLength {
		return fmt.Errorf("metadata.name %q is %d characters; Karpenter writes it into the karpenter.sh/nodepool label, which allows at most %d", s, len(s), validation.MaxNameLength)
	}
	return nil
}

// zero reports whether no field of spec.disruption is set.
func (d Disruption) zero() bool {
	return d.ConsolidationPolicy == "" && d.ConsolidateAfter == "" && d.Budgets == nil
}
