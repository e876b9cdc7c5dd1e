package userdata

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

// corpusMigrations are how many of the corpus' AL2 documents migrate to
// each target; the others are refused with what cannot move named. The
// README gives these figures; TestCorpusMigrate fails when they change.
var corpusMigrations = map[compat.AMIFamily]int{compat.AL2023: 12, compat.Bottlerocket: 8}

// TestCorpusMigrate (issue 39): every AL2 document of the corpus either
// migrates, Lint showing the same taints, labels, max pods and kubelet
// configuration on both sides (Migrate refuses otherwise), or is refused
// with each construct that cannot move named, with its reason. The
// cluster values a document leaves to bootstrap.sh's describe-cluster are
// given as an operator gives them (MigrateOptions).
func TestCorpusMigrate(t *testing.T) {
	entries := readCorpus(t)
	got := map[compat.AMIFamily]int{}
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		e := entries[name]
		if e.Family != "AL2" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(corpusDir, filepath.Dir(name), e.Document))
		if err != nil {
			t.Fatal(err)
		}
		var required []Taint
		for _, s := range e.Required {
			taint, _ := ParseTaint(s)
			required = append(required, taint)
		}
		opts := MigrateOptions{Required: required, APIServerEndpoint: "https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com",
			CABundle: migrateCA, ClusterCIDR: "10.100.0.0/16"}
		for _, target := range []compat.AMIFamily{compat.AL2023, compat.Bottlerocket} {
			m, err := Migrate(data, target, opts)
			var me *MigrateError
			switch {
			case err == nil:
				got[target]++
				if m.After.Verdict != Joins || len(m.Differences) > 0 {
					t.Errorf("%s → %v: migrated, but After is %v with differences %v", name, target, m.After.Verdict, m.Differences)
				}
			case errors.As(err, &me):
				if len(me.Migration.Refused)+len(me.Migration.Differences) == 0 {
					t.Errorf("%s → %v: refused without naming what cannot move", name, target)
				}
				for _, u := range me.Migration.Refused {
					if u.What == "" || u.Reason == "" {
						t.Errorf("%s → %v: a refusal without its construct or reason: %+v", name, target, u)
					}
				}
				t.Logf("%s → %v: refused: %s", name, target, me.Migration.Refused[0])
			default:
				t.Errorf("%s → %v: %v", name, target, err)
			}
		}
	}
	for _, target := range []compat.AMIFamily{compat.AL2023, compat.Bottlerocket} {
		if got[target] != corpusMigrations[target] {
			t.Errorf("%d AL2 documents migrate to %v; corpusMigrations (and the README) say %d", got[target], target, corpusMigrations[target])
		}
	}
}
