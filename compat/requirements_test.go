package compat

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// req is shorthand for a Requirement literal in tables.
func req(key string, op Operator, values ...string) Requirement {
	return Requirement{Key: key, Operator: op, Values: values}
}

const gpuKey = LabelInstanceGPUCount

// TestCompatibleMatrix is the table in reference/requirements.md §1: the
// existing side (rows) against the incoming side (columns), on a
// well-known integer key, as Karpenter core's tests give it.
func TestCompatibleMatrix(t *testing.T) {
	exists := req(gpuKey, Exists)
	dne := req(gpuKey, DoesNotExist)
	tests := []struct {
		name     string
		existing []Requirement
		incoming []Requirement
		ok       bool
	}{
		{"Exists/Exists", []Requirement{exists}, []Requirement{exists}, true},
		{"Exists/DNE", []Requirement{exists}, []Requirement{dne}, false},
		{"Exists/In", []Requirement{exists}, []Requirement{req(gpuKey, In, "a")}, true},
		{"Exists/NotIn", []Requirement{exists}, []Requirement{req(gpuKey, NotIn, "a")}, true},
		{"Exists/Gt", []Requirement{exists}, []Requirement{req(gpuKey, Gt, "1")}, true},
		{"Exists/Lt", []Requirement{exists}, []Requirement{req(gpuKey, Lt, "1")}, true},

		{"DNE/Exists", []Requirement{dne}, []Requirement{exists}, false},
		{"DNE/DNE", []Requirement{dne}, []Requirement{dne}, true},
		{"DNE/In", []Requirement{dne}, []Requirement{req(gpuKey, In, "a")}, false},
		{"DNE/NotIn", []Requirement{dne}, []Requirement{req(gpuKey, NotIn, "a")}, true},
		{"DNE/Gt", []Requirement{dne}, []Requirement{req(gpuKey, Gt, "1")}, false},
		{"DNE/Lt", []Requirement{dne}, []Requirement{req(gpuKey, Lt, "1")}, false},

		{"In[1]/Exists", []Requirement{req(gpuKey, In, "1")}, []Requirement{exists}, true},
		{"In[1]/DNE", []Requirement{req(gpuKey, In, "1")}, []Requirement{dne}, false},
		{"In[1]/In[1]", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, In, "1")}, true},
		{"In[1]/In[2]", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, In, "2")}, false},
		{"In[1]/In[1,2]", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, In, "2", "1")}, true},
		{"In[1]/NotIn[2]", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, NotIn, "2")}, true},
		{"In[1]/NotIn[1]", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, NotIn, "1")}, false},
		{"In[1]/Gt 0", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, Gt, "0")}, true},
		{"In[1]/Gt 1", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, Gt, "1")}, false},
		{"In[1]/Lt 2", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, Lt, "2")}, true},
		{"In[1]/Lt 1", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, Lt, "1")}, false},
		{"In[1]/Gte 1", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, Gte, "1")}, true},
		{"In[1]/Lte 0", []Requirement{req(gpuKey, In, "1")}, []Requirement{req(gpuKey, Lte, "0")}, false},

		{"NotIn[1,2]/Exists", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{exists}, true},
		{"NotIn[1,2]/DNE", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{dne}, true},
		{"NotIn[1,2]/In[1]", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{req(gpuKey, In, "1")}, false},
		{"NotIn[1,2]/In[2]", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{req(gpuKey, In, "2")}, false},
		{"NotIn[1,2]/In[1,3]", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{req(gpuKey, In, "1", "3")}, true},
		{"NotIn[1,2]/NotIn[3]", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{req(gpuKey, NotIn, "3")}, true},
		{"NotIn[1,2]/Gt 1", []Requirement{req(gpuKey, NotIn, "1", "2")}, []Requirement{req(gpuKey, Gt, "1")}, true},

		{"Gt 1/Exists", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{exists}, true},
		{"Gt 1/DNE", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{dne}, false},
		{"Gt 1/In[1]", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{req(gpuKey, In, "1")}, false},
		{"Gt 1/In[9]", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{req(gpuKey, In, "9")}, true},
		{"Gt 1/In[x]", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{req(gpuKey, In, "x")}, false},
		{"Gt 1/NotIn[5]", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{req(gpuKey, NotIn, "5")}, true},
		{"Gt 1/Lt 9", []Requirement{req(gpuKey, Gt, "1")}, []Requirement{req(gpuKey, Lt, "9")}, true},
		{"Gt 9/Lt 9", []Requirement{req(gpuKey, Gt, "9")}, []Requirement{req(gpuKey, Lt, "9")}, false},
		{"Gt 8/Lt 10", []Requirement{req(gpuKey, Gt, "8")}, []Requirement{req(gpuKey, Lt, "10")}, true},
		{"Gte 9/Lte 9", []Requirement{req(gpuKey, Gte, "9")}, []Requirement{req(gpuKey, Lte, "9")}, true},

		// Where Karpenter is wrong, we are mathematically right.
		// Karpenter's Intersects lets two "NotIn" sides pass without looking at
		// their bounds; these bounds cross, so no value satisfies both, and a
		// bounded requirement is never satisfied by a missing label.
		{"crossing bounds with NotIn", []Requirement{req(gpuKey, Gt, "5"), req(gpuKey, NotIn, "7")}, []Requirement{req(gpuKey, Lt, "3"), req(gpuKey, NotIn, "1")}, false},
		// Karpenter reads Exists∩NotIn[a] as NotIn[a], which a missing label
		// satisfies; together they require the label.
		{"Exists and NotIn need the label", []Requirement{exists, req(gpuKey, NotIn, "a")}, []Requirement{dne}, false},
		// Karpenter reads In[a]∩In[b] as DoesNotExist; nothing satisfies it.
		{"contradiction is not absence", []Requirement{req(gpuKey, In, "a"), req(gpuKey, In, "b")}, []Requirement{dne}, false},
		// Before Karpenter v1.9 exclusive Gt 5 and Lt 6 counted as non-empty.
		{"Gt 5 with Lt 6 is empty", []Requirement{req(gpuKey, Gt, "5"), req(gpuKey, Lt, "6")}, []Requirement{exists}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			existing, incoming := MustRequirements(tt.existing...), MustRequirements(tt.incoming...)
			for _, opts := range [][]Option{nil, {AllowUndefinedWellKnown()}, {AllowUndefined(gpuKey)}} {
				err := existing.Compatible(incoming, opts...)
				if (err == nil) != tt.ok {
					t.Errorf("(%v).Compatible(%v, %d options) = %v; want ok=%v", existing, incoming, len(opts), err, tt.ok)
				}
				if _, conflict := existing.Conflict(incoming, opts...); conflict == tt.ok {
					t.Errorf("(%v).Conflict(%v) = %v; want %v", existing, incoming, conflict, !tt.ok)
				}
			}
		})
	}
}

