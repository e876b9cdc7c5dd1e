package amiselect

import (
	"errors"
	"slices"
	"strings"
	"testing"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
)

// assignment is who got what: instance type name → AMI ID and variant, or
// "" when unmapped.
func assignment(m Mapping, types []compat.InstanceType) map[string]string {
	out := map[string]string{}
	for _, t := range types {
		if a, ok := m.AMIFor(t.Name); ok {
			out[t.Name] = a.ID + " " + a.Variant.String()
		} else {
			out[t.Name] = ""
		}
	}
	return out
}

// permutations calls f with every ordering of amis.
func permutations(amis []AMI, f func([]AMI)) {
	var rec func(k int)
	rec = func(k int) {
		if k == len(amis) {
			f(append([]AMI(nil), amis...))
			return
		}
		for i := k; i < len(amis); i++ {
			amis[k], amis[i] = amis[i], amis[k]
			rec(k + 1)
			amis[k], amis[i] = amis[i], amis[k]
		}
	}
	rec(0)
}

// TestMapBottlerocketAnyOrder is karpenter-provider-aws #7925: the four
// Bottlerocket images (five entries) in every order still give each type
// its own variant.
func TestMapBottlerocketAnyOrder(t *testing.T) {
	sel := Select(bottlerocketImages(), at(fixedNow))
	types := []compat.InstanceType{m5Large, m6gLarge, g4dnXLarge, g5gXLarge, inf2XLarge}
	want := map[string]string{
		"m5.large":    "ami-0b000000000000001 standard", // x86_64
		"m6g.large":   "ami-0b000000000000002 standard", // aarch64
		"g4dn.xlarge": "ami-0b000000000000003 nvidia",   // nvidia x86_64
		"g5g.xlarge":  "ami-0b000000000000004 nvidia",   // nvidia aarch64
		"inf2.xlarge": "ami-0b000000000000001 neuron",   // the x86_64 image, as Neuron
	}
	orders := 0
	permutations(sel.AMIs, func(amis []AMI) {
		orders++
		m := Map(types, amis)
		if diff := cmp.Diff(want, assignment(m, types)); diff != "" {
			t.Fatalf("Map with AMIs in order %v mismatch (-want +got):\n%s", briefs(amis), diff)
		}
		if err := m.Err(); err != nil {
			t.Fatalf("Err() = %v", err)
		}
	})
	if orders != 120 {
		t.Errorf("tried %d orders, want 120", orders)
	}
}

