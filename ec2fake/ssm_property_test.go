package ec2fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// naiveByPath lists, from every name the backend holds, those a
// GetParametersByPath walk must return, straight from the rule: below the
// path (one level unless recursive), public names only under /aws/service,
// and names without a leading slash at the top, under "/".
func naiveByPath(all []string, path string, recursive bool) []string {
	prefix := strings.TrimSuffix(path, "/") + "/"
	var out []string
	for _, n := range all {
		key := n
		if !strings.HasPrefix(n, "/") {
			key = "/" + n // a name without a slash sits at the top
		}
		rest, ok := strings.CutPrefix(key, prefix)
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
		all := allParameterNames(b)
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
	all := allParameterNames(p.b)
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
	f.Add("AmazonSSM.PutParameter", []byte(`{"Name":"/a","Value":"v","Type":"String","Overwrite":true,"Tags":[{"Key":"k","Value":"v"}]}`))
	f.Add("AmazonSSM.DescribeParameters", []byte(`{"ParameterFilters":[{"Key":"Path","Option":"Recursive","Values":["/a"]}],"Filters":[{"Key":"Name","Values":["x"]}]}`))
	f.Add("AmazonSSM.GetParameterHistory", []byte(`{"Name":"/a","MaxResults":2}`))
	f.Add("AmazonSSM.DeleteParameter", []byte(`{"Name":"/a"}`))
	f.Add("AmazonSSM.LabelParameterVersion", []byte(`{}`))
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
		for _, pn := range p.publishedNames("1.33.1-20251105") {
			n := pn.name
			dir := n[:strings.LastIndexByte(n, '/')]
			pp, aerr := parseParameterPath(dir)
			if aerr != nil {
				t.Fatalf("%q: parameter %q: directory not a path: %s", name, n, aerr.message)
			}
			if !pp.public || !pp.lists(n, false) {
				t.Fatalf("%q: parameter %q not listed under %q", name, n, dir)
			}
		}
		if p.family == familyEKS && !strings.Contains(p.dirs[0], "/"+name+"/") {
			t.Fatalf("%q: release directory %q does not carry the name", name, p.dirs[0])
		}
	})
}

// genAMI is one generated Amazon image, kept as the fields its name and
// parameters are built from, so the model never parses a name.
type genAMI struct {
	family, k8s, arch, variant string
	release                    int // ordinal; a higher one is newer
	state                      string
	public                     bool
}

// name and series spell the image name and its recommended/latest
// parameter from the fields, independently of parseAMIParameters.
func (g genAMI) name() string {
	date := fmt.Sprintf("2025%02d%02d", 1+g.release/28, 1+g.release%28)
	switch g.family {
	case "al2023":
		return fmt.Sprintf("amazon-eks-node-al2023-%s-%s-%s-v%s", g.arch, g.variant, g.k8s, date)
	case "al2":
		prefix := map[string]string{"x86_64": "", "arm64": "arm64-"}[g.arch]
		return fmt.Sprintf("amazon-eks-%snode-%s-v%s", prefix, g.k8s, date)
	case "bottlerocket":
		arch := map[string]string{"x86_64": "x86_64", "arm64": "aarch64"}[g.arch]
		return fmt.Sprintf("bottlerocket-aws-k8s-%s%s-%s-v1.%d.0-0123abcd", g.k8s, g.variant, arch, g.release)
	}
	return fmt.Sprintf("Windows_Server-2022-English-Core-EKS_Optimized-%s-2025.%02d.%02d", g.k8s, 1+g.release/28, 1+g.release%28)
}

func (g genAMI) series() string {
	switch g.family {
	case "al2023":
		return "/aws/service/eks/optimized-ami/" + g.k8s + "/amazon-linux-2023/" + g.arch + "/" + g.variant + "/recommended/image_id"
	case "al2":
		dir := map[string]string{"x86_64": "amazon-linux-2", "arm64": "amazon-linux-2-arm64"}[g.arch]
		return "/aws/service/eks/optimized-ami/" + g.k8s + "/" + dir + "/recommended/image_id"
	case "bottlerocket":
		return "/aws/service/bottlerocket/aws-k8s-" + g.k8s + g.variant + "/" + g.arch + "/latest/image_id"
	}
	return "/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-" + g.k8s + "/image_id"
}

