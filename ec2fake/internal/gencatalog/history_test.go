package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseEKSHistory(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // name/family/arch/flavour/k8s/release-version
		wantErr    string
	}{
		{name: "all shapes", text: "# c\namazon-eks-node-al2023-arm64-nvidia-1.33-v20250715\t1.33.0-20250715\n" +
			"amazon-eks-node-al2023-x86_64-nvidia-560-1.31-v20241016\t1.31.0-20241016\n" +
			"amazon-eks-gpu-node-1.29-v20240129\t1.29.0-20240129\namazon-eks-arm64-node-1.32-v20251209\t1.32.9-20251209\n\n",
			want: []string{
				"amazon-eks-node-al2023-arm64-nvidia-1.33-v20250715 al2023 arm64 nvidia 1.33 1.33.0-20250715",
				"amazon-eks-node-al2023-x86_64-nvidia-560-1.31-v20241016 al2023 x86_64 nvidia-560 1.31 1.31.0-20241016",
				"amazon-eks-gpu-node-1.29-v20240129 al2 x86_64 gpu 1.29 1.29.0-20240129",
				"amazon-eks-arm64-node-1.32-v20251209 al2 arm64 standard 1.32 1.32.9-20251209",
			}},
		{name: "one field", text: "amazon-eks-node-1.29-v20240129\n", wantErr: "line 1: 1 tab-separated fields; want 2"},
		{name: "not an EKS name", text: "bottlerocket-aws-k8s-1.29-x86_64-v1.20.0-fcf71a47\t1.29.0-20240129\n", wantErr: "is not an AL2 or AL2023 EKS AMI name"},
		{name: "arm64 neuron does not exist", text: "amazon-eks-node-al2023-arm64-neuron-1.33-v20250715\t1.33.0-20250715\n", wantErr: "AL2023 has no arm64 neuron image"},
		{name: "version outside the history", text: "amazon-eks-node-1.28-v20240129\t1.28.5-20240129\n", wantErr: "Kubernetes 1.28 is outside 1.29-1.36"},
		{name: "not a date", text: "amazon-eks-node-1.29-v20241301\t1.29.0-20241301\n", wantErr: "release v20241301 is not a date"},
		{name: "release version of another day", text: "amazon-eks-node-1.29-v20240129\t1.29.0-20240130\n", wantErr: `release version "1.29.0-20240130" does not match`},
		{name: "release version of another minor", text: "amazon-eks-node-1.29-v20240129\t1.30.0-20240129\n", wantErr: "want 1.29.PATCH-20240129"},
		{name: "twice", text: "amazon-eks-node-1.29-v20240129\t1.29.0-20240129\namazon-eks-node-1.29-v20240129\t1.29.0-20240129\n", wantErr: "line 2: amazon-eks-node-1.29-v20240129 is listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseEKSHistory(tc.text)
			if !matchErr(t, err, tc.wantErr) {
				return
			}
			var lines []string
			for _, a := range got {
				lines = append(lines, strings.Join([]string{a.name, a.family, a.arch, a.flavour, a.k8s, a.releaseVersion}, " "))
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("parseEKSHistory (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseBottlerocketHistory(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // version suffix date k8s... fips-from
		wantErr    string
	}{
		{name: "recorded and synthetic builds", text: "v1.20.0\tfcf71a47\t2024-05-13\tchangelog\t1.29\t1.30\t-\ttag\nv1.58.0\t-\t2026-04-06\tchangelog\t1.30\t1.31\t1.30\t#4797\n",
			want: []string{"v1.20.0 fcf71a47 2024-05-13 [1.29 1.30] 0", "v1.58.0 eeb9c16f 2026-04-06 [1.30 1.31] 30"}},
		{name: "fields", text: "v1.20.0\tfcf71a47\t2024-05-13\tchangelog\t1.29\t1.30\t-\n", wantErr: "7 tab-separated fields; want 8"},
		{name: "version", text: "1.20.0\tfcf71a47\t2024-05-13\tchangelog\t1.29\t1.30\t-\ttag\n", wantErr: `version "1.20.0" is not vX.Y.Z`},
		{name: "twice", text: "v1.20.0\t-\t2024-05-13\tpr\t1.29\t1.30\t-\tx\nv1.20.0\t-\t2024-05-13\tpr\t1.29\t1.30\t-\tx\n", wantErr: "listed twice"},
		{name: "commit", text: "v1.20.0\tFCF71A47\t2024-05-13\tchangelog\t1.29\t1.30\t-\ttag\n", wantErr: `commit "FCF71A47" is not 8 lowercase hex digits`},
		{name: "date", text: "v1.20.0\t-\t2024-5-13\tchangelog\t1.29\t1.30\t-\ttag\n", wantErr: `date "2024-5-13" is not YYYY-MM-DD`},
		{name: "date source", text: "v1.20.0\t-\t2024-05-13\tguess\t1.29\t1.30\t-\ttag\n", wantErr: `date source "guess"`},
		{name: "range", text: "v1.20.0\t-\t2024-05-13\tpr\t1.30\t1.29\t-\ttag\n", wantErr: "1.30..1.29 is not two 1.N versions in order"},
		{name: "outside", text: "v1.20.0\t-\t2024-05-13\tpr\t1.28\t1.29\t-\ttag\n", wantErr: "Kubernetes 1.28 is outside"},
		{name: "fips outside the range", text: "v1.20.0\t-\t2024-05-13\tpr\t1.29\t1.30\t1.31\ttag\n", wantErr: `fips-first "1.31"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseBottlerocketHistory(tc.text)
			if !matchErr(t, err, tc.wantErr) {
				return
			}
			var lines []string
			for _, r := range got {
				lines = append(lines, r.version+" "+r.buildSuffix()+" "+r.date.Format("2006-01-02")+" ["+strings.Join(r.k8s, " ")+"] "+strconv.Itoa(r.fipsFrom))
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("parseBottlerocketHistory (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseWindowsHistory(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
		wantErr    string
	}{
		{name: "dots and dashes", text: "Windows_Server-2022-English-Full-EKS_Optimized-1.31-2024.11.12\tawsdocs\nWindows_Server-2025-English-Core-EKS_Optimized-1.35-2026-01-22\tcn-docs\n",
			want: []string{"2022 Full 1.31 2024-11-12", "2025 Core 1.35 2026-01-22"}},
		{name: "not a name", text: "Windows_Server-2016-English-Core-EKS_Optimized-1.31-2024.11.12\tawsdocs\n", wantErr: "is not an EKS-optimized Windows AMI name"},
		{name: "not a date", text: "Windows_Server-2022-English-Core-EKS_Optimized-1.31-2024.13.12\tawsdocs\n", wantErr: "the release is not a date"},
		{name: "2025 before 1.35", text: "Windows_Server-2025-English-Core-EKS_Optimized-1.34-2026.01.22\tcn-docs\n", wantErr: "Server 2025 images start with Kubernetes 1.35"},
		{name: "source", text: "Windows_Server-2022-English-Core-EKS_Optimized-1.31-2024.11.12\tblog\n", wantErr: `source "blog"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseWindowsHistory(tc.text)
			if !matchErr(t, err, tc.wantErr) {
				return
			}
			var lines []string
			for _, w := range got {
				lines = append(lines, w.year+" "+w.edition+" "+w.k8s+" "+w.date.Format("2006-01-02"))
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("parseWindowsHistory (-want +got):\n%s", diff)
			}
		})
	}
}

// matchErr reports whether the test should go on to compare results: it
// fails the test when err does not match wantErr ("" = no error).
func matchErr(t *testing.T, err error, wantErr string) bool {
	t.Helper()
	if wantErr == "" {
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	if err == nil || !strings.Contains(err.Error(), wantErr) {
		t.Fatalf("error = %v; want one containing %q", err, wantErr)
	}
	return false
}

// The recorded histories themselves: what the sources say about which
// variants exist, checked on the committed files.
func TestRecordedHistory(t *testing.T) {
	h, err := readHistory("../../catalog/upstream")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, img := range h.images() {
		names[*img.Name] = true
	}
	// Pinned in published manifests: karpenter-provider-aws examples/v1/
	// min-values-family.yaml (al2023@v20240625) at 1d927085;
	// aws-samples/karpenter-blueprints blueprints/dynamic-disk-ebs-volume/
	// ebs-dynamic-resize.yaml (al2023@v20250715) and blueprints/multi-ebs/
	// multi-ebs.yaml (bottlerocket@v1.39.1) at 529b88cf.
	for _, name := range []string{
		"amazon-eks-node-al2023-x86_64-standard-1.30-v20240625", "amazon-eks-node-al2023-arm64-standard-1.29-v20240625",
		"amazon-eks-node-al2023-x86_64-standard-1.33-v20250715", "amazon-eks-node-al2023-arm64-nvidia-1.29-v20250715",
		"amazon-eks-node-1.32-v20250715", "amazon-eks-gpu-node-1.29-v20250715",
		"bottlerocket-aws-k8s-1.33-x86_64-v1.39.1-fe9ebb75", "bottlerocket-aws-k8s-1.29-nvidia-aarch64-v1.39.1-fe9ebb75",
		"bottlerocket-aws-k8s-1.29-x86_64-v1.20.0-fcf71a47", // the tag's commit
		"bottlerocket-aws-k8s-1.33-x86_64-v1.46.0-431fe75a", // karpenter-provider-aws bottlerocket_test.go
		"Windows_Server-2025-English-Core-EKS_Optimized-1.35-2026.04.18",
	} {
		if !names[name] {
			t.Errorf("%s is missing", name)
		}
	}
	for name := range names {
		al2 := historyAL2Name.FindStringSubmatch(name)
		win := historyWindowsName.FindStringSubmatch(name)
		switch {
		case strings.HasSuffix(name, "-v20260311"), strings.HasSuffix(name, "-v20260128"):
			t.Errorf("%s: the release was abandoned (CHANGELOG.md \"[ABANDONED] AMI Release\")", name)
		case strings.HasPrefix(name, "amazon-eks-arm64-gpu-"), strings.Contains(name, "al2023-arm64-neuron"):
			t.Errorf("%s: no such variant exists", name)
		case al2 != nil && minorOf(t, al2[2]) > 32:
			t.Errorf("%s: AL2 AMIs stop at Kubernetes 1.32", name)
		case win != nil && win[1] == "2025" && minorOf(t, win[3]) < 35:
			t.Errorf("%s: Server 2025 AMIs start with Kubernetes 1.35", name)
		}
	}
	// AL2023 v20240625 shipped only standard images, for 1.23-1.30
	// (CHANGELOG.md "AMI Release v20240625").
	var v20240625 []string
	for _, a := range h.eks {
		if strings.HasSuffix(a.name, "-v20240625") && a.family == "al2023" {
			v20240625 = append(v20240625, a.name)
		}
	}
	slices.Sort(v20240625)
	want := []string{
		"amazon-eks-node-al2023-arm64-standard-1.29-v20240625", "amazon-eks-node-al2023-arm64-standard-1.30-v20240625",
		"amazon-eks-node-al2023-x86_64-standard-1.29-v20240625", "amazon-eks-node-al2023-x86_64-standard-1.30-v20240625",
	}
	if diff := cmp.Diff(want, v20240625); diff != "" {
		t.Errorf("AL2023 v20240625 (-want +got):\n%s", diff)
	}
	// Bottlerocket release days rise with versions, so that the newest
	// version is also the newest image.
	for i := 1; i < len(h.bottlerocket); i++ {
		a, b := h.bottlerocket[i-1], h.bottlerocket[i]
		if b.date.Before(a.date) {
			t.Errorf("%s (%s) is dated before %s (%s)", b.version, b.date.Format("2006-01-02"), a.version, a.date.Format("2006-01-02"))
		}
	}
}

func FuzzParseEKSHistory(f *testing.F) {
	f.Add("amazon-eks-node-al2023-x86_64-standard-1.32-v20250715\t1.32.3-20250715\n")
	f.Add("# x\namazon-eks-gpu-node-1.29-v20240129\t1.29.0-20240129")
	f.Fuzz(func(t *testing.T, text string) {
		got, err := parseEKSHistory(text)
		if err != nil {
			return
		}
		for _, a := range got {
			if !strings.HasPrefix(a.releaseVersion, a.k8s+".") {
				t.Fatalf("%+v: release version of another Kubernetes version", a)
			}
		}
		_ = history{eks: got}.images() // must not panic
	})
}

func FuzzParseBottlerocketHistory(f *testing.F) {
	f.Add("v1.39.1\t-\t2025-05-14\testimated\t1.29\t1.33\t1.29\tbottlerocket.dev/1.39.x\n")
	f.Add("v1.20.0\tfcf71a47\t2024-05-13\tchangelog\t1.29\t1.30\t-\ttag")
	f.Fuzz(func(t *testing.T, text string) {
		got, err := parseBottlerocketHistory(text)
		if err != nil {
			return
		}
		for _, r := range got {
			if len(r.k8s) == 0 || len(r.buildSuffix()) != 8 {
				t.Fatalf("%+v: no Kubernetes versions or a bad build suffix", r)
			}
		}
		_ = history{bottlerocket: got[:min(len(got), 3)]}.images() // must not panic
	})
}

func FuzzParseWindowsHistory(f *testing.F) {
	f.Add("Windows_Server-2022-English-Core-EKS_Optimized-1.31-2024.11.12\tawsdocs\n")
	f.Fuzz(func(t *testing.T, text string) {
		got, err := parseWindowsHistory(text)
		if err != nil {
			return
		}
		_ = history{windows: got}.images() // must not panic
	})
}

func minorOf(t *testing.T, k8s string) int {
	t.Helper()
	m, err := minor(k8s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
