package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The committed catalog files are exactly what the generator makes from
// the committed inputs: nobody edited them by hand, and nobody changed an
// input without regenerating.
func TestCatalogFilesAreGenerated(t *testing.T) {
	if reason := sdkTooOld(); reason != "" {
		t.Skip(reason)
	}
	dir := t.TempDir()
	up := "../../catalog/upstream/"
	if err := run(up+"karpenter-v1.14-instance-types.md", up+"first-wave-instance-types.json",
		up+"first-wave-images.json", up+"images.spec", up, dir, recordedNetwork); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"instance_types.tsv", "images.tsv", "images_full.tsv"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("../../catalog", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != string(got) {
			t.Errorf("catalog/%s is not what gencatalog generates; run go generate in ec2fake", name)
		}
	}
}

func TestParseSpec(t *testing.T) {
	tests := []struct {
		name, text string
		want       []release
		wantErr    string
	}{
		{name: "lines and comments", text: "# c\nal2023 v20260714 2026-07-14 1.35 1.36 # trailing\n\nwindows 2026.09.10 2026-09-10 1.31 1.31\n",
			want: []release{{family: "al2023", name: "v20260714", k8s: []string{"1.35", "1.36"}}, {family: "windows", name: "2026.09.10", k8s: []string{"1.31"}}}},
		{name: "empty", text: "# nothing\n", want: nil},
		{name: "too few fields", text: "al2023 v20260714 2026-07-14 1.35\n", wantErr: "spec line 1: 4 fields"},
		{name: "bad date", text: "al2023 v20260714 2026-7-14 1.35 1.36\n", wantErr: `date "2026-7-14" is not YYYY-MM-DD`},
		{name: "reversed range", text: "al2023 v20260714 2026-07-14 1.36 1.35\n", wantErr: "1.36..1.35 is not two 1.N versions in order"},
		{name: "not a minor version", text: "al2023 v20260714 2026-07-14 2.1 2.2\n", wantErr: "is not two 1.N versions"},
		{name: "unknown family", text: "ubuntu v1 2026-07-14 1.35 1.36\n", wantErr: `family "ubuntu" is not al2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSpec(tc.text)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseSpec error = %v; want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				got[i].date = got[i].date.UTC().Truncate(0)
			}
			for i := range tc.want {
				tc.want[i].date = got[i].date // the date is checked by the error cases
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(release{})); diff != "" {
				t.Errorf("parseSpec (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseSpec(f *testing.F) {
	f.Add("al2023 v20260714 2026-07-14 1.31 1.36\n")
	f.Add("# x\nbottlerocket v1.61.0-9a3f5d07 2026-05-18 1.36 1.36")
	f.Add("windows a b c d e")
	f.Fuzz(func(t *testing.T, text string) {
		spec, err := parseSpec(text)
		if err != nil {
			return
		}
		for _, r := range spec {
			if len(r.k8s) == 0 {
				t.Fatalf("release %+v covers no Kubernetes version", r)
			}
		}
		_, _ = buildImages(spec[:min(len(spec), 3)], nil) // must not panic
	})
}
