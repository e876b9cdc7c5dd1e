package userdata

import (
	"bytes"
	"fmt"
	"maps"
	"mime"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/cloudinit"
	"github.com/ec2select/ec2select/userdata/internal/edit"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/ec2select/ec2select/userdata/internal/shell"
	"github.com/ec2select/ec2select/userdata/internal/systemd"
)

// readAL2 reads AL2 userData that Lint says joins (before, with the trace
// of its analysis) for target t: the join's settings (unless the
// controller owns the join, o.Merged), what the userData's edits of the
// join's files do, and its other parts, each moved, dropped, kept or
// refused.
func readAL2(t compat.AMIFamily, text []byte, tr *al2Trace, before Report, o MigrateOptions) *al2Node {
	n := &al2Node{config: map[string]any{}, sysctls: map[string]string{}}
	j, ok := tr.joins[tr.joined]
	if !ok || tr.ci == nil {
		n.refuse("the join", before.Line, before.Part, "Lint did not follow a bootstrap.sh call to the kubelet", "")
		return n
	}
	if calls := callCount(tr.ci); calls > 1 {
		n.refuse("bootstrap.sh", j.at.script.absLine(j.at.call.Line), j.at.script.part,
			fmt.Sprintf("the userData calls bootstrap.sh %d times; a migration carries one join", calls), "keep a single bootstrap.sh call")
		return n
	}
	if o.Merged == nil {
		n.readJoin(t, j, before, o)
	}
	n.readFlags(t, j, before, o.Merged != nil)
	n.readEdits(t, tr.ci, o.Merged != nil)
	n.readParts(t, text, tr.ci, j, o.Merged != nil)
	return n
}

// callCount counts the bootstrap.sh calls of every script.
func callCount(ci *cloudInit) int {
	n := 0
	for _, s := range ci.scripts {
		n += len(s.walk.Calls)
	}
	return n
}

// readJoin moves what the bootstrap.sh call says about the cluster and
// the node: its options and the taints, labels and kubelet settings Lint
// found the kubelet registers.
func (n *al2Node) readJoin(t compat.AMIFamily, j joinTrace, before Report, o MigrateOptions) {
	part := j.at.script.part
	call := j.call
	cfg := &n.cfg
	cfg.ClusterName = call.positional[0].Value
	n.move("bootstrap.sh "+cfg.ClusterName, j.at.script.absLine(j.at.call.Line), part, fieldClusterName.on(t))
	cluster := []struct {
		opt, fallback string
		dst           *string
		field         targetField
	}{
		{"--apiserver-endpoint", o.APIServerEndpoint, &cfg.APIServerEndpoint, fieldEndpoint},
		{"--b64-cluster-ca", o.CABundle, &cfg.CABundle, fieldCA},
	}
	for _, c := range cluster {
		v, ok := call.value(c.opt)
		switch {
		case ok && v != "":
			*c.dst = v
			n.move("bootstrap.sh "+c.opt, call.optLines[c.opt], part, c.field.on(t))
		case c.fallback != "":
			*c.dst = c.fallback
		default:
			n.refuse("bootstrap.sh without "+c.opt, j.at.script.absLine(j.at.call.Line), part,
				"bootstrap.sh asks EKS for it at boot (describe-cluster); the target needs it in its userData", "pass it in MigrateOptions")
		}
	}
	n.readNetwork(t, j, o)
	n.readOptions(t, j)
	cfg.Kubelet = before.UserKubelet()
	cfg.Labels = before.Labels
	for _, rt := range before.Taints {
		if rt.Source != SourceKubelet {
			cfg.Taints = append(cfg.Taints, rt.Taint)
		}
	}
	cfg.Taints = sortedTaintList(cfg.Taints)
	// The userData's own taints are all the node registers: nothing is
	// added to them (Required only checks them).
	cfg.NoRequiredTaints = true
	cfg.KubernetesVersion = o.KubernetesVersion
}

