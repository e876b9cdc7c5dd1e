package userdata

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

// cloudInitCustomParts turns the custom user data into MIME parts for AL2
// or AL2023: a MIME document's parts are copied as written; otherwise the
// content decides the part's type as cloud-init would (#!, #cloud-config,
// #cloud-boothook, or for AL2023 a NodeConfig). Each part is then checked:
// scripts must be executable, must not call bootstrap.sh (the call Render
// adds must be the only one), and NodeConfigs must decode and must not set
// the kubelet flag --register-with-taints, which would override the
// taints.
func (p *plan) cloudInitCustomParts(f compat.AMIFamily) ([][]byte, error) {
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
	if err := checkCustomParts(f, c, parts); err != nil {
		return nil, err
	}
	return parts, nil
}

// checkCustomParts accepts the custom parts only when [Lint]'s verdict on
// them alone is certain that they neither start the kubelet nor call the
// family's join (bootstrap.sh; nodeadm, for AL2023, beyond its own
// NodeConfig parts), and when no part takes the file name of Render's own
// part, which would replace it in cloud-init's scripts directory.
func checkCustomParts(f compat.AMIFamily, custom []byte, parts [][]byte) error {
	whole, err := mimedoc.Write(parts)
	if err != nil {
		return err
	}
	// Lint the custom data as written where cloud-init reads it the same
	// way (a MIME document, or an AL2 script), so that lines are the
	// user's; otherwise the parts as Render writes them, with lines
	// shifted back to the user's.
	doc, shift := whole, 0
	switch {
	case mimedoc.LooksMIME(custom), f == compat.AL2 && !mimedoc.StartsWithHeader(custom):
		doc = custom
	case !mimedoc.StartsWithHeader(custom):
		shift = lineAt(whole, bytes.Index(whole, custom)) - 1
	}
	r, err := Lint(f, doc, []Taint{renderSentinel})
	if err != nil {
		return fmt.Errorf("userdata: Config.CustomUserData: %v", err)
	}
	if err := customVerdict(f, shiftLines(r, shift)); err != nil {
		return err
	}
	if err := earlyParts(doc, shift); err != nil {
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

// renderSentinel is required when Render lints custom parts, so that a
// report of custom parts that join carries a required-taint-missing
// problem on the line of the join.
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

// earlyParts refuses custom parts that cloud-init runs before Render's
// part whatever their file names (boothooks and bootcmd in the init
// stage, per-boot/per-instance/per-once scripts before the user scripts),
// or runs only in some cloud-init versions: Render's guarantee is that its
// join is the first thing that can start the kubelet, and it does not rest
// that on the analysis of code that runs ahead of it.
func earlyParts(doc []byte, shift int) error {
	scripts, _, err := cloudinit.Plan(doc)
	if err != nil {
		return fmt.Errorf("userdata: Config.CustomUserData: %v", err)
	}
	part := func(s cloudinit.Script) string {
		if mimedoc.LooksMIME(doc) {
			return s.Part
		}
		return ""
	}
	for _, s := range scripts {
		what := ""
		switch {
		case s.Stage == cloudinit.StageBoothook:
			what = "a #cloud-boothook part"
		case s.Stage == cloudinit.StageBootcmd:
			what = "cloud-config bootcmd"
		case s.MayNotRun != "":
			what = "a part that runs only in some cloud-init versions (a per-boot/per-instance/per-once script, or a text/x-shellscript part that starts like another type)"
		default:
			continue
		}
		return customError(part(s), max(s.PartLine-shift, 0), what+" runs before Render's join (or only in some cloud-init versions); Render accepts only text/x-shellscript parts and cloud-config runcmd, which run after it may have joined, so move the commands there")
	}
	return nil
}

// customVerdict turns Lint's report on the custom parts into Render's
// decision.
func customVerdict(f compat.AMIFamily, r Report) error {
	if r.Verdict == Unresolved {
		return customError(r.Part, r.Line, "Render cannot tell that it neither starts the kubelet nor calls the join before Render's part: "+r.Reason)
	}
	if f == compat.AL2 && r.Verdict == Joins {
		part, line := "", 0
		for _, p := range r.Problems {
			if p.Code == CodeRequiredTaintMissing {
				part, line = p.Part, p.Line
			}
		}
		return customError(part, line, "it calls bootstrap.sh; Render adds the bootstrap.sh call, and a second one would register the node untainted before it, so remove the call and put kubelet settings in Config")
	}
	allowed := map[Code]bool{CodeNoBootstrap: true, CodeRequiredTaintMissing: true}
	if f == compat.AL2023 {
		allowed[CodeIncompleteConfig] = true
	}
	for _, p := range r.Problems {
		if p.Severity == SeverityError && !allowed[p.Code] {
			msg := p.Message
			if p.Fix != "" {
				msg += "; fix: " + p.Fix
			}
			return customError(p.Part, p.Line, msg)
		}
	}
	return nil
}

func customError(part string, line int, msg string) error {
	return fmt.Errorf("userdata: Config.CustomUserData %s%s", location(part, line), msg)
}
