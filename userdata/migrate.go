package userdata

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
)

// Migrate moves AL2 userData to target, [compat.AL2023] or
// [compat.Bottlerocket], and proves the move with [Lint] on both sides.
//
// It reads the AL2 userData as Lint does (cloud-init's parts and scripts,
// bootstrap.sh's arguments and environment, the edits of bootstrap.sh and
// of the kubelet's files Lint follows) and writes the target's userData
// with [Render]: for AL2023 a MIME document with the scripts that are
// harmless there (the join and the edits of AL2's files taken out), a
// NodeConfig with the kubelet flags and config keys no [Config] field
// holds, and Render's own NodeConfig; for Bottlerocket its TOML settings,
// with sysctls as settings.kernel.sysctl. Every setting moved is a [Move]
// (the AL2 construct and its line, the target field). What has no effect
// on the target is dropped; what cannot move is refused by name, with the
// reason and a suggestion: yum and amazon-linux-extras (AL2023 has dnf and
// no extras), docker and its daemon.json (the target runs containerd),
// any other shell command on Bottlerocket, a bootstrap.sh option with no
// counterpart.
//
// The migration is refused, with a [*MigrateError], unless Lint says the
// AL2 userData joins, Lint says the migrated userData joins with every
// required taint and no error, and both register the same taints, labels
// and kubelet configuration ([Report.UserKubelet], max pods included):
// Migrate never adds a path to a node that does not join or lacks its
// taints. Other errors are for a target other than AL2023 or Bottlerocket,
// or userData that is not text.
func Migrate(userData []byte, target compat.AMIFamily, o MigrateOptions) (Migration, error) {
	m := Migration{Target: target}
	if target != compat.AL2023 && target != compat.Bottlerocket {
		return m, fmt.Errorf("userdata: cannot migrate AL2 userData to %v; the targets are AL2023 and Bottlerocket", target)
	}
	doc, _, err := decodeUserData(userData)
	if err != nil {
		return m, err
	}
	var lintOpts []LintOption
	if o.KubernetesVersion != "" {
		lintOpts = append(lintOpts, KubernetesVersion(o.KubernetesVersion))
	}
	required, doc, refusal := migrationInput(doc, o)
	if refusal != nil {
		m.Refused = []Unmoved{*refusal}
		return m, &MigrateError{Migration: m}
	}
	before, tr, err := lint(compat.AL2, doc, required, true, lintOpts...)
	if err != nil {
		return m, err
	}
	m.Before = before
	if before.Verdict != Joins {
		m.Refused = []Unmoved{{What: "the AL2 userData", Line: before.Line, Part: before.Part,
			Reason:     "Lint says " + before.Verdict.String() + ": " + before.Reason + "; only userData Lint follows to a node that joins can move with proof",
			Suggestion: "fix what Lint reports, then migrate"}}
		return m, &MigrateError{Migration: m}
	}
	n := readAL2(target, doc, tr, before, o)
	m.Moved, m.Dropped, m.Refused = n.moves, n.dropped, n.refused
	if len(m.Refused) > 0 {
		return m, &MigrateError{Migration: m}
	}
	return m.write(n, o, required, lintOpts)
}

// migrationInput is the AL2 userData Migrate reads, and the taints the
// node must register: with Merged, the controller's userData around the
// custom userData, and every taint it renders.
func migrationInput(doc []byte, o MigrateOptions) (required []Taint, full []byte, refusal *Unmoved) {
	if o.Merged == nil {
		return o.Required, doc, nil
	}
	cfg := *o.Merged
	cfg.CustomUserData = doc
	out, err := Render(compat.AL2, cfg)
	if err != nil {
		return nil, nil, &Unmoved{What: "the custom userData", Reason: "Render refuses it for AL2: " + strings.TrimPrefix(err.Error(), "userdata: "), Suggestion: "fix it for AL2 first"}
	}
	required = o.Required
	if required == nil {
		if required, err = effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required()); err != nil {
			return nil, nil, &Unmoved{What: "MigrateOptions.Merged", Reason: err.Error()}
		}
	}
	return required, out, nil
}