// TestCompatibleUndefined is the matrix's last row: a key the existing side
// does not define.
func TestCompatibleUndefined(t *testing.T) {
	const custom = "example.com/team"
	incoming := []Requirement{
		req(gpuKey, Exists), req(gpuKey, DoesNotExist), req(gpuKey, In, "1"), req(gpuKey, NotIn, "1"),
		req(gpuKey, Gt, "1"), req(gpuKey, Lt, "1"), req(gpuKey, Gte, "1"), req(gpuKey, Lte, "1"),
	}
	existing := MustRequirements(req(LabelArch, In, ArchAMD64))
	for _, in := range incoming {
		strictOK := in.Operator == DoesNotExist || in.Operator == NotIn
		check := func(name string, in Requirement, want bool, opts ...Option) {
			t.Helper()
			err := existing.Compatible(MustRequirements(in), opts...)
			if (err == nil) != want {
				t.Errorf("%s: Compatible(%v) = %v; want ok=%v", name, in, err, want)
			}
		}
		check("strict", in, strictOK)
		check("AllowUndefinedWellKnown", in, true, AllowUndefinedWellKnown())
		check("AllowUndefined(key)", in, true, AllowUndefined(gpuKey))
		check("AllowUndefined(other)", in, strictOK, AllowUndefined(LabelInstanceCPU))
		// A custom key is not well-known: only naming it relaxes it.
		custom := Requirement{Key: custom, Operator: in.Operator, Values: in.Values}
		check("custom/AllowUndefinedWellKnown", custom, strictOK, AllowUndefinedWellKnown())
		check("custom/AllowUndefined(custom)", custom, true, AllowUndefined(custom.Key))
	}
}

