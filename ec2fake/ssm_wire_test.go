package ec2fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/google/go-cmp/cmp"
)

// botocoreShapes are the output shapes of botocore's SSM model, as
// botocore/data/ssm/2014-11-06/service-2.json at
// 0e6e2404b85dc336dd2889814e089bde7d1a4c55 defines them: each member's
// model type ("string" for strings and string enums, "long", "timestamp" —
// epoch seconds on the AWS JSON 1.1 wire — "list:SHAPE", "struct:SHAPE"),
// and the members it requires. boto3 and the AWS CLI parse answers with
// these shapes; a member of the wrong JSON type makes them fail.
var botocoreShapes = map[string]struct {
	members  map[string]string
	required []string
}{
	"PutParameterResult":        {map[string]string{"Version": "long", "Tier": "string"}, nil},
	"DeleteParameterResult":     {map[string]string{}, nil},
	"DescribeParametersResult":  {map[string]string{"Parameters": "list:ParameterMetadata", "NextToken": "string"}, nil},
	"GetParameterHistoryResult": {map[string]string{"Parameters": "list:ParameterHistory", "NextToken": "string"}, nil},
	"GetParameterResult":        {map[string]string{"Parameter": "struct:Parameter"}, nil},
	"GetParametersByPathResult": {map[string]string{"Parameters": "list:Parameter", "NextToken": "string"}, nil},
	"Parameter": {map[string]string{"Name": "string", "Type": "string", "Value": "string", "Version": "long", "Selector": "string",
		"SourceResult": "string", "LastModifiedDate": "timestamp", "ARN": "string", "DataType": "string"}, nil},
	"ParameterMetadata": {map[string]string{"Name": "string", "ARN": "string", "Type": "string", "KeyId": "string", "LastModifiedDate": "timestamp",
		"LastModifiedUser": "string", "Description": "string", "AllowedPattern": "string", "Version": "long", "Tier": "string",
		"Policies": "list:ParameterInlinePolicy", "DataType": "string"}, nil},
	"ParameterHistory": {map[string]string{"Name": "string", "Type": "string", "KeyId": "string", "LastModifiedDate": "timestamp",
		"LastModifiedUser": "string", "Description": "string", "Value": "string", "AllowedPattern": "string", "Version": "long",
		"Labels": "list:string", "Tier": "string", "Policies": "list:ParameterInlinePolicy", "DataType": "string"}, nil},
	"ParameterInlinePolicy": {map[string]string{"PolicyText": "string", "PolicyType": "string", "PolicyStatus": "string"}, nil},
	// Error answers: "__type" and the error shape's message member
	// ("message", or "Message" for InvalidFilterValue).
	"Error": {map[string]string{"__type": "string", "message": "string", "Message": "string"}, []string{"__type"}},
}

// checkShape reports every way v departs from shape: members the shape
// lacks, members of the wrong JSON type, required members missing.
func checkShape(path string, v any, shape string) []string {
	switch {
	case shape == "string":
		if _, ok := v.(string); !ok {
			return []string{fmt.Sprintf("%s: %T, want a string", path, v)}
		}
	case shape == "long":
		if n, ok := v.(json.Number); !ok || strings.ContainsAny(n.String(), ".eE") {
			return []string{fmt.Sprintf("%s: %v, want an integer", path, v)}
		}
	case shape == "timestamp":
		if _, ok := v.(json.Number); !ok {
			return []string{fmt.Sprintf("%s: %v, want epoch seconds", path, v)}
		}
	case strings.HasPrefix(shape, "list:"):
		items, ok := v.([]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %T, want a list", path, v)}
		}
		var out []string
		for i, it := range items {
			out = append(out, checkShape(fmt.Sprintf("%s[%d]", path, i), it, strings.TrimPrefix(shape, "list:"))...)
		}
		return out
	default:
		return checkStruct(path, v, strings.TrimPrefix(shape, "struct:"))
	}
	return nil
}