// recommended/latest names the newest available public release of its
// series, whatever the order images arrive in and whatever else is there.
func TestRecommendedIsNewestReleaseProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := New(Options{})
		n := rapid.IntRange(1, 30).Draw(t, "images")
		ids := map[string]genAMI{}
		for i := range n {
			g := genAMI{
				family:  rapid.SampledFrom([]string{"al2023", "al2", "bottlerocket", "windows"}).Draw(t, "family"),
				k8s:     rapid.SampledFrom([]string{"1.33", "1.34"}).Draw(t, "k8s"),
				arch:    rapid.SampledFrom([]string{"x86_64", "arm64"}).Draw(t, "arch"),
				release: rapid.IntRange(0, 300).Draw(t, "release"),
				state:   rapid.SampledFrom([]string{"available", "available", "pending", "disabled"}).Draw(t, "state"),
				public:  rapid.Bool().Draw(t, "public"),
			}
			switch g.family {
			case "al2023":
				g.variant = rapid.SampledFrom([]string{"standard", "nvidia"}).Draw(t, "variant")
			case "bottlerocket":
				g.variant = rapid.SampledFrom([]string{"", "-nvidia", "-fips"}).Draw(t, "variant")
			case "windows":
				g.arch = "x86_64"
			}
			g.public = g.public && g.state != "disabled"
			id := fmt.Sprintf("ami-%017x", i)
			err := b.PutImage(ec2types.Image{ImageId: aws.String(id), Name: aws.String(g.name()), Architecture: ec2types.ArchitectureValues(g.arch),
				ImageOwnerAlias: aws.String("amazon"), OwnerId: aws.String(EKSOwnerID), Public: aws.Bool(g.public), State: ec2types.ImageState(g.state),
				CreationDate: aws.String("2025-06-01T00:00:00.000Z")})
			if err != nil {
				t.Fatal(err)
			}
			ids[id] = g
		}
		// The model: per series, the greatest release among available
		// public images; ties go to the greater image ID.
		want := map[string]string{}
		best := map[string]int{}
		for _, id := range slices.Sorted(maps.Keys(ids)) {
			g := ids[id]
			if g.state != "available" || !g.public {
				continue
			}
			if r, ok := best[g.series()]; !ok || g.release >= r {
				best[g.series()], want[g.series()] = g.release, id
			}
		}
		for _, g := range ids {
			out, err := b.GetParameter(context.Background(), &ssm.GetParameterInput{Name: aws.String(g.series())})
			id, ok := want[g.series()]
			switch {
			case !ok && err == nil:
				t.Fatalf("%s = %s; the model has no release", g.series(), *out.Parameter.Value)
			case ok && err != nil:
				t.Fatalf("%s: %v; the model says %s", g.series(), err, id)
			case ok && *out.Parameter.Value != id:
				t.Fatalf("%s = %s; the model says %s (%s)", g.series(), *out.Parameter.Value, id, ids[id].name())
			}
		}
	})
}

// FuzzSSMHandler: whatever a client posts, the handler answers with a JSON
// object — an answer (200) or an error document (4xx) — and never panics;
// the backend stays usable.
func FuzzSSMHandler(f *testing.F) {
	f.Add("PutParameter", []byte(`{"Name":"/a","Value":"v","Type":"String","AllowedPattern":"(","Tier":"Advanced"}`))
	f.Add("PutParameter", []byte(`{"Name":"/a","Value":"ami-12345678","Type":"String","DataType":"aws:ec2:image","Overwrite":true}`))
	f.Add("DescribeParameters", []byte(`{"ParameterFilters":[{"Key":"Path","Option":"Recursive","Values":["/team"]},{"Key":"Name","Option":"Contains","Values":["a"]}],"MaxResults":1}`))
	f.Add("DescribeParameters", []byte(`{"Filters":[{"Key":"Name","Values":["/t"]}],"NextToken":"x"}`))
	f.Add("GetParameterHistory", []byte(`{"Name":"/team/base-ami","MaxResults":1}`))
	f.Add("GetParametersByPath", []byte(`{"Path":"/","Recursive":true,"MaxResults":2}`))
	f.Add("DeleteParameter", []byte(`{"Name":"flat-ami"}`))
	b := newSSMFixture(f)
	h := b.Handler()
	f.Fuzz(func(t *testing.T, op string, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("X-Amz-Target", "AmazonSSM."+op)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var doc map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
			t.Fatalf("%s %s: answer is not a JSON object: %v\n%s", op, body, err, rec.Body)
		}
		if _, isErr := doc["__type"]; (rec.Code == http.StatusOK) == isErr {
			t.Fatalf("%s %s: status %d with %v", op, body, rec.Code, doc)
		}
	})
}