func TestNewRequirementsErrors(t *testing.T) {
	tests := []struct {
		in   Requirement
		want string // a fragment the message must contain
	}{
		{req("", In, "a"), `key "" is not a valid label key`},
		{req("bad key", In, "a"), `key "bad key"`},
		{req(LabelArch, "Like", "a"), `unknown operator "Like"`},
		{req(LabelArch, ""), `has no operator`},
		{req(LabelArch, In), "In needs at least one value; for no values at all, use DoesNotExist"},
		{req(LabelArch, NotIn), "NotIn needs at least one value; for no values at all, use Exists"},
		{req(LabelArch, Exists, "a"), "Exists takes no values"},
		{req(LabelArch, DoesNotExist, "a"), "DoesNotExist takes no values"},
		{req(gpuKey, Gt), "Gt takes exactly one value"},
		{req(gpuKey, Lt, "1", "2"), "Lt takes exactly one value"},
		{req(gpuKey, Gte, "-1"), `Gte takes a non-negative integer, got "-1"`},
		{req(gpuKey, Lte, "x"), `Lte takes a non-negative integer, got "x"`},
		{req(gpuKey, Gt, "+5"), `Gt takes a non-negative integer, got "+5"`},
		{req(gpuKey, Gt, "99999999999999999999"), "out of range"},
		{req(LabelInstanceFamily, In, "c7i-flex", "*"), `value "*" is not a valid label value`},
	}
	for _, tt := range tests {
		_, err := NewRequirements(req(LabelOS, In, OSLinux), tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "compat: ") {
			t.Errorf("NewRequirements(%v) = %v; want an error containing %q", tt.in, err, tt.want)
		}
	}
}