func checkStruct(path string, v any, shape string) []string {
	obj, ok := v.(map[string]any)
	s, known := botocoreShapes[shape]
	if !ok || !known {
		return []string{fmt.Sprintf("%s: %T, want structure %s", path, v, shape)}
	}
	var out []string
	for k, mv := range obj {
		ms, ok := s.members[k]
		if !ok {
			out = append(out, fmt.Sprintf("%s.%s: %s has no such member", path, k, shape))
			continue
		}
		out = append(out, checkShape(path+"."+k, mv, ms)...)
	}
	for _, r := range s.required {
		if _, ok := obj[r]; !ok {
			out = append(out, fmt.Sprintf("%s: required member %s missing", path, r))
		}
	}
	sort.Strings(out)
	return out
}

// Every new operation answers, in raw AWS JSON 1.1, exactly what botocore's
// model allows, and its errors are error documents.
func TestSSMAnswersMatchBotocoreShapes(t *testing.T) {
	b := newSSMFixture(t)
	h := b.Handler()
	call := func(op, body string) (int, map[string]any) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("X-Amz-Target", "AmazonSSM."+op)
		req.Header.Set("Content-Type", ssmContentType)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
		dec.UseNumber()
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: answer is not a JSON object: %v\n%s", op, err, rec.Body)
		}
		return rec.Code, doc
	}
	tests := []struct {
		op, body, shape string
		status          int
		has             []string // members the answer must carry
	}{
		{"PutParameter", `{"Name":"/wire/a","Value":"v1","Type":"String","Description":"first","AllowedPattern":"v[0-9]"}`, "PutParameterResult", 200, []string{"Version", "Tier"}},
		{"PutParameter", `{"Name":"/wire/a","Value":"v2","Overwrite":true}`, "PutParameterResult", 200, []string{"Version", "Tier"}},
		{"PutParameter", `{"Name":"/wire/a","Value":"v3","Type":"String"}`, "Error", 400, []string{"__type", "message"}},
		{"DescribeParameters", `{"ParameterFilters":[{"Key":"Path","Values":["/wire"]}]}`, "DescribeParametersResult", 200, []string{"Parameters"}},
		{"DescribeParameters", `{"MaxResults":1}`, "DescribeParametersResult", 200, []string{"Parameters", "NextToken"}},
		{"DescribeParameters", `{"ParameterFilters":[{"Key":"Name"}]}`, "Error", 400, []string{"__type", "Message"}},
		{"GetParameterHistory", `{"Name":"/wire/a"}`, "GetParameterHistoryResult", 200, []string{"Parameters"}},
		{"GetParameterHistory", `{"Name":"` + brX86133 + `"}`, "GetParameterHistoryResult", 200, []string{"Parameters"}},
		{"GetParameterHistory", `{"Name":"/wire/none"}`, "Error", 400, []string{"__type", "message"}},
		{"GetParameter", `{"Name":"` + al2023Dir133 + `recommended"}`, "GetParameterResult", 200, []string{"Parameter"}},
		{"GetParametersByPath", `{"Path":"/","Recursive":true}`, "GetParametersByPathResult", 200, []string{"Parameters"}},
		{"DeleteParameter", `{"Name":"/wire/a"}`, "DeleteParameterResult", 200, nil},
		{"DeleteParameter", `{"Name":"/wire/a"}`, "Error", 400, []string{"__type", "message"}},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%d %s", i, tc.op), func(t *testing.T) {
			status, doc := call(tc.op, tc.body)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %v", status, tc.status, doc)
			}
			if problems := checkStruct(tc.shape, doc, tc.shape); len(problems) > 0 {
				t.Errorf("%s departs from botocore's %s:\n%s", tc.op, tc.shape, strings.Join(problems, "\n"))
			}
			for _, m := range tc.has {
				if _, ok := doc[m]; !ok {
					t.Errorf("%s: %s missing from %v", tc.op, m, doc)
				}
			}
		})
	}
	// A history entry and a metadata entry carry the members SSM writes.
	call("PutParameter", `{"Name":"/wire/b","Value":"x","Type":"StringList","Description":"d"}`)
	_, hist := call("GetParameterHistory", `{"Name":"/wire/b"}`)
	entry := hist["Parameters"].([]any)[0].(map[string]any)
	var keys []string
	for k := range entry {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"DataType", "Description", "Labels", "LastModifiedDate", "Name", "Policies", "Tier", "Type", "Value", "Version"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("history entry members (-want +got):\n%s", diff)
	}
}