func TestMapGroups(t *testing.T) {
	sel := Select(al2023Images(), at(fixedNow))
	types := []compat.InstanceType{g4dnXLarge, m6gLarge, m5Large, c7iFlexLarge, g5gXLarge, inf2XLarge, g4adXLarge}
	m := Map(types, sel.AMIs)
	type group struct {
		AMI   string
		Types []string
	}
	var got []group
	for _, g := range m.Groups {
		var names []string
		for _, it := range g.InstanceTypes {
			names = append(names, it.Name)
		}
		got = append(got, group{g.AMI.String(), names})
	}
	want := []group{ // AMI order, types in input order
		{"ami-0a230000000000005 (al2023 arm64 nvidia)", []string{"g5g.xlarge"}},
		{"ami-0a230000000000004 (al2023 arm64 standard)", []string{"m6g.large"}},
		{"ami-0a230000000000003 (al2023 amd64 neuron)", []string{"inf2.xlarge"}},
		{"ami-0a230000000000002 (al2023 amd64 nvidia)", []string{"g4dn.xlarge"}},
		{"ami-0a230000000000001 (al2023 amd64 standard)", []string{"m5.large", "c7i-flex.large"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Groups mismatch (-want +got):\n%s", diff)
	}
	if len(m.Unmapped) != 1 || m.Unmapped[0].InstanceType.Name != "g4ad.xlarge" {
		t.Fatalf("Unmapped = %v, want g4ad.xlarge alone", m.Unmapped)
	}
	u := m.Unmapped[0]
	if len(u.Reasons) != len(sel.AMIs) {
		t.Errorf("g4ad has %d reasons, want one per AMI (%d)", len(u.Reasons), len(sel.AMIs))
	}
	for i, r := range u.Reasons {
		var ie *compat.IncompatibleError
		if !errors.As(r, &ie) {
			t.Errorf("reason %d = %v, not a *compat.IncompatibleError", i, r)
		}
		if !strings.Contains(r.Error(), sel.AMIs[i].ID) {
			t.Errorf("reason %d = %q does not name %s", i, r, sel.AMIs[i].ID)
		}
	}
	wantFix := "no amd64 amd GPU AMI in family al2023; no EKS AMI family publishes one, so keep these types out with karpenter.k8s.aws/instance-gpu-manufacturer NotIn [amd]"
	if u.Fix != wantFix {
		t.Errorf("g4ad Fix = %q, want %q", u.Fix, wantFix)
	}
	if err := m.Err(); err != nil {
		t.Errorf("Err() = %v, want nil when something mapped", err)
	}
}

// TestMapArch is #7211: one amd64 AMI and an unconstrained NodePool.
func TestMapArch(t *testing.T) {
	amis := Select([]ec2types.Image{image("ami-06d9bcac32f727ddb", "team-base-al2023-20250301", "x86_64", "2025-03-01T09:30:00Z")}, at(fixedNow)).AMIs

	mixed := []compat.InstanceType{m5Large, m6gLarge, c7iFlexLarge, g5gXLarge}
	m := Map(mixed, amis)
	if diff := cmp.Diff(map[string]string{
		"m5.large": "ami-06d9bcac32f727ddb unspecified", "c7i-flex.large": "ami-06d9bcac32f727ddb unspecified",
		"m6g.large": "", "g5g.xlarge": "",
	}, assignment(m, mixed)); diff != "" {
		t.Errorf("mixed catalog mismatch (-want +got):\n%s", diff)
	}
	if err := m.Err(); err != nil {
		t.Errorf("Err() = %v, want nil", err)
	}
	for _, u := range m.Unmapped {
		if want := "add kubernetes.io/arch In [amd64] to the NodePool requirements, or select an AMI built for arm64"; u.Fix != want {
			t.Errorf("%s Fix = %q, want %q", u.InstanceType.Name, u.Fix, want)
		}
	}

	armOnly := []compat.InstanceType{m6gLarge, g5gXLarge, g5g2XLarge}
	err := Map(armOnly, amis).Err()
	var nc *NoCompatibleAMIError
	if !errors.As(err, &nc) {
		t.Fatalf("Err() = %v, want a *NoCompatibleAMIError", err)
	}
	want := &NoCompatibleAMIError{
		InstanceTypes: 3,
		AMIs: []AMIConflict{{
			AMI: amis[0], Key: "kubernetes.io/arch", Conflicting: 3, Instance: []string{"arm64"}, Required: "amd64",
		}},
		Fix: "add kubernetes.io/arch In [amd64] to the NodePool requirements, or select an AMI built for arm64",
	}
	if diff := cmp.Diff(want, nc, equalRequirements); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
	wantMsg := "amiselect: none of 3 instance types can run any of 1 AMIs: " +
		"ami-06d9bcac32f727ddb (custom amd64): 3 of 3 types conflict on kubernetes.io/arch (instance arm64, AMI amd64); " +
		"fix: add kubernetes.io/arch In [amd64] to the NodePool requirements, or select an AMI built for arm64"
	if got := err.Error(); got != wantMsg {
		t.Errorf("Err().Error() =\n%s\nwant\n%s", got, wantMsg)
	}
}

// TestMapG5G: arm64 with an NVIDIA GPU has no AL2 AMI, while AL2023 and
// Bottlerocket publish one.
func TestMapG5G(t *testing.T) {
	g5g := []compat.InstanceType{g5gXLarge, g5g2XLarge}
	tests := []struct {
		family string
		images []ec2types.Image
		want   string // AMI ID, or "" for none
	}{
		{"al2", al2Images(), ""},
		{"al2023", al2023Images(), "ami-0a230000000000005"},
		{"bottlerocket", bottlerocketImages(), "ami-0b000000000000004"},
	}
	for _, tt := range tests {
		t.Run(tt.family, func(t *testing.T) {
			m := Map(g5g, Select(tt.images, at(fixedNow)).AMIs)
			for _, it := range g5g {
				a, ok := m.AMIFor(it.Name)
				if tt.want == "" {
					if ok {
						t.Errorf("%s mapped to %s, want nothing", it.Name, a)
					}
					continue
				}
				if !ok || a.ID != tt.want || a.Variant != NVIDIA || a.Arch != "arm64" {
					t.Errorf("AMIFor(%s) = %v, %v; want %s (arm64 nvidia)", it.Name, a, ok, tt.want)
				}
			}
			err := m.Err()
			if tt.want != "" {
				if err != nil {
					t.Errorf("Err() = %v", err)
				}
				return
			}
			var nc *NoCompatibleAMIError
			if !errors.As(err, &nc) {
				t.Fatalf("Err() = %v, want a *NoCompatibleAMIError", err)
			}
			if want := "no arm64 NVIDIA AMI in family al2; use bottlerocket or al2023"; nc.Fix != want {
				t.Errorf("Fix = %q, want %q", nc.Fix, want)
			}
			got := map[string]string{}
			for _, c := range nc.AMIs {
				got[c.AMI.String()] = c.Key + " " + strings.Join(c.Instance, "/") + " vs " + c.Required
				if c.Conflicting != 2 {
					t.Errorf("%s: %d conflicting, want 2", c.AMI, c.Conflicting)
				}
			}
			if diff := cmp.Diff(map[string]string{
				"ami-0a200000000000003 (al2 amd64 nvidia)":   "kubernetes.io/arch arm64 vs amd64",
				"ami-0a200000000000003 (al2 amd64 neuron)":   "kubernetes.io/arch arm64 vs amd64",
				"ami-0a200000000000002 (al2 arm64 standard)": "karpenter.k8s.aws/instance-gpu-count 1 vs DoesNotExist",
				"ami-0a200000000000001 (al2 amd64 standard)": "kubernetes.io/arch arm64 vs amd64",
			}, got); diff != "" {
				t.Errorf("conflicts mismatch (-want +got):\n%s", diff)
			}
			if msg := err.Error(); !strings.Contains(msg, "ami-0a200000000000002 (al2 arm64 standard): 2 of 2 types conflict on karpenter.k8s.aws/instance-gpu-count (instance 1, AMI DoesNotExist)") {
				t.Errorf("Err() = %q does not explain the arm64 standard AMI", msg)
			}
		})
	}
}

func TestMapWindows(t *testing.T) {
	amis := Select([]ec2types.Image{
		image("ami-0w22", "Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14", "x86_64", "2025-04-14T16:11:17.000Z"),
	}, at(fixedNow)).AMIs
	m := Map([]compat.InstanceType{m5Large, g4dnXLarge, inf2XLarge, m6gLarge}, amis)
	if diff := cmp.Diff(map[string]string{
		"m5.large": "ami-0w22 unspecified", "g4dn.xlarge": "ami-0w22 unspecified", "inf2.xlarge": "", "m6g.large": "",
	}, assignment(m, []compat.InstanceType{m5Large, g4dnXLarge, inf2XLarge, m6gLarge})); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}

	err := Map([]compat.InstanceType{inf2XLarge}, amis).Err()
	var nc *NoCompatibleAMIError
	if !errors.As(err, &nc) {
		t.Fatalf("Err() = %v", err)
	}
	if nc.AMIs[0].Key != compat.LabelOS {
		t.Errorf("dominant key = %q, want %q", nc.AMIs[0].Key, compat.LabelOS)
	}
	if !strings.Contains(nc.Fix, "kubernetes.io/os In [windows]") {
		t.Errorf("Fix = %q, want the Windows OS requirement", nc.Fix)
	}
}

func TestMapNothingToMap(t *testing.T) {
	err := Map([]compat.InstanceType{m5Large}, nil).Err()
	var nc *NoCompatibleAMIError
	if !errors.As(err, &nc) {
		t.Fatalf("Err() = %v", err)
	}
	if want := "amiselect: no AMIs to map 1 instance types to; fix: select at least one AMI: the amiSelectorTerms matched no available image of a known architecture; check each term's name, owner, tags or alias version (the rejected images say why each was refused)"; err.Error() != want {
		t.Errorf("Err() = %q, want %q", err, want)
	}
	m := Map([]compat.InstanceType{m5Large}, nil)
	if len(m.Unmapped) != 1 || len(m.Unmapped[0].Reasons) != 0 {
		t.Errorf("Unmapped = %+v, want m5.large with no reasons", m.Unmapped)
	}

	err = Map(nil, Select(al2Images(), at(fixedNow)).AMIs).Err()
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "no instance types to map") {
		t.Errorf("Err() with no types = %v", err)
	}

	var zero Mapping
	if _, ok := zero.AMIFor("m5.large"); ok {
		t.Errorf("zero Mapping maps m5.large")
	}
}

