package userdata

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

// cloudInitCustomParts turns the custom user data into MIME parts for AL2
// or AL2023: a MIME document's parts are copied as written; otherwise the
// content decides the part's type as cloud-init would (#!, #cloud-config,
// #cloud-boothook, or for AL2023 a NodeConfig). The parts are then
// checked ([checkCustomParts]): they must not call the join (the call
// Render adds must be the only one) nor start the kubelet, and
// NodeConfigs must decode and must not set the kubelet flag
// --register-with-taints, which would override the taints.
func (p *plan) cloudInitCustomParts(f compat.AMIFamily) ([][]byte, error) {
	parts, err := p.customParts(f)
	if err != nil || parts == nil {
		return nil, err
	}
	if err := checkCustomParts(f, p.custom, parts, p.cfg.Required(), p.cfg.AllowUnresolved, p.cfg.lintOptions()...); err != nil {
		return nil, err
	}
	return parts, nil
}

// customParts splits the custom user data into MIME parts, unchecked.
func (p *plan) customParts(f compat.AMIFamily) ([][]byte, error) {
	c := p.custom
	if len(bytes.TrimSpace(c)) == 0 {
		return nil, nil
	}
	var raws []mimedoc.RawPart
	if mimedoc.LooksMIME(c) || mimedoc.StartsWithHeader(c) {
		var err error
		raws, err = mimedoc.TopLevelParts(c)
		if err != nil {
			return nil, fmt.Errorf("userdata: Config.CustomUserData looks like MIME but cannot be read: %v; pass a well-formed multipart document or a plain script", err)
		}
	} else {
		var mediaType string
		switch {
		case f == compat.AL2023 && nodeadm.IsNodeConfig(c):
			mediaType = nodeadm.MediaType
		case bytes.HasPrefix(c, []byte("#!")):
			mediaType = `text/x-shellscript; charset="us-ascii"`
		case bytes.HasPrefix(c, []byte("#cloud-config")):
			mediaType = `text/cloud-config; charset="us-ascii"`
		case bytes.HasPrefix(c, []byte("#cloud-boothook")):
			mediaType = `text/cloud-boothook; charset="us-ascii"`
		case bytes.HasPrefix(c, []byte("#")):
			// #include, ## template: jinja, #part-handler, ...: cloud-init
			// takes the type of a text/plain part from its first line.
			mediaType = `text/plain; charset="us-ascii"`
		default:
			what := "a script starting with #! or #cloud-config, or a MIME document"
			if f == compat.AL2023 {
				what = "a NodeConfig, a script starting with #! or #cloud-config, or a MIME document"
			}
			return nil, fmt.Errorf("userdata: Config.CustomUserData is neither %s; cloud-init would ignore it", what)
		}
		// The two header lines are Render's, so the body's first line is
		// line 1 of the custom data.
		raws = []mimedoc.RawPart{{Data: append([]byte("Content-Type: "+mediaType+"\n\n"), c...), Line: -1}}
	}
	parts := make([][]byte, len(raws))
	for i, r := range raws {
		parts[i] = r.Data
	}
	return parts, nil
}

// checkCustomParts accepts the custom parts unless [Lint]'s verdict on
// them alone says they start the kubelet, call the family's join
// (bootstrap.sh; nodeadm, for AL2023, beyond its own NodeConfig parts) or
// break the node, or cannot tell (accepted only with
// Config.AllowUnresolved), and unless a part takes the file name of
// Render's own part, which would replace it in cloud-init's scripts
// directory. What the parts do to the files the join reads is judged on
// the rendered userData ([plan.checkRendered]).
func checkCustomParts(f compat.AMIFamily, custom []byte, parts [][]byte, required []Taint, allowUnresolved bool, opts ...LintOption) error {
	whole, err := mimedoc.Write(parts)
	if err != nil {
		return err
	}
	r, join, err := lintCustom(f, custom, whole, required, opts...)
	if err != nil {
		return err
	}
	if err := customVerdict(f, r, join, allowUnresolved); err != nil {
		return err
	}
	if err := checkCustomNodeConfigs(f, parts); err != nil {
		return err
	}
	names, err := cloudinit.PartNames(whole)
	if err != nil {
		return fmt.Errorf("userdata: Config.CustomUserData: %v", err)
	}
	ours := fmt.Sprintf("part-%03d", len(names)+1)
	if slices.Contains(names, ours) {
		return fmt.Errorf("userdata: Config.CustomUserData has a part named %q, the file name cloud-init gives Render's own part, which it would replace; rename the part", ours)
	}
	return nil
}

