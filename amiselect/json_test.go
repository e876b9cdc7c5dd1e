package amiselect

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// toldAll is everything a Selection tells, comparable with cmp.
type toldAll struct {
	AMIs              []AMI
	Rejected          []Rejection
	MissingParameters []MissingParameter
	Superseded        []Superseded
	HeldBack          []HeldBack
	Changes           []Change
}

func tellAll(s Selection) toldAll {
	return toldAll{s.AMIs, s.Rejected, s.MissingParameters, s.Superseded(), s.HeldBack(), s.Changes()}
}

// TestSelectionJSONRoundTrip: decode(encode(s)) tells what s tells, and
// plans the same drift, for Selections of any images (refused ones,
// copies, ties, soaks).
func TestSelectionJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genSoakImages(t)
		if rapid.Bool().Draw(t, "catalog") {
			images = genPredictCatalog(t)
		}
		sel := Select(images, soaked(genNow(t), genMinAge(t, "minAge")))
		data, err := json.Marshal(sel)
		if err != nil {
			t.Fatal(err)
		}
		var back Selection
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		if diff := cmp.Diff(tellAll(sel), tellAll(back), equalRequirements); diff != "" {
			t.Fatalf("the decoded Selection tells otherwise (-encoded +decoded):\n%s", diff)
		}
		running := runningAll(images)
		if diff := cmp.Diff(planOf(sel, running, nil, PlanOptions{}), planOf(back, running, nil, PlanOptions{}), equalRequirements); diff != "" {
			t.Fatalf("the decoded Selection plans otherwise (-encoded +decoded):\n%s", diff)
		}
		again, err := json.Marshal(back)
		if err != nil || string(again) != string(data) {
			t.Fatalf("encoding the decoded Selection differs (%v):\n%s\n%s", err, data, again)
		}
	})
}

// TestDriftPlanJSONRoundTrip: a DriftPlan decodes to an equal DriftPlan.
func TestDriftPlanJSONRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		images := genPredictCatalog(t)
		sel := selectAt(images, predictNow, genPredictMinAge(t))
		plan := planOf(sel, runningAll(images), nil, PlanOptions{Strict: rapid.Bool().Draw(t, "strict"), Wait: genMinAge(t, "wait")})
		data, err := json.Marshal(plan)
		if err != nil {
			t.Fatal(err)
		}
		var back DriftPlan
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		if diff := cmp.Diff(plan, back, equalRequirements); diff != "" {
			t.Fatalf("decoded plan differs (-encoded +decoded):\n%s", diff)
		}
		if s := string(data); strings.Contains(s, "0001-01-01") || strings.Contains(s, `"Reason":`+"1") || strings.Contains(s, `"Variant":`+"1") {
			t.Fatalf("a zero time or a number for an enum:\n%s", s)
		}
	})
}