// TestMapAMIForWithoutIndex covers a Mapping built by hand.
func TestMapAMIForWithoutIndex(t *testing.T) {
	a := AMI{ID: "ami-01"}
	m := Mapping{Groups: []Group{{AMI: a, InstanceTypes: []compat.InstanceType{m5Large}}}}
	if got, ok := m.AMIFor("m5.large"); !ok || got.ID != "ami-01" {
		t.Errorf("AMIFor = %v, %v", got, ok)
	}
	if _, ok := m.AMIFor("m6g.large"); ok {
		t.Errorf("AMIFor(m6g.large) found something")
	}
}

func TestMapDuplicateNames(t *testing.T) {
	arm := m5Large
	arm.Arch = compat.ArchARM64 // a second "m5.large" that only the arm64 AMI runs
	sel := Select(al2023Images(), at(fixedNow))
	m := Map([]compat.InstanceType{arm, m5Large}, sel.AMIs)
	a, ok := m.AMIFor("m5.large")
	if !ok || a.ID != "ami-0a230000000000004" {
		t.Errorf("AMIFor(m5.large) = %v, want the first occurrence's AMI (arm64 standard)", a)
	}
}

func TestMapDoesNotModifyInput(t *testing.T) {
	types := []compat.InstanceType{g4dnXLarge, m6gLarge, m5Large}
	amis := Select(bottlerocketImages(), at(fixedNow)).AMIs
	typesBefore := cmp.Diff(nil, types)
	amisBefore := cmp.Diff(nil, amis, equalRequirements)
	m := Map(types, amis)
	m.Groups[0].InstanceTypes[0].Name = "changed"
	if cmp.Diff(nil, types) != typesBefore || cmp.Diff(nil, amis, equalRequirements) != amisBefore {
		t.Errorf("Map shares or modified its input")
	}
}