// readNetwork moves the service CIDR and the cluster DNS address.
func (n *al2Node) readNetwork(t compat.AMIFamily, j joinTrace, o MigrateOptions) {
	part, call := j.at.script.part, j.call
	for _, opt := range []string{"--service-ipv4-cidr", "--service-ipv6-cidr"} {
		if v, ok := call.value(opt); ok && v != "" {
			n.cfg.ClusterCIDR = v
			if to := fieldCIDR.on(t); to != "" {
				n.move("bootstrap.sh "+opt, call.optLines[opt], part, to)
			} else {
				n.drop("bootstrap.sh "+opt, call.optLines[opt], part, "Bottlerocket does not take the service CIDR")
			}
		}
	}
	if n.cfg.ClusterCIDR == "" {
		n.cfg.ClusterCIDR = o.ClusterCIDR
	}
	if n.cfg.ClusterCIDR == "" && t == compat.AL2023 {
		n.refuse("the cluster's service CIDR", j.at.script.absLine(j.at.call.Line), part,
			"nodeadm needs it (spec.cluster.cidr), and the userData does not say it (--service-ipv4-cidr)", "pass MigrateOptions.ClusterCIDR")
	}
	if _, ok := call.value("--dns-cluster-ip"); ok {
		n.move("bootstrap.sh --dns-cluster-ip", call.optLines["--dns-cluster-ip"], part, fieldClusterDNS.on(t))
	}
	if v, ok := call.value("--ip-family"); ok {
		n.drop("bootstrap.sh --ip-family "+v, call.optLines["--ip-family"], part, "the target takes the IP family from the cluster's addresses")
	}
}

// readOptions accounts for bootstrap.sh's other options.
func (n *al2Node) readOptions(t compat.AMIFamily, j joinTrace) {
	part, call := j.at.script.part, j.call
	for _, opt := range slices.Sorted(func(yield func(string) bool) {
		for k := range call.opts {
			if !yield(k) {
				return
			}
		}
	}) {
		v, line := call.opts[opt].Value, call.optLines[opt]
		what := "bootstrap.sh " + opt + " " + v
		switch opt {
		case "--container-runtime":
			n.drop(what, line, part, "the target runs containerd, bootstrap.sh's only runtime from Kubernetes 1.24")
		case "--use-max-pods":
			n.drop(what, line, part, "it only says whether bootstrap.sh computes max pods; the kubelet's maxPods, set or not, moved with the kubelet settings")
		case "--enable-docker-bridge", "--docker-config-json":
			n.drop(what, line, part, "bootstrap.sh ignores it under containerd (L546-553)")
		case "--aws-api-retry-attempts", "--pause-container-account", "--pause-container-version":
			n.drop(what, line, part, "it tunes bootstrap.sh's own AWS calls or sandbox image; the target chooses its own")
		case "--local-disks":
			n.readLocalDisks(t, what, v, line, part)
		case "--apiserver-endpoint", "--b64-cluster-ca", "--service-ipv4-cidr", "--service-ipv6-cidr", "--dns-cluster-ip", "--ip-family", "--kubelet-extra-args":
		default:
			n.refuse(what, line, part, "this migration knows no setting of the target that does what it does", "set it up on the target by hand")
		}
	}
}

func (n *al2Node) readLocalDisks(t compat.AMIFamily, what, v string, line int, part string) {
	switch v {
	case "raid0":
		n.cfg.InstanceStorePolicy = RAID0
		n.move(what, line, part, fieldRAID0.on(t))
	case "none", "":
		n.drop(what, line, part, "it leaves the instance-store disks alone, as the target does by default")
	default:
		n.refuse(what, line, part, "Render writes only RAID0 (EC2NodeClass instanceStorePolicy)", "use raid0, or set up the disks on the target by hand")
	}
}

