package userdata

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/ec2select/ec2select/compat"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/ec2select/ec2select/userdata/internal/powershell"
	"github.com/ec2select/ec2select/userdata/internal/shell"
)

// Render writes the userData (raw, not base64) that makes a node of the
// given family join the cluster with cfg's taints and labels. It validates
// every field first and returns an error naming the field and the fix;
// nothing is escaped creatively: input that cannot be represented safely
// is an error. The effective taints are cfg.Taints, then
// cfg.StartupTaints, then each required taint that no earlier taint
// matches by key and effect; a taint with the key and effect of
// [CloudProviderTaint] is refused on the families whose kubelet adds it.
// The output is deterministic and at most [MaxSize] bytes.
//
//   - [compat.AL2]: a MIME multipart/mixed document (LF line endings, a
//     boundary derived from a hash of the parts and checked to occur in
//     none of them): the custom parts first (a MIME document's parts as
//     written; a script, #cloud-config or other cloud-init text as one
//     part), then a bash script calling /etc/eks/bootstrap.sh with every
//     option and value as separate single-quoted words and one
//     --kubelet-extra-args holding --node-labels, exactly one
//     --register-with-taints and --max-pods (with --use-max-pods false).
//   - [compat.AL2023]: the same layout with a node.eks.aws/v1alpha1
//     NodeConfig last (sigs.k8s.io/yaml): taints in
//     spec.kubelet.config.registerWithTaints, written even when empty so
//     that it replaces a custom NodeConfig's list as nodeadm merges them;
//     labels as the only kubelet flag. A custom --register-with-taints flag,
//     which would override the config, is an error.
//   - [compat.Bottlerocket]: TOML settings (go-toml/v2): the custom TOML
//     kept, the cluster fields set, node-labels merged (Render's win),
//     node-taints replaced; a setting the aws-k8s model does not have is an
//     error, because Bottlerocket's settings API refuses it.
//   - Windows: a <powershell> block: the custom PowerShell first (complete,
//     no exit, no bootstrap call, no trailing line continuation), then a
//     Start-EKSBootstrap.ps1 call whose arguments are verbatim strings with
//     every quote character doubled (including U+2018 to U+201B).
//   - [compat.Custom]: cfg.CustomUserData unchanged, after [Lint] confirms
//     that the kubelet registers every effective taint; otherwise a
//     [*LintError] with the report. The other fields are not used.
//
// For AL2 and AL2023 the custom parts must be certain, by [Lint]'s verdict
// on them alone, neither to start the kubelet nor to call the join; parts
// cloud-init runs before Render's (boothooks, bootcmd, per-boot scripts)
// or only in some versions are refused, and so is a part that takes the
// file name of Render's own. Errors name the part, the line and the
// construct.
func Render(family compat.AMIFamily, cfg Config) ([]byte, error) {
	if !family.Valid() {
		return nil, fmt.Errorf("userdata: cannot render for %v; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom", family)
	}
	if family == compat.Custom {
		return renderCustom(cfg)
	}
	p, err := newPlan(family, cfg)
	if err != nil {
		return nil, err
	}
	var out []byte
	switch family {
	case compat.AL2:
		out, err = p.renderAL2()
	case compat.AL2023:
		out, err = p.renderAL2023()
	case compat.Bottlerocket:
		out, err = p.renderBottlerocket()
	case compat.Windows2019, compat.Windows2022, compat.Windows2025:
		out, err = p.renderWindows()
	}
	if err != nil {
		return nil, err
	}
	if len(out) > MaxSize {
		return nil, fmt.Errorf("userdata: the %v userData is %d bytes; EC2 accepts at most %d bytes before base64, so shorten Config.CustomUserData (or the labels and taints)", family, len(out), MaxSize)
	}
	return out, nil
}

func renderCustom(cfg Config) ([]byte, error) {
	if len(bytes.TrimSpace(cfg.CustomUserData)) == 0 {
		return nil, fmt.Errorf("userdata: Config.CustomUserData is empty; the Custom family passes it through, so it must hold the whole userData")
	}
	taints, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		return nil, err
	}
	report, err := Lint(compat.Custom, cfg.CustomUserData, append([]Taint{}, taints...))
	if err != nil {
		return nil, err
	}
	if report.HasErrors() {
		return nil, &LintError{Report: report}
	}
	return slices.Clone(cfg.CustomUserData), nil
}