// TestMapCatalogAgainstReference maps every catalog instance type onto
// the AMIs of the whole catalog (every family), and onto AMIs with a
// requirement Select never writes (so Map's sharing of answers between
// alike types must take the instance size into account), and checks each
// answer against the naive rule: the first AMI the type's full
// requirements accept.
func TestMapCatalogAgainstReference(t *testing.T) {
	images, _ := ec2fake.DefaultCatalog()
	selected := Select(images, at(fixedNow)).AMIs
	types := benchTypes(t, 400)
	metal := AMI{ID: "ami-0metal", Arch: "amd64", Requirements: compat.MustRequirements(
		compat.Requirement{Key: compat.LabelArch, Operator: compat.In, Values: []string{"amd64"}},
		compat.Requirement{Key: compat.LabelInstanceSize, Operator: compat.In, Values: []string{"metal"}},
	)}
	for name, amis := range map[string][]AMI{
		"catalog":         selected,
		"catalog reverse": reversed(selected),
		"with metal":      append([]AMI{metal}, selected...),
		"windows first":   windowsFirst(selected),
	} {
		t.Run(name, func(t *testing.T) {
			m := Map(types, amis)
			for _, it := range types {
				want := -1
				full := it.Requirements()
				for j, a := range amis {
					if full.Compatible(a.Requirements) == nil && !al2023OnA1(a, it) {
						want = j
						break
					}
				}
				a, ok := m.AMIFor(it.Name)
				switch {
				case want < 0 && ok:
					t.Errorf("%s mapped to %s; no AMI runs it", it.Name, a)
				case want >= 0 && (!ok || a.ID != amis[want].ID || a.Variant != amis[want].Variant || a.Arch != amis[want].Arch):
					t.Errorf("%s mapped to %v (%v); want %s", it.Name, a, ok, amis[want])
				}
			}
		})
	}
}