// readFlags moves the kubelet flags the node gets from
// KUBELET_EXTRA_ARGS. The ones bootstrap.sh was given moved with the
// join (Config's taints, labels and kubelet settings) unless merged, when
// they are the controller's; the others, added by edits of bootstrap.sh
// or by a drop-in, move as kubelet flags (AL2023) or settings
// (Bottlerocket).
func (n *al2Node) readFlags(t compat.AMIFamily, j joinTrace, before Report, merged bool) {
	part := j.at.script.part
	extraLine := j.call.optLines["--kubelet-extra-args"]
	if extraLine == 0 {
		extraLine = j.at.script.absLine(j.at.call.Line)
	}
	givenWords, _ := systemd.Split(strings.ReplaceAll(j.given, "%%", "%"), false, true)
	given, _, _, _ := kubelet.ParseArgs(givenWords, kubelet.ReleasesAL2)
	all, _, _, _ := kubelet.ParseArgs(j.argv, kubelet.ReleasesAL2)
	editLine, editPart := editOrigin(j.files)
	for _, f := range all {
		fromCall := false
		if i := slices.Index(given, f); i >= 0 {
			given = slices.Delete(given, i, i+1)
			fromCall = true
		}
		flag := "--" + f.Name + "=" + f.Value
		switch {
		case fromCall && merged:
			continue // the controller's, and the controller's again on the target
		case fromCall:
			n.joinFlag(t, f, flag, extraLine, part)
		case !merged:
			// Lint's report has what the node registers with it: its
			// taints, labels and settings moved with the join's.
			n.joinFlag(t, f, flag, editLine, editPart)
		default:
			n.editFlag(t, f, flag)
		}
	}
}

// editOrigin is where the first edit that adds kubelet arguments is: a
// line sed adds to bootstrap.sh, or a drop-in.
func editOrigin(f al2Files) (int, string) {
	for _, c := range append(slices.Clone(f.before), f.after...) {
		return c.line, c.part
	}
	for _, name := range slices.Sorted(maps.Keys(f.dropIns)) {
		return f.dropIns[name].change.line, f.dropIns[name].change.part
	}
	return 0, ""
}

// joinFlag accounts for a flag of the join's --kubelet-extra-args.
func (n *al2Node) joinFlag(t compat.AMIFamily, f kubelet.Arg, flag string, line int, part string) {
	switch name := f.Name; {
	case name == "node-labels":
		n.move(flag, line, part, fieldLabels.on(t))
	case name == "register-with-taints":
		n.move(flag, line, part, fieldTaints.on(t))
	case name == "cluster-dns":
		n.move(flag, line, part, fieldClusterDNS.on(t))
	case typedFlag(name) != nil:
		n.move(flag, line, part, typedTarget(t, typedFlag(name)))
	default:
		n.untypedFlag(t, flag, line, part)
	}
}

// editFlag accounts for a flag an edit of the join's files adds; it moves
// as a flag (AL2023) or, where Bottlerocket has the setting, as that.
func (n *al2Node) editFlag(t compat.AMIFamily, f kubelet.Arg, flag string) {
	if f.Name == "register-with-taints" || f.Name == "node-labels" {
		n.refuse(flag, 0, "", "an edit of the join's files that sets the kubelet's taints or labels overrides or adds to the controller's", "put them in the NodePool")
		return
	}
	if t == compat.AL2023 {
		n.flags = append(n.flags, flag)
		n.move(flag+" (added by an edit of the join's files)", 0, "", fieldFlags.on(t))
		return
	}
	if tf := typedFlag(f.Name); tf != nil && tf.bottlerocket != "" {
		var k KubeletConfig
		if err := setFromText(&k, *tf, f.Value, false); err == nil {
			if v, ok := tf.encode(&k, true); ok {
				n.config[tf.bottlerocket] = v
				n.move(flag+" (added by an edit of the join's files)", 0, "", "settings.kubernetes."+tf.bottlerocket)
				return
			}
		}
	}
	n.untypedFlag(t, flag, 0, "")
}

// untypedFlag carries a kubelet flag no Config field holds: nodeadm
// appends spec.kubelet.flags to the kubelet's arguments; Bottlerocket has
// no place for it.
func (n *al2Node) untypedFlag(t compat.AMIFamily, flag string, line int, part string) {
	if t == compat.Bottlerocket {
		n.refuse(flag, line, part, "Bottlerocket takes kubelet settings only as settings.kubernetes, and has none for this flag", "drop it, or find the Bottlerocket setting that does what it does")
		return
	}
	n.flags = append(n.flags, flag)
	n.move(flag, line, part, fieldFlags.on(t))
}