// write renders the target's userData, lints it and compares.
func (m Migration) write(n *al2Node, o MigrateOptions, required []Taint, lintOpts []LintOption) (Migration, error) {
	var custom []byte
	var err error
	if m.Target == compat.AL2023 {
		custom, err = al2023Custom(n)
	} else {
		custom, err = bottlerocketCustom(n)
	}
	if err != nil {
		return m, fmt.Errorf("userdata: writing the %v userData: %v", m.Target, err)
	}
	cfg := n.cfg
	if o.Merged != nil {
		cfg = *o.Merged
	}
	cfg.CustomUserData = custom
	out, rep, err := render(m.Target, cfg)
	if err != nil {
		m.Refused = append(m.Refused, Unmoved{What: "the migrated userData", Reason: "Render refuses it: " + strings.TrimPrefix(err.Error(), "userdata: ")})
		return m, &MigrateError{Migration: m}
	}
	if rep != nil {
		m.After = *rep // Render linted what it wrote, requiring every taint it renders
	} else if m.After, err = Lint(m.Target, out, required, lintOpts...); err != nil {
		return m, err
	}
	if why := unproven(m.After, required); why != "" {
		m.Refused = append(m.Refused, Unmoved{What: "the migrated userData", Line: m.After.Line, Part: m.After.Part, Reason: why})
		return m, &MigrateError{Migration: m}
	}
	if m.Differences = differences(m.Before, m.After, m.Target); len(m.Differences) > 0 {
		return m, &MigrateError{Migration: m}
	}
	m.UserData = out
	if o.Merged != nil {
		m.UserData = append([]byte{}, custom...)
	}
	return m, nil
}

// unproven says why Lint's report on the migrated userData does not
// prove the node joins with its required taints; "" when it does.
func unproven(r Report, required []Taint) string {
	if r.Verdict != Joins {
		return "Lint says the node " + r.Verdict.String() + ": " + r.Reason
	}
	for _, p := range r.Problems {
		if p.Severity == SeverityError {
			return "Lint finds: " + p.Message
		}
	}
	registers := registeredByUserData(r)
	for _, t := range required {
		if !containsMatch(registers, t) {
			return "required taint " + t.String() + " missing: the kubelet will register the node without it"
		}
	}
	return ""
}

// differences lists where the two nodes register other taints, labels
// or kubelet configuration.
func differences(before, after Report, target compat.AMIFamily) []string {
	var out []string
	b, a := registeredByUserData(before), registeredByUserData(after)
	if !slices.Equal(b, a) {
		out = append(out, fmt.Sprintf("taints: AL2 registers %q, %v %q", FormatTaints(b), target, FormatTaints(a)))
	}
	if !maps.Equal(before.Labels, after.Labels) {
		out = append(out, fmt.Sprintf("labels: AL2 registers %q, %v %q", formatLabels(before.Labels), target, formatLabels(after.Labels)))
	}
	bk, ak := before.UserKubelet(), after.UserKubelet()
	bv, av := reflect.ValueOf(bk), reflect.ValueOf(ak)
	for i := range bv.NumField() {
		x, y := bv.Field(i).Interface(), av.Field(i).Interface()
		if !sameSetting(x, y) {
			out = append(out, fmt.Sprintf("kubelet %s: AL2 %s, %v %s", bv.Type().Field(i).Name, settingText(x), target, settingText(y)))
		}
	}
	return out
}

// registeredByUserData are the taints a report registers that the userData
// sets (not the kubelet's own), sorted.
func registeredByUserData(r Report) []Taint {
	var out []Taint
	for _, t := range r.Taints {
		if t.Source != SourceKubelet {
			out = append(out, t.Taint)
		}
	}
	return sortedTaintList(out)
}

// sameSetting compares two values of a KubeletConfig field, an empty map
// or list being the same as none.
func sameSetting(x, y any) bool {
	vx, vy := reflect.ValueOf(x), reflect.ValueOf(y)
	if (vx.Kind() == reflect.Map || vx.Kind() == reflect.Slice) && vx.Len() == 0 && vy.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(x, y)
}

// settingText writes a KubeletConfig field's value for people.
func settingText(v any) string {
	rv := reflect.ValueOf(v)
	switch {
	case rv.Kind() == reflect.Pointer && rv.IsNil(), (rv.Kind() == reflect.Map || rv.Kind() == reflect.Slice) && rv.Len() == 0:
		return "unset"
	case rv.Kind() == reflect.Pointer:
		return fmt.Sprint(rv.Elem().Interface())
	}
	return fmt.Sprint(v)
}
