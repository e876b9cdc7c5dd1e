package userdata

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"slices"

	"github.com/ec2select/ec2select/compat"

	"github.com/ec2select/ec2select/userdata/internal/bottlerocket"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
)

// maxDecompressed bounds gzip'd userData, so that a small input cannot
// expand without limit.
const maxDecompressed = 1 << 20

// Lint reads userData the way the family's boot software does and reports
// whether the node joins, the taints the kubelet registers, and every
// problem on the way. userData may be raw or base64 (as EC2 returns it),
// and may be gzip'd. required are the taints the controller requires,
// matched by key and effect, exactly as given: empty means none (pass
// [Config.Required] to check what [Render] requires, or
// []Taint{UnregisteredTaint()} for Karpenter v1's). For [compat.Custom]
// the family is guessed from the userData's shape.
//
// It follows (sources are cited at the code and in the tests):
//
//   - cloud-init: part types (from Content-Type, or the first line of a
//     text/plain part), file names (Content-Disposition filename, else
//     part-NNN) and the order they run in (boothooks, bootcmd, then
//     per-once, per-boot, per-instance and user scripts, each by file
//     name), CRLF conversion, nested multiparts; #include, jinja, part
//     handlers, other interpreters and unmodelled cloud-config are
//     unresolved.
//   - bash: statements in order, static variables and arrays, quoting and
//     word splitting, set -e, exit, constant conditions, wrappers (sudo,
//     env, exec, cloud-init-per); eval, source, sh -c, unread scripts and
//     direct kubelet starts are unresolved.
//   - bootstrap.sh: its exact option list, "--option=value" as a
//     positional word, and the argument values that make it exit.
//   - systemd: the drop-in Environment= line and the splitting of
//     $KUBELET_EXTRA_ARGS; a quote, newline or lone '%' in it is unresolved ("%%" is '%').
//   - the kubelet: its real flag set per release (unknown flags exit), the
//     last --register-with-taints, its own cloud-provider taint, a
//     duplicate of which the API server refuses, label rules.
//   - nodeadm: top-level NodeConfig parts merged in order (flags appended,
//     config maps merged, an explicit empty list or null replaces), config
//     keys matched ignoring case, timeAdded refused.
//   - Bottlerocket and EC2Launch: the settings TOML; the <powershell>
//     block and Start-EKSBootstrap.ps1's parameters (how it hands
//     -KubeletExtraArgs to kubelet.exe is not published; Lint assumes what
//     public copies do).
//
// Lint returns an error only for an unknown family, invalid required
// taints, or gzip data it cannot decompress; everything else is in the
// [Report].
func Lint(family compat.AMIFamily, userData []byte, required []Taint) (Report, error) {
	if !family.Valid() {
		return Report{}, fmt.Errorf("userdata: cannot lint for %v; use AL2, AL2023, Bottlerocket, Windows2019, Windows2022, Windows2025 or Custom", family)
	}
	if err := validateTaintList("required taints", required); err != nil {
		return Report{}, err
	}
	text, rawSize, err := decodeUserData(userData)
	if err != nil {
		return Report{}, err
	}
	l := &linter{required: required}
	if rawSize > MaxSize {
		l.add(CodeTooLarge, 0, "shorten the custom part of the userData",
			"the userData is %d bytes; EC2 accepts at most %d bytes before base64", rawSize, MaxSize)
	}
	if family == compat.Custom {
		family = detectFamily(text)
	}
	l.releases = kubelet.ReleasesCurrent
	if family == compat.AL2 {
		l.releases = kubelet.ReleasesAL2
	}
	var b boot
	switch family {
	case compat.AL2:
		b = l.lintCloudInit(text)
	case compat.AL2023:
		b = l.lintNodeadm(text)
	case compat.Bottlerocket:
		b = l.lintBottlerocket(text)
	case compat.Windows2019, compat.Windows2022, compat.Windows2025:
		b = l.lintWindows(text)
	}
	return l.finish(b), nil
}

// decodeUserData undoes base64 and gzip. rawSize is the size EC2 counts:
// after base64, before gzip.
func decodeUserData(in []byte) (text []byte, rawSize int, err error) {
	raw := in
	if decoded, ok := decodeBase64Text(in); ok {
		raw = decoded
	}
	text = raw
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, 0, fmt.Errorf("userdata: userData looks gzip-compressed but is not: %v", err)
		}
		text, err = io.ReadAll(io.LimitReader(zr, maxDecompressed+1))
		if err != nil {
			return nil, 0, fmt.Errorf("userdata: cannot decompress gzip userData: %v", err)
		}
		if len(text) > maxDecompressed {
			return nil, 0, fmt.Errorf("userdata: gzip userData expands beyond %d bytes; it cannot be real userData", maxDecompressed)
		}
	}
	return text, len(raw), nil
}

// decodeBase64Text treats in as base64 only if it is nothing but the
// base64 alphabet and whitespace, decodes, and decodes to text or gzip.
// Real userData always contains a character outside the alphabet (a space,
// '#', ':' or '<'), so it is never mistaken for base64.
func decodeBase64Text(in []byte) ([]byte, bool) {
	clean := make([]byte, 0, len(in))
	for _, c := range in {
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		case isAlnum(c) || c == '+' || c == '/' || c == '=':
			clean = append(clean, c)
		default:
			return nil, false
		}
	}
	if len(clean) == 0 || len(clean)%4 != 0 {
		return nil, false
	}
	out, err := base64.StdEncoding.DecodeString(string(clean))
	if err != nil {
		return nil, false
	}
	if len(out) >= 2 && out[0] == 0x1f && out[1] == 0x8b {
		return out, true
	}
	if !isText(out) {
		return nil, false
	}
	return out, true
}