// typedFlag is the Config field a kubelet flag sets, nil when none does.
func typedFlag(name string) *kubeletField {
	i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return f.flag == strings.ReplaceAll(name, "_", "-") })
	if i < 0 {
		return nil
	}
	return &kubeletFields[i]
}

// typedTarget names where a Config kubelet field lives on the target.
func typedTarget(t compat.AMIFamily, f *kubeletField) string {
	if t == compat.Bottlerocket {
		return "settings.kubernetes." + f.bottlerocket
	}
	return "spec.kubelet.config." + f.config
}

// readEdits accounts for the userData's changes to the join's files: the
// kubelet flags they add moved with the flags; jq's assignments to
// kubelet-config.json move as kubelet config keys; the commands themselves
// have nothing to act on on the target, so they are dropped (and taken
// out of the scripts the target keeps).
func (n *al2Node) readEdits(t compat.AMIFamily, ci *cloudInit, merged bool) {
	for _, c := range ci.changes {
		if c.ignored {
			continue
		}
		what := c.how + " on " + c.what()
		switch {
		case c.script == nil:
			n.refuse("write_files "+c.what(), c.line, c.part, "cloud-config writes an AL2 file of the join, which the target does not have", "move the setting it writes into the target's settings by hand")
		case c.Path == al2KubeletConfig && c.Kind == shell.OpFilter && c.Tool == "jq":
			n.readConfigEdit(t, c, merged)
		case c.Path == al2Bootstrap || path.Dir(c.Path) == al2DropIns:
			n.drop(what, c.line, c.part, "the target has no bootstrap.sh and reads no AL2 drop-in; the kubelet flags it adds moved")
		default:
			n.refuse(what, c.line, c.part, "this migration does not carry this change of the join's files", "move what it sets into the target's settings by hand")
		}
	}
}

// readConfigEdit moves jq's assignments to kubelet-config.json.
func (n *al2Node) readConfigEdit(t compat.AMIFamily, c fileChange, merged bool) {
	what := c.how + " on " + c.what()
	edits, err := jqEdits(c)
	if err != nil {
		n.refuse(what, c.line, c.part, err.Error(), "set the value in the target's kubelet settings by hand")
		return
	}
	for _, e := range edits {
		key := e.Path[0]
		i := slices.IndexFunc(kubeletFields, func(f kubeletField) bool { return strings.EqualFold(f.config, key) })
		switch {
		case len(e.Path) != 1:
			n.refuse(what, c.line, c.part, "it sets ."+strings.Join(e.Path, "."), "set the value in the target's kubelet settings by hand")
		case i >= 0 && !merged:
			n.move(what, c.line, c.part, typedTarget(t, &kubeletFields[i]))
		case t == compat.AL2023:
			n.config[key] = e.Value
			n.move(what, c.line, c.part, "spec.kubelet.config."+key)
		case i >= 0 && kubeletFields[i].bottlerocket != "":
			var k KubeletConfig
			if err := setFromValue(&k, kubeletFields[i], e.Value); err != nil {
				n.refuse(what, c.line, c.part, err.Error(), "")
				continue
			}
			v, _ := kubeletFields[i].encode(&k, true)
			n.config[kubeletFields[i].bottlerocket] = v
			n.move(what, c.line, c.part, typedTarget(t, &kubeletFields[i]))
		default:
			n.refuse(what, c.line, c.part, "Bottlerocket has no setting for kubelet-config.json's ."+key, "drop it, or find the Bottlerocket setting that does what it does")
		}
	}
}

// readParts keeps, drops or refuses each MIME part of the userData for
// the target. For AL2023 the parts are kept, the join and the edits of
// AL2's join files taken out of their scripts, and commands AL2023 cannot
// run refused. Bottlerocket runs no part: each statement must be one
// whose effect moved, an inert one, or a sysctl, which moves.
func (n *al2Node) readParts(t compat.AMIFamily, text []byte, ci *cloudInit, j joinTrace, merged bool) {
	parts, _, err := cloudinit.Parts(text)
	names, nerr := cloudinit.PartNames(text)
	if err != nil || nerr != nil {
		n.refuse("the MIME document", 0, "", fmt.Sprint(err, nerr), "")
		return
	}
	multipart := len(parts) > 1 || parts[0].Type != "text/x-not-multipart"
	for i, p := range parts {
		part := ""
		if multipart {
			part = names[i]
		}
		scripts := scriptsOf(ci, part)
		if merged && slices.Contains(scripts, j.at.script) {
			continue // the controller's own part, which it writes again on the target
		}
		if t == compat.Bottlerocket {
			n.bottlerocketPart(p, part, scripts, j)
			continue
		}
		n.al2023Part(p, part, scripts, j)
	}
}