// kubeletFlags are the kubelet flags AL2 and Windows pass: the labels,
// exactly one --register-with-taints, and the kubelet configuration. Validation already
// limits labels and taints to characters that need no quoting anywhere on
// their way to the kubelet; this checks it again, since a quote, a
// backslash, a newline or whitespace inside a flag would be rewritten by
// systemd or split the flag. A '%' can only come from an eviction
// percentage; AL2 escapes it for systemd (see renderAL2).
func (p *plan) kubeletFlags() ([]string, error) {
	var flags []string
	if len(p.labelKeys) > 0 {
		flags = append(flags, "--node-labels="+p.nodeLabels())
	}
	if len(p.taints) > 0 {
		flags = append(flags, "--register-with-taints="+FormatTaints(p.taints))
	}
	flags = append(flags, p.cfg.Kubelet.flags()...)
	for _, f := range flags {
		if strings.ContainsAny(f, "'\"\\` \t\r\n") {
			return nil, fmt.Errorf("userdata: kubelet flag %q contains a character that cannot reach the kubelet unchanged", f)
		}
	}
	return flags, nil
}

// renderAL2 writes a MIME multipart document: the custom parts, then a
// script calling bootstrap.sh with every argument single-quoted and every
// option and value as separate words.
func (p *plan) renderAL2() ([]byte, error) {
	flags, err := p.kubeletFlags()
	if err != nil {
		return nil, err
	}
	lines := [][]string{{"/etc/eks/bootstrap.sh", p.cfg.ClusterName},
		{"--apiserver-endpoint", p.cfg.APIServerEndpoint},
		{"--b64-cluster-ca", p.cfg.CABundle}}
	if p.ipv6 {
		lines = append(lines, []string{"--ip-family", "ipv6"})
	}
	switch {
	case len(p.dns) > 0:
		lines = append(lines, []string{"--dns-cluster-ip", p.cfg.Kubelet.ClusterDNS[0]})
	case p.cidr.IsValid() && p.cidr.Addr().Is6():
		lines = append(lines, []string{"--service-ipv6-cidr", p.cfg.ClusterCIDR})
	}
	if p.cfg.Kubelet.MaxPods != nil {
		// Without it bootstrap.sh computes max-pods from the ENI table and
		// writes it into the config file, where the flag would fight it.
		lines = append(lines, []string{"--use-max-pods", "false"})
	}
	if len(flags) > 0 {
		// bootstrap.sh copies the value into Environment='KUBELET_EXTRA_ARGS=…'
		// of a systemd drop-in, where "%%" is the one spelling of '%' that
		// every systemd release reads as '%' (a lone '%' starts a specifier).
		extra := strings.ReplaceAll(strings.Join(flags, " "), "%", "%%")
		lines = append(lines, []string{"--kubelet-extra-args", extra})
	}
	if p.cfg.InstanceStorePolicy == RAID0 {
		lines = append(lines, []string{"--local-disks", "raid0"})
	}
	var script strings.Builder
	size := 200
	for _, words := range lines {
		for _, w := range words {
			size += len(w) + 8
		}
	}
	script.Grow(size)
	script.WriteString("#!/bin/bash -xe\n")
	script.WriteString("exec > >(tee /var/log/user-data.log | logger -t user-data -s 2>/dev/console) 2>&1\n")
	for i, words := range lines {
		if i > 0 {
			script.WriteString(" \\\n  ")
		}
		for j, w := range words {
			q, err := shell.Quote(w)
			if err != nil {
				return nil, fmt.Errorf("userdata: bootstrap.sh argument %s", err)
			}
			if j > 0 {
				script.WriteByte(' ')
			}
			script.WriteString(q)
		}
	}
	script.WriteByte('\n')
	parts, err := p.cloudInitCustomParts(compat.AL2)
	if err != nil {
		return nil, err
	}
	parts = append(parts, append([]byte("Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n"), script.String()...))
	return mimedoc.Write(parts)
}