// The account's parameters behave like a naive model — a map from name to
// the list of values put — under any sequence of PutParameter (with or
// without Overwrite) and DeleteParameter over the wire: GetParameter gives
// the last value and its count as Version, GetParameterHistory every value
// in order, DescribeParameters (in pages of any size) every name once, in
// order.
func TestSSMWritesFollowAModelProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := New(Options{Now: func() time.Time { return testNow }})
		model := map[string][]string{}
		names := []string{"/a", "/a/b", "/a/b/c", "flat", "/z9", "/a-b"}
		for i := range rapid.IntRange(1, 40).Draw(t, "steps") {
			name := rapid.SampledFrom(names).Draw(t, "name")
			if rapid.IntRange(0, 3).Draw(t, "op") == 0 {
				_, aerr := b.deleteParameter(&ssm.DeleteParameterInput{Name: aws.String(name)})
				if (aerr == nil) != (model[name] != nil) {
					t.Fatalf("step %d: delete %s: %v; model has %v", i, name, aerr, model[name])
				}
				delete(model, name)
				continue
			}
			value := fmt.Sprintf("v%d", i)
			overwrite := rapid.Bool().Draw(t, "overwrite")
			out, aerr := b.putParameter(&ssm.PutParameterInput{Name: aws.String(name), Value: aws.String(value), Type: "String", Overwrite: aws.Bool(overwrite)})
			if exists := model[name] != nil; exists && !overwrite {
				if aerr == nil || aerr.code != CodeParameterAlreadyExists {
					t.Fatalf("step %d: put %s over an existing one without Overwrite: %v", i, name, aerr)
				}
				continue
			}
			if aerr != nil {
				t.Fatalf("step %d: put %s: %s", i, name, aerr.message)
			}
			model[name] = append(model[name], value)
			if out.Version != int64(len(model[name])) {
				t.Fatalf("step %d: put %s gave version %d; model %d", i, name, out.Version, len(model[name]))
			}
		}
		ctx := context.Background()
		for _, name := range names {
			values := model[name]
			h, err := b.GetParameterHistory(ctx, &ssm.GetParameterHistoryInput{Name: aws.String(name)})
			if values == nil {
				if err == nil {
					t.Fatalf("%s: history of a parameter the model lacks", name)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var got []string
			for j, v := range h.Parameters {
				if v.Version != int64(j+1) {
					t.Fatalf("%s: history entry %d has version %d", name, j, v.Version)
				}
				got = append(got, *v.Value)
			}
			if diff := cmp.Diff(values, got); diff != "" {
				t.Fatalf("%s history (-model +got):\n%s", name, diff)
			}
		}
		want := slices.Sorted(maps.Keys(model))
		var got []string
		in := &ssm.DescribeParametersInput{}
		for {
			in.MaxResults = aws.Int32(int32(rapid.IntRange(1, 50).Draw(t, "page")))
			out, err := b.DescribeParameters(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range out.Parameters {
				got = append(got, *m.Name)
				if m.Version != int64(len(model[*m.Name])) {
					t.Fatalf("%s: version %d; model %d", *m.Name, m.Version, len(model[*m.Name]))
				}
			}
			if out.NextToken == nil {
				break
			}
			in.NextToken = out.NextToken
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("DescribeParameters (-model +got):\n%s", diff)
		}
	})
}