// scriptsOf are the scripts cloud-init made of one part.
func scriptsOf(ci *cloudInit, part string) []*script {
	var out []*script
	for _, s := range ci.scripts {
		if s.part == part {
			out = append(out, s)
		}
	}
	return out
}

// removals are the statements of a script to take out for the target:
// the join and the edits of AL2's join files (by script line).
func removals(s *script, j joinTrace) []int {
	var lines []int
	if j.at.script == s {
		lines = append(lines, j.at.call.Line)
	}
	for _, op := range s.walk.Files {
		if op.Path == al2Bootstrap || op.Path == al2KubeletConfig || path.Dir(op.Path) == al2DropIns {
			lines = append(lines, op.Line)
		}
	}
	return lines
}

// al2023Part keeps one part for AL2023.
func (n *al2Node) al2023Part(p cloudinit.Part, part string, scripts []*script, j joinTrace) {
	body := p.Body
	if p.Type == nodeadm.MediaType {
		n.refuse("this NodeConfig part", p.Line, part, "cloud-init skips it on AL2, where it does nothing, and nodeadm would read it on AL2023",
			"move the settings it holds into the migration's options or the EC2NodeClass by hand, or remove it")
		return
	}
	if len(scripts) == 0 && len(bytes.TrimSpace(body)) > 0 && (strings.HasPrefix(p.Type, "text/x-shellscript") || p.Type == "text/plain") {
		n.refuse("this script without a #! line", p.Line, part,
			"upstream cloud-init, which AL2023 runs, cannot execute it, while AL2's build runs it through /bin/sh (the corpus' note on cloud-init 19.3-46.amzn2)",
			"make #!/bin/sh its first line to keep running it, or remove it")
		return
	}
	for _, s := range scripts {
		n.refuseCommands(s, al2023Refusals)
		lines := removals(s, j)
		if len(lines) == 0 {
			continue
		}
		if s.Fixed || s.Stage != cloudinit.StageUser {
			n.refuse("the "+s.Name+" of this part", s.Line, part, "it calls the join or edits its files, and this migration rewrites only #!/bin/bash script parts", "move the join out of it")
			return
		}
		edited, err := neutralize(s.Body, s.walk.Stmts, lines)
		if err != nil {
			n.refuse("a statement of this script", s.Line, part, err.Error(), "take the join and the edits of AL2's files out by hand")
			return
		}
		body = edited
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return
	}
	h := "Content-Type: " + mime.FormatMediaType(p.Type, map[string]string{"charset": "us-ascii"}) + "\n"
	if p.Type == "text/x-not-multipart" || p.Type == "text/plain" {
		h = "Content-Type: text/x-shellscript; charset=\"us-ascii\"\n"
	}
	if p.Filename != "" {
		h += "Content-Disposition: " + mime.FormatMediaType("attachment", map[string]string{"filename": p.Filename}) + "\n"
	}
	n.parts = append(n.parts, append([]byte(h+"\n"), body...))
}

// al2023Refusals are commands AL2023 does not have, or whose AL2 use does
// not carry over.
var al2023Refusals = map[string][2]string{
	"amazon-linux-extras": {"AL2023 has no amazon-linux-extras", "install the package with dnf from AL2023's repositories, or bake it into the AMI"},
	"yum":                 {"AL2023's package manager is dnf (yum is its alias there), and its repositories have other packages than AL2's", "install the packages with dnf under their AL2023 names, or bake them into the AMI"},
	"docker":              {"AL2023's EKS AMIs run containerd and have no docker", "use containerd (ctr, crictl) or nerdctl"},
	"dockerd":             {"AL2023's EKS AMIs run containerd and have no docker", "configure containerd in spec.containerd of a NodeConfig"},
}

