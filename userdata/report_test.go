package userdata

import "testing"

func TestReportString(t *testing.T) {
	t.Parallel()
	r := Report{
		Verdict:  Joins,
		Taints:   []RegisteredTaint{{Taint: Taint{Key: "a", Value: "b", Effect: NoSchedule}, Source: SourceUser}, {Taint: UnregisteredTaint(), Source: SourceRequired}},
		Labels:   map[string]string{"x": "1", "a": "2"},
		Problems: []Problem{{Code: CodeIgnoredArgument, Severity: SeverityWarning, Line: 3, Message: "m", Fix: "f"}},
	}
	want := "verdict: joins\ntaints: a=b:NoSchedule, karpenter.sh/unregistered:NoExecute\nlabels: a=2, x=1\nline 3: warning ignored-argument: m\n    fix: f"
	if got := r.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
	if r.HasErrors() {
		t.Error("HasErrors() = true for a warning")
	}
}
