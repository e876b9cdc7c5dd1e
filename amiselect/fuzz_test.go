package amiselect

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"

	"github.com/ec2select/ec2select/compat"
)

// FuzzSelect feeds Select arbitrary image fields, next to well-formed
// images of every family, and checks that it never panics and that its
// result keeps its promises.
func FuzzSelect(f *testing.F) {
	f.Add("ami-0123", "amazon-eks-node-al2023-x86_64-standard-1.32-v20250403", "x86_64", "available", "2025-04-03T16:40:40.000Z", "", uint8(0))
	f.Add("ami-0b000000000000001", "bottlerocket-aws-k8s-1.32-x86_64-v1.49.0-713f44ce", "x86_64", "available", "2025-10-08T00:00:00Z", "2025-01-01T00:00:00Z", uint8(1))
	f.Add("ami-0x", "Windows_Server-2022-English-Core-EKS_Optimized-1.32-2025.04.14", "x86_64", "pending", "2025-04-14T16:11:17.000Z", "", uint8(2))
	f.Add("", "amazon-eks-gpu-node-1.32-v20250403", "i386", "", "Sat Mar 22 09:30:00 UTC 2025", "soon", uint8(7))
	f.Add("ami-0a200000000000003", "amazon-eks-gpu-node-1.32-v20250403", "x86_64", "available", "2025-04-03T16:33:51+23:59", "2025-04-03T16:33:51Z", uint8(0))
	f.Fuzz(func(t *testing.T, id, name, arch, state, created, deprecation string, flags uint8) {
		img := ec2types.Image{
			ImageId:         aws.String(id),
			Name:            aws.String(name),
			Architecture:    ec2types.ArchitectureValues(arch),
			State:           ec2types.ImageState(state),
			CreationDate:    aws.String(created),
			DeprecationTime: aws.String(deprecation),
		}
		if flags&1 != 0 {
			img.ImageId = nil
		}
		if flags&2 != 0 {
			img.Name = nil
		}
		if flags&4 != 0 {
			img.CreationDate = nil
		}
		if flags&8 != 0 {
			img.DeprecationTime = nil
		}
		images := append(append(bottlerocketImages(), al2Images()...), img)
		if flags&16 != 0 {
			images = append(images, img) // a duplicate
		}
		opts := at(fixedNow)
		if flags&32 != 0 {
			opts.MinAge = 7 * 24 * time.Hour
		}
		sel := Select(images, opts)
		// Every change it foresees is what Select then answers, however
		// odd the dates (year 0, year 9999, offsets).
		for _, c := range sel.Changes() {
			later := Select(images, SelectOptions{Now: func() time.Time { return c.At }, MinAge: opts.MinAge})
			if !slices.ContainsFunc(later.AMIs, func(a AMI) bool { return sameImage(a, c.To) }) {
				t.Fatalf("change to %s at %v; Select then gives %v", c.To, c.At, later.AMIs)
			}
		}

		admitted := 0
		for _, im := range images {
			if check(&im, new(cand), new(string), nil) {
				admitted++
			}
		}
		if len(sel.Rejected) != len(images)-admitted {
			t.Fatalf("%d rejections for %d images of which %d are valid", len(sel.Rejected), len(images), admitted)
		}
		for i, a := range sel.AMIs {
			if a.ID == "" || (a.Arch != "amd64" && a.Arch != "arm64") || a.Created.IsZero() {
				t.Fatalf("AMI %d is malformed: %+v", i, a)
			}
			// A release is read from the name: present exactly for the
			// families, and part of the name.
			if (a.Release == "") != (a.Family == compat.Custom) || !strings.Contains(a.Name, a.Release) {
				t.Fatalf("AMI %d %q of family %s has release %q", i, a.Name, a.Family, a.Release)
			}
			if !slices.ContainsFunc(images, func(im ec2types.Image) bool {
				return aws.ToString(im.ImageId) == a.ID && im.State == ec2types.ImageStateAvailable
			}) {
				t.Fatalf("selected %s, which no available input image has", a.ID)
			}
			for j := i + 1; j < len(sel.AMIs); j++ {
				if a.Requirements.Equal(sel.AMIs[j].Requirements) {
					t.Fatalf("AMIs %d and %d share a requirement set", i, j)
				}
				if !precedes(a, sel.AMIs[j]) {
					t.Fatalf("AMIs %d and %d out of order", i, j)
				}
			}
		}
		for _, r := range sel.Rejected {
			if r.Reason == "" || r.Kind == 0 {
				t.Fatalf("rejection without a reason: %+v", r)
			}
		}
	})
}