func TestListCanonical(t *testing.T) {
	tests := []struct {
		in   []Requirement
		want []Requirement
	}{
		{nil, nil},
		{[]Requirement{req(gpuKey, Gt, "3")}, []Requirement{req(gpuKey, Gte, "4")}},
		{[]Requirement{req(gpuKey, Lt, "3")}, []Requirement{req(gpuKey, Lte, "2")}},
		{[]Requirement{req(gpuKey, Lt, "0")}, []Requirement{req(gpuKey, Lt, "0")}},
		{[]Requirement{req(gpuKey, Gt, "3"), req(gpuKey, Lt, "17")}, []Requirement{req(gpuKey, Gte, "4"), req(gpuKey, Lte, "16")}},
		{[]Requirement{req(gpuKey, Gt, "3"), req(gpuKey, Lt, "4")}, []Requirement{req(gpuKey, Exists), req(gpuKey, DoesNotExist)}},
		// Exclusions outside the bounds, or not integers, say nothing.
		{[]Requirement{req(gpuKey, Gt, "3"), req(gpuKey, NotIn, "1", "5", "x")}, []Requirement{req(gpuKey, Gte, "4"), req(gpuKey, NotIn, "5")}},
		// A plain set keeps the values inside the bounds and drops them.
		{[]Requirement{req(gpuKey, In, "1", "5", "x"), req(gpuKey, Gt, "3")}, []Requirement{req(gpuKey, In, "5")}},
		{[]Requirement{req(gpuKey, Exists), req(gpuKey, NotIn, "b", "a")}, []Requirement{req(gpuKey, Exists), req(gpuKey, NotIn, "a", "b")}},
		{[]Requirement{req(gpuKey, NotIn, "b"), req(gpuKey, NotIn, "a")}, []Requirement{req(gpuKey, NotIn, "a", "b")}},
		{[]Requirement{req(gpuKey, NotIn, "b"), req(gpuKey, DoesNotExist)}, []Requirement{req(gpuKey, DoesNotExist)}},
		{[]Requirement{req(gpuKey, In, "b", "a", "b"), req(gpuKey, NotIn, "a")}, []Requirement{req(gpuKey, In, "b")}},
		{[]Requirement{req("beta.kubernetes.io/arch", In, "arm64")}, []Requirement{req(LabelArch, In, "arm64")}},
		{[]Requirement{req(LabelOS, In, "linux"), req(LabelArch, Exists)}, []Requirement{req(LabelArch, Exists), req(LabelOS, In, "linux")}},
	}
	for _, tt := range tests {
		got := MustRequirements(tt.in...).List()
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("NewRequirements(%v).List() mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestGet(t *testing.T) {
	r := MustRequirements(req(LabelInstanceCPU, Gt, "3"), req(LabelInstanceCPU, Lt, "17"), req(LabelArch, In, ArchARM64))
	got, ok := r.Get(LabelInstanceCPU)
	if want := []Requirement{req(LabelInstanceCPU, Gte, "4"), req(LabelInstanceCPU, Lte, "16")}; !ok || !cmp.Equal(want, got) {
		t.Errorf("Get(cpu) = %v, %v; want %v, true", got, ok, want)
	}
	got, ok = r.Get("beta.kubernetes.io/arch")
	if want := []Requirement{req(LabelArch, In, ArchARM64)}; !ok || !cmp.Equal(want, got) {
		t.Errorf("Get(beta arch) = %v, %v; want %v, true", got, ok, want)
	}
	if got, ok := r.Get(LabelOS); ok || got != nil {
		t.Errorf("Get(os) = %v, %v; want nil, false", got, ok)
	}
	if got, ok := (Requirements{}).Get(LabelOS); ok || got != nil {
		t.Errorf("zero Requirements Get = %v, %v; want nil, false", got, ok)
	}
	if diff := cmp.Diff([]string{LabelInstanceCPU, LabelArch}, r.Keys()); diff != "" {
		t.Errorf("Keys() mismatch (-want +got):\n%s", diff)
	}
}

func TestMatches(t *testing.T) {
	r := MustRequirements(
		req(LabelArch, In, ArchAMD64),
		req(gpuKey, DoesNotExist),
		req(LabelInstanceCPU, Gte, "4"),
		req(LabelInstanceFamily, NotIn, "t3"),
	)
	tests := []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{LabelArch: "amd64", LabelInstanceCPU: "4"}, true},
		{map[string]string{LabelArch: "amd64", LabelInstanceCPU: "04", LabelInstanceFamily: "m5"}, true},
		{map[string]string{"beta.kubernetes.io/arch": "amd64", LabelInstanceCPU: "8"}, true},
		{map[string]string{LabelArch: "arm64", LabelInstanceCPU: "4"}, false},
		{map[string]string{LabelArch: "amd64", LabelInstanceCPU: "2"}, false},
		{map[string]string{LabelArch: "amd64", LabelInstanceCPU: "four"}, false},
		{map[string]string{LabelArch: "amd64"}, false},
		{map[string]string{LabelArch: "amd64", LabelInstanceCPU: "4", gpuKey: "1"}, false},
		{map[string]string{LabelArch: "amd64", LabelInstanceCPU: "4", LabelInstanceFamily: "t3"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := r.Matches(tt.labels); got != tt.want {
			t.Errorf("(%v).Matches(%v) = %v; want %v", r, tt.labels, got, tt.want)
		}
	}
	if !(Requirements{}).Matches(nil) {
		t.Error("the zero Requirements must match every node")
	}
}

func TestIncompatibleError(t *testing.T) {
	instance := MustRequirements(req(LabelArch, In, ArchARM64), req(gpuKey, DoesNotExist))
	tests := []struct {
		name     string
		required Requirements
		key      string
		inst     Requirement
		want     Requirement
		fragment []string
	}{
		{
			name: "arch", required: MustRequirements(req(LabelArch, In, ArchAMD64)),
			key: LabelArch, inst: req(LabelArch, In, ArchARM64), want: req(LabelArch, In, ArchAMD64),
			fragment: []string{"compat: kubernetes.io/arch: instance side has In [arm64]; required side has In [amd64]: no value satisfies both", "must allow kubernetes.io/arch In [arm64]"},
		},
		{
			name: "gpu", required: nvidiaVariant(),
			key: gpuKey, inst: req(gpuKey, DoesNotExist), want: req(gpuKey, Exists),
			fragment: []string{"compat: karpenter.k8s.aws/instance-gpu-count: instance side has DoesNotExist; required side has Exists", "only DoesNotExist or NotIn"},
		},
		{
			name: "undefined", required: MustRequirements(req(LabelZone, In, "us-east-1a")),
			key: LabelZone, inst: Requirement{}, want: req(LabelZone, In, "us-east-1a"),
			fragment: []string{"instance side does not define it; required side has In [us-east-1a]", `AllowUndefined("topology.kubernetes.io/zone")`},
		},
		{
			name: "range", required: MustRequirements(req(gpuKey, Gte, "1"), req(gpuKey, NotIn, "3")),
			key: gpuKey, inst: req(gpuKey, DoesNotExist), want: req(gpuKey, Gte, "1"),
			fragment: []string{"required side has Gte 1 and NotIn [3]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := instance.Compatible(tt.required)
			var ie *IncompatibleError
			if !errors.As(err, &ie) {
				t.Fatalf("Compatible = %v; want an *IncompatibleError", err)
			}
			if ie.Key != tt.key || !cmp.Equal(tt.inst, ie.Instance) || !cmp.Equal(tt.want, ie.Required) || ie.Reason == "" || ie.Fix == "" {
				t.Errorf("error fields = %q, %v, %v, %q, %q; want %q, %v, %v and a reason and fix", ie.Key, ie.Instance, ie.Required, ie.Reason, ie.Fix, tt.key, tt.inst, tt.want)
			}
			for _, f := range tt.fragment {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("error %q does not contain %q", err, f)
				}
			}
		})
	}
}

func TestCompatibleJoinsEveryConflict(t *testing.T) {
	instance := MustRequirements(req(LabelArch, In, ArchARM64), req(gpuKey, DoesNotExist))
	required := MustRequirements(req(LabelArch, In, ArchAMD64), req(gpuKey, Exists))
	err := instance.Compatible(required)
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Compatible = %T %v; want a joined error", err, err)
	}
	var keys []string
	for _, e := range joined.Unwrap() {
		var ie *IncompatibleError
		if errors.As(e, &ie) {
			keys = append(keys, ie.Key)
		}
	}
	if diff := cmp.Diff([]string{gpuKey, LabelArch}, keys); diff != "" {
		t.Errorf("conflicting keys mismatch (-want +got):\n%s", diff)
	}
	if key, conflict := instance.Conflict(required); !conflict || key != gpuKey {
		t.Errorf("Conflict = %q, %v; want %q, true", key, conflict, gpuKey)
	}
}