func isText(b []byte) bool {
	if !utf8Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// detectFamily guesses the boot agent of Custom userData from its shape.
// The Windows families share one boot script, so Windows2022 stands for
// all three.
func detectFamily(text []byte) compat.AMIFamily {
	trimmed := bytes.TrimLeft(text, " \t\r\n")
	switch {
	case bytes.Contains(bytes.ToLower(text), []byte("<powershell>")):
		return compat.Windows2022
	case mimedoc.LooksMIME(text):
		if bytes.Contains(bytes.ToLower(text), []byte("application/node.eks.aws")) {
			return compat.AL2023
		}
		return compat.AL2
	case bytes.HasPrefix(trimmed, []byte("#!")) || bytes.HasPrefix(trimmed, []byte("#cloud")):
		return compat.AL2
	}
	if nodeadm.IsNodeConfig(text) {
		return compat.AL2023
	}
	if bottlerocket.IsSettings(text) {
		return compat.Bottlerocket
	}
	return compat.AL2
}

// linter collects problems while one Lint call runs. It is not shared.
type linter struct {
	required []Taint
	problems []Problem
	part     string // the file name of the MIME part being read
	stop     stopBefore
	// argLine, when set, gives the line of a kubelet argument (nodeadm's
	// flags come from several documents).
	argLine func(arg string) int
	// releases are the sampled kubelet releases the family's AMIs ship.
	releases kubelet.Releases
}

func (l *linter) add(code Code, line int, fix, format string, args ...any) {
	l.problems = append(l.problems, Problem{
		Code:     code,
		Severity: code.Severity(),
		Line:     line,
		Part:     l.part,
		Message:  fmt.Sprintf(format, args...),
		Fix:      fix,
	})
}

// unresolved reports a construct the analysis cannot follow and returns
// the boot that makes the verdict [Unresolved].
func (l *linter) unresolved(line int, fix, format string, args ...any) boot {
	l.add(CodeUnresolved, line, fix, format, args...)
	return boot{registers: true, unresolved: true}
}

// boot is what a family's analysis concludes about the kubelet.
type boot struct {
	// registers is true when the boot agent runs and the kubelet starts and
	// registers the node with taints.
	registers bool
	// unresolved is true when the taints cannot be known before boot; a
	// CodeUnresolved problem says why.
	unresolved bool
	taints     []Taint
	// part is the MIME part the taints come from ("" if single-part).
	part string
	// kubelet are the taints the kubelet adds itself.
	kubelet []Taint
	labels  map[string]string
	// line is where the taint list is, or where it belongs.
	line int
	// fix says how to add a taint at that place.
	fix func(Taint) string
	// kubeletVals is the kubelet configuration the boot agent hands over.
	kubeletVals kubeletValues
}

func (b boot) verdict() Verdict {
	switch {
	case b.unresolved:
		return Unresolved
	case b.registers:
		return Joins
	}
	return NeverJoins
}

func (l *linter) finish(b boot) Report {
	r := Report{Verdict: b.verdict()}
	if r.Verdict == Joins {
		l.checkRequired(b)
		r.Taints = registered(b.taints, b.kubelet, l.required)
		r.Kubelet, r.KubeletSources = b.kubeletVals.cfg, b.kubeletVals.list()
		if len(b.labels) > 0 {
			r.Labels = b.labels
		}
	} else if p, ok := l.decisive(r.Verdict); ok {
		r.Reason, r.Line, r.Part = p.Message, p.Line, p.Part
	} else {
		r.Reason = "the analysis found nothing that decides how the node joins"
	}
	r.Problems = l.problems
	return r
}

// checkRequired reports each required taint the kubelet will not register.
func (l *linter) checkRequired(b boot) {
	l.part = b.part
	for _, req := range l.required {
		if containsMatch(b.taints, req) {
			continue
		}
		fix := ""
		if b.fix != nil {
			fix = b.fix(req)
		}
		l.add(CodeRequiredTaintMissing, b.line, fix,
			"required taint %s missing: the kubelet will register the node without it", req.String())
	}
}

// decisive is the problem that explains a verdict other than Joins: the
// first unresolved construct, or the last error (the one after which the
// analysis stopped).
func (l *linter) decisive(v Verdict) (Problem, bool) {
	if v == Unresolved {
		for _, p := range l.problems {
			if p.Code == CodeUnresolved {
				return p, true
			}
		}
	}
	for i := len(l.problems) - 1; i >= 0; i-- {
		if l.problems[i].Severity == SeverityError {
			return l.problems[i], true
		}
	}
	return Problem{}, false
}

// lineAt returns the 1-based line number of byte offset off in src.
func lineAt(src []byte, off int) int {
	return bytes.Count(src[:min(off, len(src))], []byte("\n")) + 1
}

// taintListWith is the --register-with-taints value that registers the
// given taints plus t.
func taintListWith(taints []Taint, t Taint) string {
	return FormatTaints(append(slices.Clone(taints), t))
}