// refuseCommands refuses the commands of a script the table names, and
// edits of docker's daemon.json.
func (n *al2Node) refuseCommands(s *script, table map[string][2]string) {
	walkStmts(s.walk.Stmts, func(node syntax.Node) bool {
		c, ok := node.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		name, _ := literalCommand(c.Args[0])
		if why, ok := table[path.Base(name)]; ok {
			n.refuse(path.Base(name), s.absLine(int(c.Pos().Line())), s.part, why[0], why[1])
		}
		for _, a := range c.Args[1:] {
			if lit, _ := literalCommand(a); strings.HasPrefix(lit, "/etc/docker/") {
				n.refuse(name+" on "+lit, s.absLine(int(c.Pos().Line())), s.part, "AL2023 and Bottlerocket have no docker, and containerd does not read docker's daemon.json", "put containerd settings in spec.containerd.config of a NodeConfig (AL2023) or settings.container-runtime (Bottlerocket)")
			}
		}
		return true
	})
}

// walkStmts walks every node of statements, depth first.
func walkStmts(stmts []*syntax.Stmt, fn func(syntax.Node) bool) {
	for _, st := range stmts {
		syntax.Walk(st, fn)
	}
}

// literalCommand is a word's text when it is a plain literal.
func literalCommand(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok {
		return "", false
	}
	return lit.Value, true
}

// neutralize replaces the statement that starts on each of the given
// lines (a simple command, or an && / || / | list of them: an edit and
// the commands that apply it) by ':', bash's no-op, so that the script
// keeps its shape (a then-body stays non-empty) without running it.
func neutralize(body []byte, stmts []*syntax.Stmt, lines []int) ([]byte, error) {
	type span struct{ start, end int }
	var spans []span
	for _, line := range lines {
		st := statementAt(stmts, line)
		if st == nil {
			return nil, fmt.Errorf("no simple command starts on line %d of the script", line)
		}
		for _, r := range st.Redirs {
			if r.Hdoc != nil {
				return nil, fmt.Errorf("the command on line %d writes a here-document, which this migration does not rewrite", line)
			}
		}
		spans = append(spans, span{int(st.Pos().Offset()), int(st.End().Offset())})
	}
	slices.SortFunc(spans, func(a, b span) int { return b.start - a.start })
	out := slices.Clone(body)
	for i, s := range spans {
		if i > 0 && s.end > spans[i-1].start {
			continue // nested in one already replaced
		}
		noop := ":"
		if rest, _, _ := bytes.Cut(out[s.end:], []byte("\n")); len(bytes.TrimSpace(rest)) == 0 {
			noop = ": # moved to the NodeConfig by userdata.Migrate"
		}
		out = slices.Concat(out[:s.start], []byte(noop), out[s.end:])
	}
	return out, nil
}

// statementAt is the outermost statement starting on line that is a
// simple command or a list of them, outside command substitutions.
func statementAt(stmts []*syntax.Stmt, line int) *syntax.Stmt {
	var found *syntax.Stmt
	walkStmts(stmts, func(node syntax.Node) bool {
		switch node := node.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false // a command inside another is not a statement of the script
		case *syntax.Stmt:
			if int(node.Pos().Line()) == line && simpleList(node) && (found == nil || node.Pos().Offset() < found.Pos().Offset() || node.End().Offset() > found.End().Offset()) {
				found = node
			}
		}
		return true
	})
	return found
}

// simpleList reports a simple command, or an && / || / | list of them.
func simpleList(st *syntax.Stmt) bool {
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return true
	case *syntax.BinaryCmd:
		return simpleList(c.X) && simpleList(c.Y)
	}
	return false
}

// jqEdits are the assignments of a jq edit of kubelet-config.json; any
// other jq operation starts from the AMI's file, whose content differs
// between releases, and does not carry over.
func jqEdits(c fileChange) ([]edit.Edit, error) {
	edits, err := edit.ParseJQ(c.Text, c.Args)
	if err != nil {
		return nil, err
	}
	for _, e := range edits {
		if e.Op != edit.Set {
			return nil, fmt.Errorf("it changes .%s from the AMI's value, which differs between releases", strings.Join(e.Path, "."))
		}
	}
	return edits, nil
}