// renderAL2023 writes a MIME multipart document: the custom parts, then a
// NodeConfig with the taints in kubelet.config.registerWithTaints and the
// labels as the only kubelet flag.
func (p *plan) renderAL2023() ([]byte, error) {
	nc := nodeadm.New(nodeadm.Cluster{
		Name:                 p.cfg.ClusterName,
		APIServerEndpoint:    p.cfg.APIServerEndpoint,
		CertificateAuthority: p.cfg.CABundle,
		CIDR:                 p.cfg.ClusterCIDR,
	})
	if p.cfg.InstanceStorePolicy == RAID0 {
		nc.Spec.Instance = &nodeadm.Instance{}
		nc.Spec.Instance.LocalStorage.Strategy = string(RAID0)
	}
	// registerWithTaints is written even when empty: nodeadm merges a
	// later document's explicit empty list over an earlier one, so this
	// replaces whatever a custom NodeConfig lists.
	taints := make([]nodeadm.Taint, len(p.taints))
	for i, t := range p.taints {
		taints[i] = nodeadm.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)}
	}
	config := p.cfg.Kubelet.configFields()
	config["registerWithTaints"] = taints
	if len(config) > 0 {
		nc.Spec.Kubelet.Config = config
	}
	if len(p.labelKeys) > 0 {
		nc.Spec.Kubelet.Flags = []string{"--node-labels=" + p.nodeLabels()}
	}
	doc, err := nc.Encode()
	if err != nil {
		return nil, fmt.Errorf("userdata: encoding the NodeConfig: %v", err)
	}
	parts, err := p.cloudInitCustomParts(compat.AL2023)
	if err != nil {
		return nil, err
	}
	parts = append(parts, append([]byte("Content-Type: "+nodeadm.MediaType+"\n\n"), doc...))
	return mimedoc.Write(parts)
}

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

// renderBottlerocket writes TOML settings: the custom settings with the
// cluster fields set, node-labels merged (Render's win), and node-taints
// replaced by the effective taints.
func (p *plan) renderBottlerocket() ([]byte, error) {
	doc := map[string]any{}
	if len(bytes.TrimSpace(p.custom)) > 0 {
		if err := toml.Unmarshal(p.custom, &doc); err != nil {
			return nil, fmt.Errorf("userdata: Config.CustomUserData is not valid TOML: %v; Bottlerocket user data is TOML settings", err)
		}
	}
	settings, err := subTable(doc, "settings")
	if err != nil {
		return nil, err
	}
	kube, err := subTable(settings, "kubernetes")
	if err != nil {
		return nil, err
	}
	if key := bottlerocket.UnknownSetting(settings, kube); key != "" {
		return nil, unknownSettingError(key)
	}
	if step := bottlerocket.BootSteps(settings); step != "" {
		return nil, fmt.Errorf("userdata: Config.CustomUserData sets %s, which runs before the kubelet and may change its settings (apiclient set); Render cannot tell that it leaves the taints alone, so remove it or set its mode to \"off\"", step)
	}
	kube["cluster-name"] = p.cfg.ClusterName
	kube["api-server"] = p.cfg.APIServerEndpoint
	kube["cluster-certificate"] = p.cfg.CABundle
	for k, v := range p.cfg.Kubelet.bottlerocketSettings() {
		kube[k] = v
	}
	if p.cfg.InstanceStorePolicy == RAID0 {
		if err := p.bottlerocketRAID0(settings); err != nil {
			return nil, err
		}
	}
	if err := p.mergeBottlerocketLabels(kube); err != nil {
		return nil, err
	}
	delete(kube, "node-taints")
	if len(p.taints) > 0 {
		taints := map[string]any{}
		for _, t := range p.taints {
			list, _ := taints[t.Key].([]string)
			taints[t.Key] = append(list, bottlerocket.TaintEntry(t.Value, string(t.Effect)))
		}
		kube["node-taints"] = taints
	}
	out, err := toml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("userdata: encoding the Bottlerocket settings: %v", err)
	}
	return out, nil
}

// bottlerocketRAID0 adds the bootstrap command that Karpenter v1.14.1 adds
// for RAID0 ([bottlerocket.RAID0Command]).
func (p *plan) bottlerocketRAID0(settings map[string]any) error {
	cmds, err := subTable(settings, "bootstrap-commands")
	if err != nil {
		return err
	}
	cmds[bottlerocket.RAID0CommandName] = bottlerocket.RAID0Command(p.cfg.AMIRelease)
	return nil
}

// mergeBottlerocketLabels merges the custom node-labels with Render's, Render's
// winning, after checking each custom label as the kubelet would.
func (p *plan) mergeBottlerocketLabels(kube map[string]any) error {
	labels := map[string]any{}
	if raw, ok := kube["node-labels"]; ok {
		custom, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("userdata: Config.CustomUserData: settings.kubernetes.node-labels is not a table; write [settings.kubernetes.node-labels] with 'key' = 'value'")
		}
		for _, k := range sortedKeys(custom) {
			v, ok := custom[k].(string)
			if !ok {
				return fmt.Errorf("userdata: Config.CustomUserData: node-labels %q is not a string; quote it", k)
			}
			if err := checkLabel(k, v); err != nil {
				return fmt.Errorf("userdata: Config.CustomUserData: node-labels: %v", err)
			}
			labels[k] = v
		}
	}
	for k, v := range p.cfg.Labels {
		labels[k] = v
	}
	delete(kube, "node-labels")
	if len(labels) > 0 {
		kube["node-labels"] = labels
	}
	return nil
}

