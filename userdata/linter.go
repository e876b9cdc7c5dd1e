package userdata

import (
	"encoding/base64"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/kubelet"
)

// linter collects problems while one Lint call runs. It is not shared.
type linter struct {
	required []Taint
	problems []Problem
	part     string // the file name of the MIME part being read
	stop     stopBefore
	// argLine, when set, gives the line of a kubelet argument (nodeadm's
	// flags come from several documents).
	argLine func(arg string) int
	// releases are the kubelet releases the node may run: the one of the
	// Kubernetes version Lint was given, or those the family's AMIs ship.
	releases kubelet.Releases
	// minor is the Kubernetes minor version Lint was given, 0 if none.
	minor int
	// ami is the image Lint was told the node boots ([AMI]).
	ami amiOption
	// layout is the text of AL2's kubelet-config.json the analysis runs
	// for, when an edit of it works on its text.
	layout al2ConfigLayout
	// endsFollowed says the family's analysis takes every event a script
	// records as one that may run, so an exit in a branch (which can only
	// skip what follows) need not stop it: AL2023's, which refuses any
	// script event that matters whether or not it runs.
	endsFollowed bool
	// trace, when set, records how the userData reaches its join, for
	// [Migrate] (an *al2Trace; any, so that the vocabulary of the AL2
	// analysis stays in its own files).
	trace any
}

// forRelease sets the kubelet releases the node of family f may run: the
// release of Kubernetes 1.minor when the tables cover it, otherwise those
// the family's AMIs ship.
func (l *linter) forRelease(f compat.AMIFamily, minor int) {
	l.releases = kubelet.ReleasesCurrent
	if f == compat.AL2 {
		l.releases = kubelet.ReleasesAL2
	}
	if kubelet.Minor(minor) != 0 {
		l.releases, l.minor = kubelet.Minor(minor), minor
	}
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

// scopeLast narrows the problem added last to the AMIs it arises on.
func (l *linter) scopeLast(s AMIScope) {
	l.problems[len(l.problems)-1].AMIs = s
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
	// maxPodsExpression and its line: AL2023's, for Report.
	maxPodsExpression     string
	maxPodsExpressionLine int
	// dropped are the arguments the boot agent drops (bootstrap.sh's extra
	// positional words), each with the code of the problem that says so.
	dropped []droppedArg
	// argv are the kubelet arguments the boot agent adds (AL2's
	// KUBELET_EXTRA_ARGS as systemd splits it).
	argv []string
	// extra and given are AL2's KUBELET_EXTRA_ARGS after the lines sed
	// added to bootstrap.sh ran, and as bootstrap.sh was given it.
	extra, given string
}

// droppedArg is an argument the boot agent drops: the taints it would
// have registered, and the code of the problem that says it is dropped.
type droppedArg struct {
	taints []Taint
	code   Code
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
		r.MaxPodsExpression, r.MaxPodsExpressionLine = b.maxPodsExpression, b.maxPodsExpressionLine
		if len(b.labels) > 0 {
			r.Labels = b.labels
		}
	} else if p, ok := l.decisive(r.Verdict); ok {
		r.Reason, r.Line, r.Part = p.Message, p.Line, p.Part
	} else {
		r.Reason = "the analysis found nothing that decides how the node joins"
	}
	r.Problems = distinct(l.problems)
	return r
}

// distinct drops repeated problems (an analysis that follows several
// possible first calls, or branches, can find one twice), keeping the
// first of each.
func distinct(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
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
		for _, d := range b.dropped {
			if containsMatch(d.taints, req) {
				l.problems[len(l.problems)-1].Cause = d.code
				break
			}
		}
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

// taintListWith is the --register-with-taints value that registers the
// given taints plus t.
func taintListWith(taints []Taint, t Taint) string {
	return FormatTaints(append(slices.Clone(taints), t))
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
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

// stopBefore is the first place a script certainly stops before a later
// mention of the join.
type stopBefore struct {
	line int
	part string
	why  string
}