// FuzzSelectionJSON feeds Selection's decoder arbitrary bytes next to
// real encodings: it never panics, and what it accepts encodes and decodes
// again to a Selection that tells the same.
func FuzzSelectionJSON(f *testing.F) {
	for _, minAge := range []time.Duration{0, 7 * 24 * time.Hour} {
		images := append(append(bottlerocketImages(), al2Images()...), al2023Images()...)
		images = append(images, withDeprecation(image("ami-0c0000000000000a1", "team-base-1", "x86_64", "2025-06-28T00:00:00Z"), "2025-07-03T00:00:00Z"))
		data, err := json.Marshal(Select(images, soaked(fixedNow, minAge)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"At":"2025-07-01T00:00:00Z","MinAge":"-1h","AMIs":[{"ID":"ami-1","Variant":"bogus"}]}`))
	f.Add([]byte(`{"AMIs":[{"ID":"ami-1","Requirements":[{"Key":"k","Operator":"Gt","Values":["x"]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var sel Selection
		if err := json.Unmarshal(data, &sel); err != nil {
			return
		}
		again, err := json.Marshal(sel)
		if err != nil {
			t.Fatalf("a decoded Selection does not encode: %v", err)
		}
		var back Selection
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if diff := cmp.Diff(tellAll(sel), tellAll(back), equalRequirements); diff != "" {
			t.Fatalf("decode(encode(decoded)) differs (-decoded +again):\n%s", diff)
		}
	})
}

// FuzzQueries feeds the term grammar arbitrary text: Queries either
// refuses with an error naming the term, or returns requests that all
// filter on state "available" and include deprecated images; an alias
// resolves to owner "amazon" and names in one of the families' forms.
func FuzzQueries(f *testing.F) {
	f.Add("al2023@latest", "", "", "", "1.32")
	f.Add("bottlerocket@v1.49.0-713f44ce", "", "", "", "1.31")
	f.Add("windows2025@latest", "", "", "", "1.34")
	f.Add("", "team-*", "self", "team=*", "")
	f.Add("", "", "", "", "v1.32")
	f.Add("al2@v20250230", "x", "", "", "1.32")
	f.Fuzz(func(t *testing.T, alias, name, owner, tag, k8s string) {
		term := Term{Alias: alias, Name: name, Owner: owner}
		if k, v, ok := strings.Cut(tag, "="); ok {
			term.Tags = map[string]string{k: v}
		}
		qs, err := Queries([]Term{term, {ID: "ami-0123"}}[:1+len(name)%2], QueryOptions{KubernetesVersion: k8s})
		if err != nil {
			if qs != nil || !strings.HasPrefix(err.Error(), "amiselect: ") {
				t.Fatalf("Queries = %v, %q", qs, err)
			}
			return
		}
		if len(qs) == 0 {
			t.Fatal("no requests and no error")
		}
		for _, q := range qs {
			if !aws.ToBool(q.IncludeDeprecated) || !slices.ContainsFunc(q.Filters, func(f ec2types.Filter) bool {
				return aws.ToString(f.Name) == "state" && slices.Equal(f.Values, []string{"available"})
			}) {
				t.Fatalf("request without the available filter or deprecated images: %+v", q)
			}
		}
		if alias != "" {
			if len(qs) != 1 || !slices.Equal(qs[0].Owners, []string{"amazon"}) {
				t.Fatalf("alias %q gave %+v", alias, qs)
			}
			for _, n := range qs[0].Filters[0].Values {
				if !strings.HasPrefix(n, "amazon-eks-") && !strings.HasPrefix(n, "bottlerocket-aws-k8s-"+k8s+"-") &&
					!strings.HasPrefix(n, "Windows_Server-") {
					t.Fatalf("alias %q gave name %q", alias, n)
				}
				if !strings.Contains(n, "-"+k8s+"-") {
					t.Fatalf("alias %q name %q lacks Kubernetes %s", alias, n, k8s)
				}
			}
		}
	})
}

// FuzzAMIID: isAMIID is the CRD pattern on every input.
func FuzzAMIID(f *testing.F) {
	for _, s := range []string{"ami-0123456789abcdef0", "ami-id-amd64", "ami-ABC", "xami-", "ami-ami-1", "ami-\x00a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isAMIID(s), karpenterAMIIDPattern.MatchString(s); got != want {
			t.Fatalf("isAMIID(%q) = %v, the CRD pattern says %v", s, got, want)
		}
	})
}