func unknownSettingError(key string) error {
	return fmt.Errorf("userdata: Config.CustomUserData sets %s, which the Bottlerocket aws-k8s settings model does not have; its settings API refuses unknown keys (the model denies unknown fields), so remove it or check its spelling", key)
}

// subTable returns parent[key] as a table, creating it when absent.
func subTable(parent map[string]any, key string) (map[string]any, error) {
	raw, ok := parent[key]
	if !ok {
		t := map[string]any{}
		parent[key] = t
		return t, nil
	}
	t, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("userdata: Config.CustomUserData: %q is not a table; Bottlerocket settings live under [settings.kubernetes] and similar tables", key)
	}
	return t, nil
}

// renderWindows writes a <powershell> block: the custom PowerShell, then
// the Start-EKSBootstrap.ps1 call with every argument a verbatim string.
func (p *plan) renderWindows() ([]byte, error) {
	flags, err := p.kubeletFlags()
	if err != nil {
		return nil, err
	}
	args := [][2]string{
		{"-EKSClusterName", p.cfg.ClusterName},
		{"-APIServerEndpoint", p.cfg.APIServerEndpoint},
		{"-Base64ClusterCA", p.cfg.CABundle},
	}
	if len(flags) > 0 {
		args = append(args, [2]string{"-KubeletExtraArgs", strings.Join(flags, " ")})
	}
	if len(p.cfg.Kubelet.ClusterDNS) > 0 {
		args = append(args, [2]string{"-DNSClusterIP", p.cfg.Kubelet.ClusterDNS[0]})
	}
	if err := checkCustomPowerShell(p.custom); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("<powershell>\n")
	if len(bytes.TrimSpace(p.custom)) > 0 {
		b.Write(p.custom)
		if !bytes.HasSuffix(p.custom, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	b.WriteString(`[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"` + "\n")
	b.WriteString("& $EKSBootstrapScriptFile")
	for _, a := range args {
		q, err := powershell.Quote(a[1])
		if err != nil {
			return nil, fmt.Errorf("userdata: Start-EKSBootstrap.ps1 %s: %s", a[0], err)
		}
		b.WriteString(" " + a[0] + " " + q)
	}
	b.WriteString("\n</powershell>\n")
	return b.Bytes(), nil
}

// checkCustomPowerShell makes sure custom PowerShell cannot change the
// bootstrap call that follows it: no <powershell> tags, nothing left open
// (a string, comment, bracket or line continuation would swallow the
// call), no top-level exit before it, and no bootstrap call of its own.
func checkCustomPowerShell(custom []byte) error {
	if len(bytes.TrimSpace(custom)) == 0 {
		return nil
	}
	lower := bytes.ToLower(custom)
	if bytes.Contains(lower, []byte("</powershell>")) || bytes.Contains(lower, []byte("<powershell>")) {
		return fmt.Errorf("userdata: Config.CustomUserData contains a <powershell> tag; pass the PowerShell without the tags, Render adds them")
	}
	toks, err := powershell.Lex(string(custom))
	if err != nil {
		return fmt.Errorf("userdata: Config.CustomUserData is not complete PowerShell (%v); anything left open would swallow the bootstrap call that follows it", err)
	}
	if bytes.HasSuffix(bytes.TrimRight(custom, "\r\n"), []byte("`")) {
		return fmt.Errorf("userdata: Config.CustomUserData ends in a backtick, a PowerShell line continuation that would join the bootstrap call that follows it to its last line; remove it")
	}
	w := newEKSWalker()
	w.Walk(toks)
	if len(w.Calls) > 0 {
		return fmt.Errorf("userdata: Config.CustomUserData calls Start-EKSBootstrap.ps1 on line %d; Render adds that call, and a second one registers the node with the wrong taints, so remove it", w.Calls[0].Line)
	}
	if w.Stopped {
		return fmt.Errorf("userdata: Config.CustomUserData stops the script on line %d (exit, return, throw or break), so the bootstrap call after it would never run", w.StopLine)
	}
	if len(w.Opaque) > 0 {
		return fmt.Errorf("userdata: Config.CustomUserData line %d: %s; Render cannot tell that it neither runs the bootstrap script nor starts the kubelet before Render's call, so remove it", w.Opaque[0].Line, w.Opaque[0].What)
	}
	return nil
}
