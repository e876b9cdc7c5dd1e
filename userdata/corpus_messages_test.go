package userdata

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// internalNames are names that are Render's own and mean nothing to a
// caller: its sentinel taint, and the reserved .invalid domain it lives
// in (RFC 2606). A message that shows one says something about a taint
// the caller never asked for.
var internalNames = []string{renderSentinel.Key, ".invalid/"}

// TestCorpusMessages scans every message the userData corpus produces for
// internal names: Lint's report on each document (reason and problems),
// and for the documents Karpenter merged, Render's on the userData as
// published, given as custom userData of its family (with and without
// Config.AllowUnresolved): the error, and the report a *LintError
// carries. Render lints custom parts with a sentinel taint of its own to
// find the line of a join (lintCustom); before it took the sentinel out,
// a custom part that called bootstrap.sh was reported as missing
// "render.ec2select.invalid/custom-part-check" instead of
// karpenter.sh/unregistered.
func TestCorpusMessages(t *testing.T) {
	entries := readCorpus(t)
	scanned := 0
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		e := entries[name]
		family, err := compat.ParseAMIFamily(e.Family)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(corpusDir, filepath.Dir(name))
		data, err := os.ReadFile(filepath.Join(dir, e.Document))
		if err != nil {
			t.Fatal(err)
		}
		report, err := Lint(family, data, []Taint{UnregisteredTaint()})
		if err != nil {
			t.Fatalf("%s: Lint: %v", name, err)
		}
		scanned += checkMessages(t, name+" (Lint)", reportMessages(report))
		if e.Usage != "karpenter" || e.Published == "" || (family != compat.AL2 && family != compat.AL2023) {
			continue
		}
		published, err := os.ReadFile(filepath.Join(dir, e.Published))
		if err != nil {
			t.Fatal(err)
		}
		for _, allow := range []bool{false, true} {
			cfg := baseConfig()
			cfg.CustomUserData, cfg.AllowUnresolved = published, allow
			_, report, err := RenderWithReport(family, cfg)
			msgs := reportMessages(report)
			if err != nil {
				msgs = append(msgs, err.Error())
			}
			var le *LintError
			if errors.As(err, &le) {
				msgs = append(msgs, reportMessages(le.Report)...)
			}
			scanned += checkMessages(t, name+" (Render)", msgs)
		}
	}
	if scanned < 100 {
		t.Errorf("scanned %d messages; the corpus gives more: is it read?", scanned)
	}
}

// TestRenderCustomJoinNamesRequiredTaint: custom AL2 userData that calls
// bootstrap.sh itself is refused, and the report says the required taint
// it lacks, on the line of the call, never Render's sentinel.
func TestRenderCustomJoinNamesRequiredTaint(t *testing.T) {
	cfg := baseConfig()
	cfg.CustomUserData = []byte("#!/bin/bash\necho hi\n/etc/eks/bootstrap.sh my-cluster\n")
	_, err := Render(compat.AL2, cfg)
	var le *LintError
	if !errors.As(err, &le) {
		t.Fatalf("Render = %v, want a *LintError", err)
	}
	if !strings.Contains(err.Error(), "line 3: it calls bootstrap.sh") {
		t.Errorf("error %q does not name the call on line 3", err)
	}
	var missing []string
	for _, p := range le.Report.Problems {
		if p.Code == CodeRequiredTaintMissing {
			missing = append(missing, p.Message)
		}
	}
	want := []string{"required taint karpenter.sh/unregistered:NoExecute missing: the kubelet will register the node without it"}
	if !slices.Equal(missing, want) {
		t.Errorf("required-taint problems = %q, want %q", missing, want)
	}
	checkMessages(t, "custom join", append(reportMessages(le.Report), err.Error()))
}

func reportMessages(r Report) []string {
	msgs := []string{r.Reason}
	for _, p := range r.Problems {
		msgs = append(msgs, p.Message, p.Fix)
	}
	return msgs
}

// checkMessages reports each message that shows an internal name, and
// returns how many it scanned.
func checkMessages(t *testing.T, where string, msgs []string) int {
	t.Helper()
	for _, m := range msgs {
		for _, n := range internalNames {
			if strings.Contains(m, n) {
				t.Errorf("%s: message shows the internal name %q: %s", where, n, m)
			}
		}
	}
	return len(msgs)
}