// lintCustom lints the custom data as written where cloud-init reads it
// the same way (a MIME document, or an AL2 script), so that lines are the
// user's; otherwise the parts as Render writes them, with lines shifted
// back to the user's. It requires the caller's taints, and renderSentinel,
// which no userData registers, so that custom parts that join always have
// a problem on the line of the join: that problem is taken out of the
// report (the sentinel is Render's name, not the caller's) and its place
// returned as join.
func lintCustom(f compat.AMIFamily, custom, whole []byte, required []Taint, opts ...LintOption) (r Report, join joinAt, err error) {
	doc, shift := whole, 0
	switch {
	case mimedoc.LooksMIME(custom), f == compat.AL2 && !mimedoc.StartsWithHeader(custom):
		doc = custom
	case !mimedoc.StartsWithHeader(custom):
		shift = lineAt(whole, bytes.Index(whole, custom)) - 1
	}
	r, err = Lint(f, doc, append(slices.Clone(required), renderSentinel), opts...)
	if err != nil {
		return Report{}, joinAt{}, fmt.Errorf("userdata: Config.CustomUserData: %v", err)
	}
	r = shiftLines(r, shift)
	sentinel := "required taint " + renderSentinel.String() + " "
	r.Problems = slices.DeleteFunc(slices.Clone(r.Problems), func(p Problem) bool {
		if p.Code != CodeRequiredTaintMissing || !strings.HasPrefix(p.Message, sentinel) {
			return false
		}
		join = joinAt{p.Part, p.Line}
		return true
	})
	return r, join, nil
}

// joinAt is where custom parts call the join: a MIME part's name and a
// line, as a [Problem] gives them.
type joinAt struct {
	part string
	line int
}

// checkRendered lints the rendered userData, custom parts and Render's
// own together, with every effective taint required: the kubelet must register
// exactly the effective taints (and its own), with no error; or, with
// Config.AllowUnresolved, Lint may be unable to tell, but never certain
// that the node does not join or lacks a required taint. An error names
// the custom part and line whose change of the join's files makes the
// difference, where there is one.
func (p *plan) checkRendered(f compat.AMIFamily, out []byte) (Report, error) {
	rep, err := Lint(f, out, p.taints, p.cfg.lintOptions()...)
	if err != nil {
		return rep, fmt.Errorf("userdata: linting the rendered userData: %v", err)
	}
	switch {
	case rep.Verdict == Joins && !rep.HasErrors() && sameTaints(rep.Taints, p.taints):
		return rep, nil
	case rep.Verdict == Unresolved && p.cfg.AllowUnresolved && !hasCode(rep, CodeRequiredTaintMissing):
		return rep, nil
	}
	what := renderedOutcome(rep, p.taints)
	if custom, err := p.customParts(f); err == nil {
		if whole, err := mimedoc.Write(custom); err == nil {
			if r, _, err := lintCustom(f, p.custom, whole, p.cfg.Required(), p.cfg.lintOptions()...); err == nil {
				for _, prob := range r.Problems {
					if prob.Code == CodeBootFileEdit {
						return rep, customError(rep, prob.Part, prob.Line, prob.Message+"; with it, "+what+"; remove the change and put kubelet settings in Config")
					}
				}
			}
		}
	}
	return rep, customError(rep, "", 0, "with it, "+what+"; remove what changes the join's files or the kubelet, and put kubelet settings in Config")
}

// renderedOutcome says, for people, how Lint's report on the rendered
// userData differs from what Render must guarantee.
func renderedOutcome(rep Report, want []Taint) string {
	switch rep.Verdict {
	case Unresolved:
		return "Lint of the rendered userData cannot tell how the node joins (" + rep.where() + rep.Reason + "); set Config.AllowUnresolved to accept that"
	case NeverJoins:
		return "the node never joins (" + rep.where() + rep.Reason + ")"
	}
	for _, prob := range rep.Problems {
		if prob.Severity == SeverityError {
			return "Lint of the rendered userData finds: " + prob.Message
		}
	}
	var got []string
	for _, t := range rep.Taints {
		if t.Source != SourceKubelet {
			got = append(got, t.Taint.String())
		}
	}
	return fmt.Sprintf("the kubelet registers the taints %q instead of %q", strings.Join(got, ","), FormatTaints(want))
}