func TestFromNodeLabels(t *testing.T) {
	plain := map[string]string{LabelInstanceType: "m5.large", LabelArch: ArchAMD64, LabelOS: OSLinux, "team": "a"}
	r := FromNodeLabels(plain)
	for _, key := range InstanceLabels() {
		if _, ok := plain[key]; ok || key == LabelInstanceTenancy {
			continue
		}
		got, ok := r.Get(key)
		if want := []Requirement{req(key, DoesNotExist)}; !ok || !cmp.Equal(want, got) {
			t.Errorf("FromNodeLabels: Get(%s) = %v, %v; want %v", key, got, ok, want)
		}
	}
	if got, _ := r.Get("team"); !cmp.Equal([]Requirement{req("team", In, "a")}, got) {
		t.Errorf("FromNodeLabels: Get(team) = %v", got)
	}
	// Without an instance-type label it is only FromLabels.
	untyped := map[string]string{LabelArch: ArchAMD64}
	if !FromNodeLabels(untyped).Equal(FromLabels(untyped)) {
		t.Errorf("FromNodeLabels(%v) = %v; want FromLabels", untyped, FromNodeLabels(untyped))
	}
	if !FromNodeLabels(plain).Matches(plain) {
		t.Error("FromNodeLabels(l) must match l")
	}
}

func TestHas(t *testing.T) {
	r := MustRequirements(req(LabelArch, In, ArchAMD64), req("example.com/team", Exists))
	for key, want := range map[string]bool{LabelArch: true, "beta.kubernetes.io/arch": true, "example.com/team": true, LabelZone: false, "example.com/x": false} {
		if got := r.Has(key); got != want {
			t.Errorf("Has(%s) = %v; want %v", key, got, want)
		}
	}
	if (Requirements{}).Has(LabelArch) {
		t.Error("the empty set has arch")
	}
	if n := testing.AllocsPerRun(100, func() { r.Has("example.com/team") }); n != 0 {
		t.Errorf("Has allocates %v times", n)
	}
}