// TestJSONWords: the plan of issue 37's soak, as JSON: reasons and
// variants are words, zero times are left out, and the reasons read as
// the CLIs print them.
func TestJSONWords(t *testing.T) {
	images := []ec2Image{
		{"ami-0old", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250317", "x86_64", "2025-03-17T16:40:40Z"},
		{"ami-0new", "amazon-eks-node-al2023-x86_64-nvidia-1.32-v20250403", "x86_64", "2025-04-03T16:40:40Z"},
	}
	sel := selectAt(imagesOfTest(images), mustTime("2025-04-04T00:00:00Z"), 168*time.Hour)
	plan := planOf(sel, []Running{{ImageID: "ami-0old", Nodes: 10}, {ImageID: "ami-0new", Nodes: 1}}, nil, PlanOptions{})
	data, err := json.MarshalIndent(plan.Images, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Reason": "held-back"`, `"Reason": "none"`, `"Variant": "nvidia"`, `"SelectedAt": "2025-04-10T16:40:40Z"`,
		`"Detail": "keeps running: held back until 2025-04-10T16:40:40Z; ami-0new was created`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("JSON lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "0001-01-01") || strings.Contains(string(data), `"ReplacedAt"`+": \"0") {
		t.Errorf("JSON has a zero time:\n%s", data)
	}
	data, err = json.Marshal(sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"MinAge":"168h0m0s"`, `"HeldBack":[{`, `"Reason":"ami-0new was created 2025-04-03T16:40:40Z, less than MinAge`, `"Changes":[{"At":"2025-04-10T16:40:40Z"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("Selection JSON lacks %s:\n%s", want, data)
		}
	}
}

// TestSelectionJSONEdited: JSON whose AMIs are not what its images select
// at its instant is refused, with the reason; so is a bad MinAge.
func TestSelectionJSONEdited(t *testing.T) {
	sel := selectAt(imagesOfTest([]ec2Image{
		{"ami-0old", "team-base-1", "x86_64", "2025-03-01T00:00:00Z"},
		{"ami-0new", "team-base-2", "x86_64", "2025-04-03T00:00:00Z"},
	}), mustTime("2025-04-04T00:00:00Z"), 168*time.Hour)
	data, err := json.Marshal(sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, from, to, want string }{
		{"soak shortened", `"MinAge":"168h0m0s"`, `"MinAge":"1h0m0s"`, "amiselect: a Selection's AMIs are not what the images it lists select"},
		{"minAge edited", `"MinAge":"168h0m0s"`, `"MinAge":"a week"`, `amiselect: a Selection's MinAge "a week" is not a positive Go duration`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			edited := strings.Replace(string(data), tt.from, tt.to, 1)
			if edited == string(data) {
				t.Fatalf("nothing to edit in %s", data)
			}
			var back Selection
			if err := json.Unmarshal([]byte(edited), &back); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

// TestEnumText: every enum's values marshal as their names and back; an
// unknown value or name is an error naming it.
func TestEnumText(t *testing.T) {
	check := func(name string, values int, marshal func(int) ([]byte, error), unmarshal func([]byte) (int, error)) {
		t.Run(name, func(t *testing.T) {
			for v := range values {
				text, err := marshal(v)
				if err != nil {
					t.Fatalf("%d: %v", v, err)
				}
				back, err := unmarshal(text)
				if err != nil || back != v {
					t.Errorf("%q decodes to %d, %v; want %d", text, back, err, v)
				}
			}
			if _, err := marshal(values); err == nil {
				t.Errorf("value %d, which has no name, marshals", values)
			}
			if _, err := unmarshal([]byte("bogus")); err == nil || !strings.Contains(err.Error(), `"bogus"`) {
				t.Errorf("unmarshal(bogus) = %v", err)
			}
		})
	}
	check("Variant", int(Neuron)+1, func(v int) ([]byte, error) { return Variant(v).MarshalText() },
		func(b []byte) (int, error) { var v Variant; err := v.UnmarshalText(b); return int(v), err })
	check("DriftReason", int(DriftDeregistered)+1, func(v int) ([]byte, error) { return DriftReason(v).MarshalText() },
		func(b []byte) (int, error) { var v DriftReason; err := v.UnmarshalText(b); return int(v), err })
	check("AliasSource", int(AliasBySSM)+1, func(v int) ([]byte, error) { return AliasSource(v).MarshalText() },
		func(b []byte) (int, error) { var v AliasSource; err := v.UnmarshalText(b); return int(v), err })
	// RejectionKind starts at 1: the zero kind has no name.
	check("RejectionKind", int(InvalidDeprecationTime), func(v int) ([]byte, error) { return RejectionKind(v + 1).MarshalText() },
		func(b []byte) (int, error) { var v RejectionKind; err := v.UnmarshalText(b); return int(v) - 1, err })
	if _, err := RejectionKind(0).MarshalText(); err == nil {
		t.Error("RejectionKind 0 marshals")
	}
}

// ec2Image is a short form of an available image for these tests.
type ec2Image struct{ id, name, arch, created string }

func imagesOfTest(in []ec2Image) []ec2types.Image {
	out := make([]ec2types.Image, len(in))
	for i, im := range in {
		out[i] = image(im.id, im.name, im.arch, im.created)
	}
	return out
}