// signingClient is an *ssm.Client that signs its requests (Signature
// Version 4) for region, as boto3, the AWS CLI and a configured SDK client
// do.
func signingClient(url, region string) *ssm.Client {
	return ssm.New(ssm.Options{
		HTTPClient: guardedHTTPClient(), Region: region, BaseEndpoint: aws.String(url), Retryer: fastRetryer(),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", Source: "test"}, nil
		}),
	})
}

// ARNs name the region the caller asked for: the region a signed request's
// credential scope names, the ssm.Options region in process, otherwise
// Options.Region (default us-east-1). Public parameters carry no account
// (amazon-eks-ami issue #423 shows
// "arn:aws:ssm:us-west-2::parameter/aws/service/eks/optimized-ami/...").
func TestSSMRegionInARNs(t *testing.T) {
	ctx := context.Background()
	b := newSSMFixture(t)
	srv := NewServer(b)
	defer srv.Close()
	arn := func(c interface {
		GetParameter(context.Context, *ssm.GetParameterInput, ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
	}, name string, optFns ...func(*ssm.Options)) string {
		out, err := c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)}, optFns...)
		if err != nil {
			return err.Error()
		}
		return *out.Parameter.ARN
	}
	inRegion := func(r string) func(*ssm.Options) { return func(o *ssm.Options) { o.Region = r } }
	tests := []struct {
		name, got, want string
	}{
		{"signed for us-west-2, public", arn(signingClient(srv.URL, "us-west-2"), al2023Std133), "arn:aws:ssm:us-west-2::parameter" + al2023Std133},
		{"signed for eu-central-1, the account's", arn(signingClient(srv.URL, "eu-central-1"), "/team/base-ami"), "arn:aws:ssm:eu-central-1:111122223333:parameter/team/base-ami"},
		{"signed for cn-north-1", arn(signingClient(srv.URL, "cn-north-1"), "flat-ami"), "arn:aws-cn:ssm:cn-north-1:111122223333:parameter/flat-ami"},
		{"signed for us-gov-west-1", arn(signingClient(srv.URL, "us-gov-west-1"), win2022Core), "arn:aws-us-gov:ssm:us-gov-west-1::parameter" + win2022Core},
		{"unsigned", arn(NewSSMClient(srv.URL), al2023Std133), "arn:aws:ssm:us-east-1::parameter" + al2023Std133},
		{"in process, default", arn(b, "/team/base-ami"), "arn:aws:ssm:us-east-1:111122223333:parameter/team/base-ami"},
		{"in process, ssm.Options region", arn(b, "/team/base-ami", inRegion("ap-south-1")), "arn:aws:ssm:ap-south-1:111122223333:parameter/team/base-ami"},
		{"in process, not a region", arn(b, "/team/base-ami", inRegion("moon")), "arn:aws:ssm:us-east-1:111122223333:parameter/team/base-ami"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: %s\n\twant %s", tc.name, tc.got, tc.want)
		}
	}
	// Options.Region, in process and for unsigned requests.
	other := New(Options{Region: "sa-east-1"})
	if err := other.PutParameter("/team/ami", "ami-12345678"); err != nil {
		t.Fatal(err)
	}
	otherSrv := NewServer(other)
	defer otherSrv.Close()
	want := "arn:aws:ssm:sa-east-1:111122223333:parameter/team/ami"
	for name, got := range map[string]string{"in process": arn(other, "/team/ami"), "unsigned": arn(NewSSMClient(otherSrv.URL), "/team/ami")} {
		if got != want {
			t.Errorf("Options.Region, %s: %s, want %s", name, got, want)
		}
	}
}
