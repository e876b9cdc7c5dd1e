package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/internal/golden"
)

// TestMigrateTo: -migrate-to writes each AL2 EC2NodeClass's spec.userData
// for the target, as Karpenter merges it: its harmless script kept (the
// bootstrap.sh edit taken out), the flag that edit added moved to a
// NodeConfig (AL2023); for Bottlerocket, which runs no script, the script
// is refused by its command and line (issue 39).
func TestMigrateTo(t *testing.T) {
	t.Parallel()
	out, _ := runArgs(t, "", "-k8s", "1.32", "-migrate-to", "al2023", "testdata/migrate.yaml")
	golden.Check(t, "testdata/migrate.golden", []byte(out), *update)
	for _, want := range []string{
		"EC2NodeClass legacy (testdata/migrate.yaml:5): migrated to AL2023 (-migrate-to)",
		"moved: --image-gc-high-threshold=90 (added by an edit of the join's files) → spec.kubelet.flags",
		"      echo \"vm.max_map_count=262144\" > /etc/sysctl.d/99-es.conf\n",
		"          - --image-gc-high-threshold=90\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	out, _ = runArgs(t, "", "-k8s", "1.32", "-migrate-to", "bottlerocket", "-o", "json", "testdata/migrate.yaml")
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Migrations) != 1 || r.Migrations[0].Migrated || len(r.Migrations[0].Refused) != 1 || !strings.Contains(r.Migrations[0].Refused[0], "line 8: echo: Bottlerocket runs no shell script") {
		t.Errorf("-migrate-to bottlerocket: %+v; want the echo to a file refused by line", r.Migrations)
	}
	if _, err := runArgs(t, "", "-migrate-to", "windows", "testdata/migrate.yaml"); err == nil {
		t.Errorf("-migrate-to windows: no error")
	}
}