// sameTaints reports whether the kubelet registers exactly want, besides
// the taints it adds itself.
func sameTaints(got []RegisteredTaint, want []Taint) bool {
	var g []Taint
	for _, t := range got {
		if t.Source != SourceKubelet {
			g = append(g, t.Taint)
		}
	}
	return slices.Equal(sortedTaintList(g), sortedTaintList(want))
}

func sortedTaintList(ts []Taint) []Taint {
	out := slices.Clone(ts)
	slices.SortFunc(out, compareTaints)
	return out
}

func hasCode(r Report, c Code) bool {
	return slices.ContainsFunc(r.Problems, func(p Problem) bool { return p.Code == c })
}

// renderSentinel is required when Render lints custom parts, so that a
// report of custom parts that join carries a required-taint-missing
// problem on the line of the join (lintCustom takes it out of the report).
var renderSentinel = Taint{Key: "render.ec2select.invalid/custom-part-check", Effect: NoExecute}

// shiftLines moves a report's lines back by n.
func shiftLines(r Report, n int) Report {
	if n == 0 {
		return r
	}
	move := func(l int) int { return max(l-n, 0) }
	r.Line = move(r.Line)
	r.Problems = slices.Clone(r.Problems)
	for i := range r.Problems {
		r.Problems[i].Line = move(r.Problems[i].Line)
	}
	return r
}

// checkCustomNodeConfigs refuses a custom NodeConfig that sets the kubelet
// flag --register-with-taints: a flag overrides the config's
// registerWithTaints that Render writes (aws/karpenter-provider-aws#7486).
func checkCustomNodeConfigs(f compat.AMIFamily, parts [][]byte) error {
	if f != compat.AL2023 {
		return nil
	}
	for i, raw := range parts {
		leaves, err := mimedoc.Parse(raw, 1)
		if err != nil {
			return fmt.Errorf("userdata: Config.CustomUserData part %d: %v", i+1, err)
		}
		for _, leaf := range leaves {
			if leaf.MediaType != nodeadm.MediaType {
				continue
			}
			d, _ := nodeadm.Decode(leaf.Body)
			if d == nil {
				continue
			}
			for _, fl := range d.Flags {
				if nodeadm.SetsTaintFlag(fl) {
					return fmt.Errorf("userdata: Config.CustomUserData part %d: its NodeConfig sets the kubelet flag %q, which overrides the registerWithTaints Render writes (aws/karpenter-provider-aws#7486); remove it and put the taints in Config.Taints", i+1, fl)
				}
			}
		}
	}
	return nil
}

// customVerdict turns Lint's report on the custom parts into Render's
// decision: refused when they call the join or break the node; when Lint
// cannot tell, refused unless the caller accepts that.
func customVerdict(f compat.AMIFamily, r Report, join joinAt, allowUnresolved bool) error {
	// A join Lint is certain of (it found Render's sentinel taint missing
	// there) is a second join, even when Lint cannot follow what comes
	// after it.
	if f == compat.AL2 && (r.Verdict == Joins || join != (joinAt{})) {
		return customError(r, join.part, join.line, "it calls bootstrap.sh; Render adds the bootstrap.sh call, and a second one would register the node untainted before it, so remove the call and put kubelet settings in Config")
	}
	if r.Verdict == Unresolved && !allowUnresolved {
		return customError(r, r.Part, r.Line, "Render cannot tell that it neither starts the kubelet nor calls the join before Render's part: "+r.Reason+"; change it, or set Config.AllowUnresolved to accept userData Lint cannot follow")
	}
	allowed := map[Code]bool{CodeNoBootstrap: true, CodeRequiredTaintMissing: true, CodeUnresolved: allowUnresolved}
	if f == compat.AL2023 {
		allowed[CodeIncompleteConfig] = true
	}
	for _, p := range r.Problems {
		if p.Severity == SeverityError && !allowed[p.Code] {
			msg := p.Message
			if p.Fix != "" {
				msg += "; fix: " + p.Fix
			}
			return customError(r, p.Part, p.Line, msg)
		}
	}
	return nil
}

// customError refuses custom userData on Lint's report r, naming the part
// and line.
func customError(r Report, part string, line int, msg string) error {
	return &LintError{Report: r, msg: fmt.Sprintf("userdata: Config.CustomUserData %s%s", location(part, line), msg)}
}