// bottlerocketPart accounts for one part on Bottlerocket, which runs no
// part of userData (its early-boot-config reads the userData as TOML
// settings): each statement of a script must be the join or an edit
// whose effect moved, an inert one (set, echo, an assignment, the output
// logging), or a sysctl, which moves to settings.kernel.sysctl.
func (n *al2Node) bottlerocketPart(p cloudinit.Part, part string, scripts []*script, j joinTrace) {
	if len(bytes.TrimSpace(p.Body)) == 0 {
		return
	}
	if len(scripts) != 1 || scripts[0].Stage != cloudinit.StageUser || scripts[0].Fixed {
		n.refuse("this "+p.Type+" part", p.Line, part, "Bottlerocket reads only TOML settings from userData and runs no part of it", "run it from a bootstrap container (settings.bootstrap-containers)")
		return
	}
	s := scripts[0]
	moved := removals(s, j)
	inert := 0
	for _, st := range s.walk.Stmts {
		line := int(st.Pos().Line())
		switch {
		case slices.Contains(moved, line):
		case inertStatement(st):
			inert++
		case n.sysctl(st, s.absLine(line), part):
		default:
			n.refuse(statementName(st), s.absLine(line), part, "Bottlerocket runs no shell script from userData", "run it from a bootstrap container (settings.bootstrap-containers), or use the Bottlerocket setting that does the same")
		}
	}
	if inert > 0 {
		n.drop(fmt.Sprintf("%d inert statements of this script (set, echo, assignments, output logging)", inert), s.Line, part, "they only matter inside the script, which Bottlerocket does not run")
	}
}

// inertStatements are commands whose effect ends with the script.
var inertStatements = map[string]bool{"set": true, "echo": true, "printf": true, ":": true, "true": true, "logger": true, "sleep": true, "shopt": true}

// inertStatement reports a statement whose effect ends with the script:
// an assignment, a declaration, an inert command, or exec with only
// redirections (the logging of Karpenter's and the EKS docs' scripts).
func inertStatement(st *syntax.Stmt) bool {
	switch c := st.Cmd.(type) {
	case *syntax.DeclClause:
		return true
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return true
		}
		name, ok := literalCommand(c.Args[0])
		if name == "exec" && len(c.Args) == 1 {
			return true // the script's own output, redirected
		}
		return ok && inertStatements[name] && !writesFile(st)
	}
	return false
}

// writesFile reports a statement whose redirections write a file: not a
// file descriptor, /dev/null or the console.
func writesFile(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		if r.Op == syntax.DplOut || r.Op == syntax.DplIn {
			continue
		}
		if lit, _ := literalCommand(r.Word); !strings.HasPrefix(lit, "/dev/") {
			return true
		}
	}
	return false
}

// statementName names a statement for people: its command, or its kind.
func statementName(st *syntax.Stmt) string {
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
		if name, ok := literalCommand(c.Args[0]); ok {
			return name
		}
	}
	return "a compound statement"
}

// sysctl moves "sysctl [-w] key=value ..." to settings.kernel.sysctl,
// where Bottlerocket's apiclient sets kernel parameters at boot.
func (n *al2Node) sysctl(st *syntax.Stmt, line int, part string) bool {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 2 {
		return false
	}
	if name, _ := literalCommand(c.Args[0]); path.Base(name) != "sysctl" {
		return false
	}
	params := map[string]string{}
	for _, a := range c.Args[1:] {
		lit, ok := literalCommand(a)
		switch {
		case !ok:
			return false
		case lit == "-w" || lit == "-q":
		case strings.Contains(lit, "="):
			k, v, _ := strings.Cut(lit, "=")
			params[k] = v
		default:
			return false
		}
	}
	if len(params) == 0 {
		return false
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		n.sysctls[k] = params[k]
		n.move("sysctl "+k+"="+params[k], line, part, fieldSysctl.bottlerocket+".\""+k+"\"")
	}
	return true
}
