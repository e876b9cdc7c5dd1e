package ec2fake

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// naiveByPath lists, from every name the backend holds, those a
// GetParametersByPath walk must return, straight from the rule: below the
// path (one level unless recursive), public names only under /aws/service.
func naiveByPath(all []string, path string, recursive bool) []string {
	prefix := strings.TrimSuffix(path, "/") + "/"
	var out []string
	for _, n := range all {
		rest, ok := strings.CutPrefix(n, prefix)
		public := strings.HasPrefix(n, "/aws/service/")
		if !ok || rest == "" || public != strings.HasPrefix(prefix, "/aws/service/") {
			continue
		}
		if recursive || !strings.Contains(rest, "/") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Walking GetParametersByPath with any page sizes returns each parameter
// below the path exactly once, in name order, even when parameters are
// put between pages (those put behind the walk's position are not seen;
// the ones there from start to end always are).
func TestGetParametersByPathPagesProperty(t *testing.T) {
	paths := []string{"/aws/service", "/aws/service/bottlerocket", "/aws/service/eks/optimized-ami/1.33", "/team", "/team/", "/", "/aws/service/ami-windows-latest"}
	rapid.Check(t, func(t *rapid.T) {
		b := newSSMFixture(t)
		for i := range rapid.IntRange(0, 25).Draw(t, "custom") {
			name := rapid.SampledFrom([]string{"/team", "/team/gpu", "/other", "/team/a/b"}).Draw(t, "dir") + fmt.Sprintf("/p%02d", i)
			if err := b.PutParameter(name, "ami-12345678"); err != nil {
				t.Fatal(err)
			}
		}
		var all []string
		for _, p := range b.parameters().sorted {
			all = append(all, *p.Name)
		}
		path := rapid.SampledFrom(paths).Draw(t, "path")
		recursive := rapid.Bool().Draw(t, "recursive")
		want := naiveByPath(all, path, recursive)

		in := &ssm.GetParametersByPathInput{Path: aws.String(path), Recursive: aws.Bool(recursive)}
		var got []string
		for page := 0; ; page++ {
			if page > len(all)+1 {
				t.Fatal("the walk does not end")
			}
			in.MaxResults = aws.Int32(int32(rapid.IntRange(1, 10).Draw(t, "maxResults")))
			if page > 0 && rapid.Bool().Draw(t, "put between pages") {
				// Put after the walk's position: "/zz..." sorts after every
				// other custom name, but only lists under "/" and its own dir.
				if err := b.PutParameter(fmt.Sprintf("/team/zz%02d", page), "ami-12345678"); err != nil {
					t.Fatal(err)
				}
			}
			out, err := b.GetParametersByPath(context.Background(), in)
			if err != nil {
				t.Fatalf("page %d: %v", page, err)
			}
			if len(out.Parameters) > int(*in.MaxResults) {
				t.Fatalf("page %d has %d parameters for MaxResults %d", page, len(out.Parameters), *in.MaxResults)
			}
			for _, p := range out.Parameters {
				got = append(got, *p.Name)
			}
			if out.NextToken == nil {
				break
			}
			in.NextToken = out.NextToken
		}
		// Parameters put during the walk may or may not be seen; every
		// other one must be, once.
		var gotOld []string
		for _, n := range got {
			if !strings.Contains(n, "/zz") {
				gotOld = append(gotOld, n)
			}
		}
		if diff := cmp.Diff(want, gotOld); diff != "" {
			t.Fatalf("walk of %s (recursive %v) (-want +got):\n%s", path, recursive, diff)
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("walk not in strict name order: %v", got)
		}
	})
}

// The SDK's paginator over HTTP sees every parameter exactly once too.
func TestGetParametersByPathPaginatorHTTP(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	var all []string
	for _, prm := range p.b.parameters().sorted {
		all = append(all, *prm.Name)
	}
	for _, size := range []int32{1, 3, 10} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			pager := ssm.NewGetParametersByPathPaginator(p.client, &ssm.GetParametersByPathInput{Path: aws.String("/aws/service"), Recursive: aws.Bool(true), MaxResults: aws.Int32(size)},
				func(o *ssm.GetParametersByPathPaginatorOptions) { o.StopOnDuplicateToken = true })
			var got []string
			for pager.HasMorePages() {
				page, err := pager.NextPage(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				for _, prm := range page.Parameters {
					got = append(got, *prm.Name)
				}
			}
			if diff := cmp.Diff(naiveByPath(all, "/aws/service", true), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeSSMRequest: no body panics the decoder, and a decoded input
// survives a round trip through its own JSON.
func FuzzDecodeSSMRequest(f *testing.F) {
	f.Add("AmazonSSM.GetParameter", []byte(`{"Name":"/aws/service/x","WithDecryption":false}`))
	f.Add("AmazonSSM.GetParameters", []byte(`{"Names":["/a","/b"]}`))
	f.Add("AmazonSSM.GetParametersByPath", []byte(`{"Path":"/aws","Recursive":true,"MaxResults":3,"NextToken":"x","ParameterFilters":[{"Key":"Type","Values":["String"]}]}`))
	f.Add("AmazonSSM.GetParameter", []byte(`{"name":"/x"}`))
	f.Add("AmazonSSM.GetParametersByPath", []byte(`{"MaxResults":1.5}`))
	f.Add("AmazonSSM.PutParameter", []byte(`{}`))
	f.Add("AmazonSSM.GetParameter", []byte(`[1]`))
	f.Fuzz(func(t *testing.T, target string, body []byte) {
		req, aerr := decodeSSMRequest(target, body)
		if aerr != nil {
			if aerr.code != codeSerialization && aerr.code != codeUnknownOp {
				t.Fatalf("decode error with code %q", aerr.code)
			}
			return
		}
		again, err := json.Marshal(req.input)
		if err != nil {
			t.Fatalf("re-encoding %T: %v", req.input, err)
		}
		req2, aerr := decodeSSMRequest(target, again)
		if aerr != nil {
			t.Fatalf("re-decoding %s: %s", again, aerr.message)
		}
		if diff := cmp.Diff(req.input, req2.input, ignoreUnexported); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzParseParameterPath: no path panics the parser; an accepted path lists
// a parameter directly below it and not the path itself.
func FuzzParseParameterPath(f *testing.F) {
	for _, s := range []string{"/", "/aws/service/", "/team//x", "team", "/a/b/c", "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		pp, aerr := parseParameterPath(path)
		if aerr != nil {
			if aerr.code != CodeValidationException {
				t.Fatalf("code %q", aerr.code)
			}
			return
		}
		if !strings.HasSuffix(pp.prefix, "/") || !strings.HasPrefix(pp.prefix, "/") {
			t.Fatalf("prefix %q", pp.prefix)
		}
		if !pp.lists(pp.prefix+"x", false) || pp.lists(pp.prefix+"x/y", false) || !pp.lists(pp.prefix+"x/y", true) {
			t.Fatalf("path %q: listing rule broken", path)
		}
		if pp.lists(strings.TrimSuffix(pp.prefix, "/"), true) {
			t.Fatalf("path %q lists itself", path)
		}
	})
}

// FuzzParseAMIParameters: no name panics the parser; an accepted name
// gives parameter names that are valid paths below AWS's public root,
// whose directories list them.
func FuzzParseAMIParameters(f *testing.F) {
	for _, si := range ssmImages {
		f.Add(si.name)
	}
	f.Add("bottlerocket-aws-k8s-1.33-fips-x86_64-v1.49.0-713f44ce")
	f.Fuzz(func(t *testing.T, name string) {
		p, ok := parseAMIParameters(name)
		if !ok {
			return
		}
		for _, n := range []string{p.series, p.release} {
			if n == "" {
				continue
			}
			dir := n[:strings.LastIndexByte(n, '/')]
			pp, aerr := parseParameterPath(dir)
			if aerr != nil {
				t.Fatalf("%q: parameter %q: directory not a path: %s", name, n, aerr.message)
			}
			if !pp.public || !pp.lists(n, false) {
				t.Fatalf("%q: parameter %q not listed under %q", name, n, dir)
			}
		}
		if p.release != "" && !strings.Contains(p.release, "/"+name+"/") && !strings.HasPrefix(name, "bottlerocket-") {
			t.Fatalf("%q: release parameter %q does not carry the name", name, p.release)
		}
	})
}