func reversed[T any](xs []T) []T {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

func windowsFirst(amis []AMI) []AMI {
	out := slices.Clone(amis)
	slices.SortStableFunc(out, func(a, b AMI) int {
		aw, bw := a.Family.WindowsBuild() != "", b.Family.WindowsBuild() != ""
		switch {
		case aw && !bw:
			return -1
		case bw && !aw:
			return 1
		}
		return 0
	})
	return out
}

// TestLaunchGroups: Bottlerocket's x86_64 image serves standard and
// Neuron types, so it is one launch group with both; AL2's accelerated
// image likewise serves NVIDIA and Neuron.
func TestLaunchGroups(t *testing.T) {
	type group struct {
		ID       string
		Variants []Variant
		Types    []string
	}
	tests := []struct {
		name   string
		images []ec2types.Image
		want   []group
	}{
		{
			name:   "bottlerocket",
			images: bottlerocketImages(),
			want: []group{
				{"ami-0b000000000000004", []Variant{NVIDIA}, []string{"g5g.xlarge"}},
				{"ami-0b000000000000003", []Variant{NVIDIA}, []string{"g4dn.xlarge"}},
				{"ami-0b000000000000002", []Variant{Standard}, []string{"m6g.large"}},
				{"ami-0b000000000000001", []Variant{Standard, Neuron}, []string{"m5.large", "c7i-flex.large", "inf2.xlarge"}},
			},
		},
		{
			name:   "al2",
			images: al2Images(),
			want: []group{
				{"ami-0a200000000000003", []Variant{NVIDIA, Neuron}, []string{"g4dn.xlarge", "inf2.xlarge"}},
				{"ami-0a200000000000002", []Variant{Standard}, []string{"m6g.large"}},
				{"ami-0a200000000000001", []Variant{Standard}, []string{"m5.large", "c7i-flex.large"}},
			},
		},
	}
	types := []compat.InstanceType{m5Large, inf2XLarge, m6gLarge, g4dnXLarge, c7iFlexLarge, g5gXLarge}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Map(types, Select(tt.images, at(fixedNow)).AMIs)
			var got []group
			for _, lg := range m.LaunchGroups() {
				g := group{ID: lg.ImageID}
				for _, a := range lg.AMIs {
					g.Variants = append(g.Variants, a.Variant)
				}
				for _, it := range lg.InstanceTypes {
					g.Types = append(g.Types, it.Name)
				}
				got = append(got, g)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LaunchGroups mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if got := (Mapping{}).LaunchGroups(); got != nil {
		t.Errorf("zero Mapping has launch groups %v", got)
	}
}

// al2023OnA1 is the one family exclusion AWS documents, stated on its
// own for the reference models: "AL2023 does not support A1 instances"
// (https://docs.aws.amazon.com/linux/al2023/ug/system-requirements.html).
func al2023OnA1(a AMI, it compat.InstanceType) bool {
	return a.Family == compat.AL2023 && it.Family == "a1"
}

// TestMapFamilySupport: AL2023 does not run a1 (AWS's AL2023 system
// requirements, https://docs.aws.amazon.com/linux/al2023/ug/system-requirements.html;
// Karpenter filters the same pair, aws/karpenter-provider-aws
// pkg/providers/instancetype/compatibility/compatibility.go:65-71
// @1d92708), so every a1 type is unmapped under AL2023 with that reason
// and a fix, while Bottlerocket and AL2 map them to their arm64 standard
// AMI. Other arm64 types are unaffected.
func TestMapFamilySupport(t *testing.T) {
	_, infos := ec2fake.DefaultCatalog()
	var a1, others []compat.InstanceType
	for _, info := range infos {
		it, err := compat.InstanceTypeFromEC2(info)
		if err != nil {
			continue
		}
		switch {
		case it.Family == "a1":
			a1 = append(a1, it)
		case it.Name == "m6g.large" || it.Name == "t4g.medium":
			others = append(others, it)
		}
	}
	if len(a1) == 0 || len(others) != 2 {
		t.Fatalf("catalog has %d a1 types and %d of m6g.large, t4g.medium", len(a1), len(others))
	}
	types := append(slices.Clone(a1), others...)

	al2023AMIs := Select(al2023Images(), at(fixedNow)).AMIs
	al2023 := Map(types, al2023AMIs)
	if len(al2023.Unmapped) != len(a1) {
		t.Fatalf("under AL2023, %d unmapped; want the %d a1 types", len(al2023.Unmapped), len(a1))
	}
	const reason = "AL2023 does not support a1 instances"
	wantFix := reason + ": its arm64 packages need a Graviton2 or later processor (ARMv8.2 with the Cryptography Extension); " +
		"keep them out with karpenter.k8s.aws/instance-family NotIn [a1] in the NodePool requirements, or select bottlerocket or al2 AMIs, which run them"
	for _, u := range al2023.Unmapped {
		if u.InstanceType.Family != "a1" {
			t.Errorf("%s unmapped under AL2023", u.InstanceType.Name)
		}
		if u.Fix != wantFix {
			t.Errorf("%s: fix %q\nwant %q", u.InstanceType.Name, u.Fix, wantFix)
		}
		// The arm64 standard AMI refuses it for the family's reason; the
		// others for their requirements.
		std := slices.IndexFunc(al2023AMIs, func(a AMI) bool { return a.Arch == "arm64" && a.Variant == Standard })
		var ie *compat.IncompatibleError
		if got := u.Reasons[std].Error(); !strings.Contains(got, reason) || !errors.As(u.Reasons[std], &ie) || ie.Key != compat.LabelInstanceFamily {
			t.Errorf("%s: reason %q, want %q wrapping the instance-family conflict", u.InstanceType.Name, got, reason)
		}
	}
	for _, it := range others {
		if a, ok := al2023.AMIFor(it.Name); !ok || a.Arch != "arm64" || a.Variant != Standard {
			t.Errorf("under AL2023, %s maps to %v, %v", it.Name, a, ok)
		}
	}

	for name, images := range map[string][]ec2types.Image{"bottlerocket": bottlerocketImages(), "al2": al2Images()} {
		m := Map(types, Select(images, at(fixedNow)).AMIs)
		if len(m.Unmapped) != 0 {
			t.Errorf("under %s, %s is unmapped: %v", name, m.Unmapped[0].InstanceType.Name, m.Unmapped[0].Reasons)
		}
		for _, it := range a1 {
			if a, ok := m.AMIFor(it.Name); !ok || a.Arch != "arm64" || a.Variant != Standard {
				t.Errorf("under %s, %s maps to %v, %v", name, it.Name, a, ok)
			}
		}
	}
	// A node's labels decide the same way, through Choose.
	node := compat.FromNodeLabels(a1[0].Labels())
	if j := Choose(node, al2023AMIs); j != -1 {
		t.Errorf("Choose gives an a1 node AL2023 AMI %s", al2023AMIs[j])
	}
}
