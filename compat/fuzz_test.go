package compat

import (
	"strings"
	"testing"
)

// parseSpec reads one requirement per line, "key Operator v1,v2", with the
// keys normalized as NewRequirements normalizes them.
func parseSpec(spec string) []Requirement {
	var rs []Requirement
	for line := range strings.SplitSeq(spec, "\n") {
		f := strings.SplitN(line, " ", 3)
		r := Requirement{Key: f[0]}
		if len(f) > 1 {
			r.Operator = Operator(f[1])
		}
		if len(f) > 2 {
			r.Values = strings.Split(f[2], ",")
		}
		rs = append(rs, r)
	}
	return rs
}

func normalized(rs []Requirement) []Requirement {
	out := make([]Requirement, len(rs))
	for i, r := range rs {
		out[i] = Requirement{Key: normalizeKey(r.Key), Operator: r.Operator, Values: r.Values, MinValues: r.MinValues}
	}
	return out
}

// FuzzRequirements compiles arbitrary requirements and checks every law it
// can: no panic; a round trip through List; Matches and Compatible agreeing
// with the naive model in properties_test.go.
func FuzzRequirements(f *testing.F) {
	f.Add("kubernetes.io/arch In amd64,arm64\nkarpenter.k8s.aws/instance-cpu Gt 4", "karpenter.k8s.aws/instance-cpu Lt 9", "kubernetes.io/arch=amd64,karpenter.k8s.aws/instance-cpu=8")
	f.Add("k Gte 3\nk NotIn 4,x\nk Lte 5", "k In 4,5,05", "k=05")
	f.Add("beta.kubernetes.io/arch In arm64", "kubernetes.io/arch DoesNotExist", "beta.kubernetes.io/arch=arm64")
	f.Add("k Exists\nk NotIn a", "k DoesNotExist", "k=b")
	f.Add("k Lt 0", "k Gt 9223372036854775807", "k=-1")
	f.Fuzz(func(t *testing.T, existingSpec, incomingSpec, labelSpec string) {
		existingRaw, incomingRaw := parseSpec(existingSpec), parseSpec(incomingSpec)
		existing, err := NewRequirements(existingRaw...)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "compat: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		back, err := NewRequirements(existing.List()...)
		if err != nil || !back.Equal(existing) {
			t.Fatalf("List round trip of %v: %v, %v", existing, back, err)
		}
		labels := map[string]string{}
		for kv := range strings.SplitSeq(labelSpec, ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = v
		}
		raw := normalized(existingRaw)
		want := true
		for _, r := range raw {
			v, ok := labels[r.Key]
			if beta := betaKey(r.Key); !ok && beta != "" {
				v, ok = labels[beta]
			}
			want = want && holds(r, ok, v)
		}
		if got := existing.Matches(labels); got != want {
			t.Fatalf("(%v).Matches(%v) = %v; naive model says %v", existing, labels, got, want)
		}
		incoming, err := NewRequirements(incomingRaw...)
		if err != nil {
			return
		}
		if got, want := existing.Compatible(incoming) == nil, naiveCompatible(raw, normalized(incomingRaw)); got != want {
			t.Fatalf("(%v).Compatible(%v) = %v; naive model says %v", existing, incoming, got, want)
		}
	})
}
