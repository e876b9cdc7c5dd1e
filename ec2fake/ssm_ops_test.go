package ec2fake

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/google/go-cmp/cmp"
)

// The errors below are SSM's codes and texts: codes from botocore's
// botocore/data/ssm/2014-11-06/service-2.json at
// 0e6e2404b85dc336dd2889814e089bde7d1a4c55 (each operation's "errors"),
// texts as getmoto/moto moto/ssm/models.py at
// 0af643a5dbfc98797f08ee64f5be3ef8002d56ff reproduces them (put_parameter,
// delete_parameter, _validate_parameter_filters_for_describe), Coral's
// "1 validation error detected" for constraints of the model.

func validation(msg string) *ssmErr {
	return &ssmErr{Code: CodeValidationException, Message: msg, Type: "*types.ValidationException", Status: 400}
}

func TestPutParameterHTTP(t *testing.T) {
	tests := []struct {
		name    string
		in      *ssm.PutParameterInput
		want    *ssm.PutParameterOutput
		wantErr *ssmErr
	}{
		{"new String", &ssm.PutParameterInput{Name: aws.String("/app/ami"), Value: aws.String("ami-12345678"), Type: "String"},
			&ssm.PutParameterOutput{Version: 1, Tier: "Standard"}, nil},
		{"new flat StringList", &ssm.PutParameterInput{Name: aws.String("zones"), Value: aws.String("a,b"), Type: "StringList", Description: aws.String("AZs")},
			&ssm.PutParameterOutput{Version: 1, Tier: "Standard"}, nil},
		{"overwrite keeps the type", &ssm.PutParameterInput{Name: aws.String("/team/base-ami"), Value: aws.String("ami-87654321"), Overwrite: aws.Bool(true)},
			&ssm.PutParameterOutput{Version: 3, Tier: "Standard"}, nil},
		{"aws:ec2:image", &ssm.PutParameterInput{Name: aws.String("/app/golden"), Value: aws.String("ami-0123456789abcdef0"), Type: "String", DataType: aws.String("aws:ec2:image")},
			&ssm.PutParameterOutput{Version: 1, Tier: "Standard"}, nil},
		{"Intelligent-Tiering settles on Standard", &ssm.PutParameterInput{Name: aws.String("/app/it"), Value: aws.String("x"), Type: "String", Tier: "Intelligent-Tiering"},
			&ssm.PutParameterOutput{Version: 1, Tier: "Standard"}, nil},
		{"advanced value", &ssm.PutParameterInput{Name: aws.String("/app/big"), Value: aws.String(strings.Repeat("x", 5000)), Type: "String", Tier: "Advanced"},
			&ssm.PutParameterOutput{Version: 1, Tier: "Advanced"}, nil},
		{"pattern matches", &ssm.PutParameterInput{Name: aws.String("/app/port"), Value: aws.String("8080"), Type: "String", AllowedPattern: aws.String(`\d+`)},
			&ssm.PutParameterOutput{Version: 1, Tier: "Standard"}, nil},

		{"exists without Overwrite", &ssm.PutParameterInput{Name: aws.String("/team/base-ami"), Value: aws.String("ami-87654321"), Type: "String"}, nil,
			&ssmErr{Code: CodeParameterAlreadyExists, Message: "The parameter already exists. To overwrite this value, set the overwrite option in the request to true.", Type: "*types.ParameterAlreadyExists", Status: 400}},
		{"no type on create", &ssm.PutParameterInput{Name: aws.String("/app/x"), Value: aws.String("v")}, nil,
			validation("A parameter type is required when you create a parameter.")},
		{"empty value", &ssm.PutParameterInput{Name: aws.String("/app/x"), Value: aws.String(""), Type: "String"}, nil,
			validation("1 validation error detected: Value '' at 'value' failed to satisfy constraint: Member must have length greater than or equal to 1")},
		{"unknown type", &ssm.PutParameterInput{Name: aws.String("/app/x"), Value: aws.String("v"), Type: "Number"}, nil,
			validation("1 validation error detected: Value 'Number' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]")},
		{"reserved, flat", &ssm.PutParameterInput{Name: aws.String("awsthing"), Value: aws.String("v"), Type: "String"}, nil,
			validation(`Parameter name: can't be prefixed with "aws" or "ssm" (case-insensitive).`)},
		{"reserved, path", &ssm.PutParameterInput{Name: aws.String("/ssm/thing"), Value: aws.String("v"), Type: "String"}, nil, validation(msgPathReservedOrBad)},
		{"AWS's own hierarchy", &ssm.PutParameterInput{Name: aws.String("/aws/service/x"), Value: aws.String("v"), Type: "String"}, nil,
			&ssmErr{Code: CodeAccessDenied, Message: "No access to reserved parameter name: /aws/service/x.", Type: "*types.AccessDeniedException", Status: 400}},
		{"bad character", &ssm.PutParameterInput{Name: aws.String("/app/a b"), Value: aws.String("v"), Type: "String"}, nil, validation(msgPathReservedOrBad)},
		{"sixteen levels", &ssm.PutParameterInput{Name: aws.String(strings.Repeat("/a", 16)), Value: aws.String("v"), Type: "String"}, nil,
			&ssmErr{Code: CodeHierarchyLevelLimitExceeded, Message: msgHierarchyTooDeep, Type: "*types.HierarchyLevelLimitExceededException", Status: 400}},
		{"tags with overwrite", &ssm.PutParameterInput{Name: aws.String("/team/base-ami"), Value: aws.String("v"), Overwrite: aws.Bool(true), Tags: []ssmtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}, nil,
			validation("Invalid request: tags and overwrite can't be used together. To create a parameter with tags, please remove overwrite flag. To update tags for an existing parameter, please use AddTagsToResource or RemoveTagsFromResource.")},
		{"standard value too long", &ssm.PutParameterInput{Name: aws.String("/app/big"), Value: aws.String(strings.Repeat("x", 4097)), Type: "String"}, nil,
			validation("Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html")},
		{"pattern mismatch", &ssm.PutParameterInput{Name: aws.String("/app/port"), Value: aws.String("80a"), Type: "String", AllowedPattern: aws.String(`\d+`)}, nil,
			&ssmErr{Code: CodeParameterPatternMismatch, Message: `Parameter value, cannot be validated against allowedPattern: \d+`, Type: "*types.ParameterPatternMismatchException", Status: 400}},
		{"unknown data type", &ssm.PutParameterInput{Name: aws.String("/app/x"), Value: aws.String("v"), Type: "String", DataType: aws.String("Text")}, nil,
			validation("The following data type is not supported: Text (Data type names are all lowercase.)")},
		{"aws:ec2:image holding no AMI", &ssm.PutParameterInput{Name: aws.String("/app/x"), Value: aws.String("ubuntu"), Type: "String", DataType: aws.String("aws:ec2:image")}, nil,
			validation("Parameter value ubuntu is not valid for data type aws:ec2:image: use a String parameter holding an AMI ID (ami- followed by 8 or 17 hexadecimal digits).")},
		{"SecureString", &ssm.PutParameterInput{Name: aws.String("/app/secret"), Value: aws.String("v"), Type: "SecureString"}, nil,
			&ssmErr{Code: CodeUnsupported, Message: "SecureString parameters are valid in SSM but ec2fake does not model KMS encryption; use String or StringList.", Type: "*smithy.GenericAPIError", Status: 400}},
		{"nil name", &ssm.PutParameterInput{Value: aws.String("v")}, nil,
			&ssmErr{Code: "<not an API error: operation error SSM: PutParameter, 1 validation error(s) found.\n- missing required field, PutParameterInput.Name.\n>"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newSSMPair(t, newSSMFixture(t))
			out, err := p.client.PutParameter(context.Background(), tc.in)
			if diff := cmp.Diff(tc.wantErr, describeSSMErr(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err != nil {
				if tc.in.Name != nil && !strings.HasPrefix(tc.name, "exists") && !strings.HasPrefix(tc.name, "tags") {
					if _, gerr := p.b.GetParameter(context.Background(), &ssm.GetParameterInput{Name: tc.in.Name}); gerr == nil {
						t.Error("the refused parameter was stored")
					}
				}
				return
			}
			if diff := cmp.Diff(tc.want, out, ignoreUnexported, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ResultMetadata" }, cmp.Ignore())); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			got, err := p.client.GetParameter(context.Background(), &ssm.GetParameterInput{Name: tc.in.Name})
			if err != nil || *got.Parameter.Value != *tc.in.Value || got.Parameter.Version != tc.want.Version {
				t.Errorf("reading it back: %v, %+v", err, got)
			}
		})
	}
}

// The version limit: SSM keeps the newest 100 versions and deletes the
// oldest on the next write (service-2.json, ParameterMaxVersionLimitExceeded).
func TestPutParameterKeepsHundredVersions(t *testing.T) {
	b := New(Options{Now: func() time.Time { return testNow }})
	for range 105 {
		if err := b.PutParameter("/app/ami", "ami-12345678"); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, tc := range []struct {
		selector string
		want     string
	}{{":5", "ParameterVersionNotFound"}, {":6", ""}, {":105", ""}} {
		_, err := b.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/app/ami" + tc.selector)})
		if got := describeSSMErr(err); (got == nil) != (tc.want == "") || got != nil && got.Code != tc.want {
			t.Errorf("version %s: %+v; want %q", tc.selector, got, tc.want)
		}
	}
}

func TestDeleteParameterHTTP(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	ctx := context.Background()
	if _, err := p.client.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/team/base-ami")}); err != nil {
		t.Fatal(err)
	}
	_, err := p.client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String("/team/base-ami")})
	if diff := cmp.Diff(notFound("/team/base-ami"), describeSSMErr(err)); diff != "" {
		t.Errorf("after delete (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		name    string
		in      *ssm.DeleteParameterInput
		wantErr *ssmErr
	}{
		{"again", &ssm.DeleteParameterInput{Name: aws.String("/team/base-ami")}, notFound("/team/base-ami")},
		{"a public parameter is not the account's", &ssm.DeleteParameterInput{Name: aws.String(win2022Core)}, notFound(win2022Core)},
		{"empty", &ssm.DeleteParameterInput{Name: aws.String("")},
			validation("1 validation error detected: Value '' at 'name' failed to satisfy constraint: Member must have length greater than or equal to 1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := p.client.DeleteParameter(ctx, tc.in)
			if diff := cmp.Diff(tc.wantErr, describeSSMErr(err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := p.client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(win2022Core)}); err != nil {
		t.Errorf("the public parameter went away: %v", err)
	}
}

func TestDescribeParameters(t *testing.T) {
	b := newSSMFixture(t)
	for _, n := range []string{"/team/zones", "/other/x", "zz-flat"} {
		if _, aerr := b.putParameter(&ssm.PutParameterInput{Name: aws.String(n), Value: aws.String("a,b"), Type: "StringList", Description: aws.String("d")}); aerr != nil {
			t.Fatal(aerr.message)
		}
	}
	p := newSSMPair(t, b)
	pf := func(key, option string, values ...string) ssmtypes.ParameterStringFilter {
		f := ssmtypes.ParameterStringFilter{Key: aws.String(key), Values: values}
		if option != "" {
			f.Option = aws.String(option)
		}
		return f
	}
	tests := []struct {
		name    string
		in      *ssm.DescribeParametersInput
		want    []string // every page
		wantErr *ssmErr
	}{
		{"all of the account's, none of AWS's", &ssm.DescribeParametersInput{}, []string{"/other/x", "/team/base-ami", "/team/gpu/base-ami", "/team/zones", "flat-ami", "zz-flat"}, nil},
		{"pages of 2", &ssm.DescribeParametersInput{MaxResults: aws.Int32(2)}, []string{"/other/x", "/team/base-ami", "/team/gpu/base-ami", "/team/zones", "flat-ami", "zz-flat"}, nil},
		{"Path one level", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Path", "", "/team")}}, []string{"/team/base-ami", "/team/zones"}, nil},
		{"Path recursive", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Path", "Recursive", "/team/")}}, []string{"/team/base-ami", "/team/gpu/base-ami", "/team/zones"}, nil},
		{"Name begins with, slash optional", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Name", "BeginsWith", "team/")}}, []string{"/team/base-ami", "/team/gpu/base-ami", "/team/zones"}, nil},
		{"Name contains", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Name", "Contains", "flat")}}, []string{"flat-ami", "zz-flat"}, nil},
		{"Type and Name", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Type", "", "StringList"), pf("Name", "Equals", "/team/zones")}}, []string{"/team/zones"}, nil},
		{"legacy Name filter is a prefix", &ssm.DescribeParametersInput{Filters: []ssmtypes.ParametersFilter{{Key: "Name", Values: []string{"/team/g"}}}}, []string{"/team/gpu/base-ami"}, nil},

		{"both kinds of filter", &ssm.DescribeParametersInput{Filters: []ssmtypes.ParametersFilter{{Key: "Type", Values: []string{"String"}}}, ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Type", "", "String")}}, nil,
			validation("You can use either Filters or ParameterFilters in a single request.")},
		{"Path option", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Path", "Equals", "/team")}}, nil,
			&ssmErr{Code: CodeInvalidFilterOption, Message: "The following filter option is not valid: Equals. Valid options include: [Recursive, OneLevel].", Type: "*types.InvalidFilterOption", Status: 400}},
		{"Path under /aws", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Path", "", "/aws/service")}}, nil,
			validation(`Filters for common parameters can't be prefixed with "aws" or "ssm" (case-insensitive). When using global parameters, please specify within a global namespace.`)},
		{"Type value", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Type", "", "Number")}}, nil,
			&ssmErr{Code: CodeInvalidFilterOption, Message: "The following filter value is not valid: Number. Valid values include: [String, StringList, SecureString].", Type: "*types.InvalidFilterOption", Status: 400}},
		{"duplicate key", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Type", "", "String"), pf("Type", "", "StringList")}}, nil,
			// The SDK drops the message: the model's InvalidFilterKey has no members.
			&ssmErr{Code: CodeInvalidFilterKey, Type: "*types.InvalidFilterKey", Status: 400}},
		{"no values", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{{Key: aws.String("Name")}}}, nil,
			&ssmErr{Code: CodeInvalidFilterValue, Message: "The following filter values are missing : null for filter key Name.", Type: "*types.InvalidFilterValue", Status: 400}},
		{"MaxResults 51", &ssm.DescribeParametersInput{MaxResults: aws.Int32(51)}, nil,
			validation("1 validation error detected: Value '51' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 50")},
		{"tag filter", &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("tag:team", "", "x")}}, nil,
			&ssmErr{Code: CodeUnsupported, Message: "The tag:team filter is valid in SSM but ec2fake does not model it; filter the answer yourself.", Type: "*smithy.GenericAPIError", Status: 400}},
		{"made-up token", &ssm.DescribeParametersInput{NextToken: aws.String("bm9wZQ")}, nil,
			&ssmErr{Code: CodeInvalidNextToken, Message: invalidSSMTokenMessage, Type: "*types.InvalidNextToken", Status: 400}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := cloneInput(tc.in)
			names := []string{}
			for page := 0; ; page++ {
				out, err := both(t, p.b.DescribeParameters, p.client.DescribeParameters, in)
				if diff := cmp.Diff(tc.wantErr, err); diff != "" {
					t.Fatalf("page %d: error (-want +got):\n%s", page, diff)
				}
				if err != nil {
					return
				}
				for _, m := range out.Parameters {
					names = append(names, *m.Name)
				}
				if out.NextToken == nil {
					break
				}
				in.NextToken = out.NextToken
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// What one entry says.
	out, _ := b.DescribeParameters(context.Background(), &ssm.DescribeParametersInput{ParameterFilters: []ssmtypes.ParameterStringFilter{pf("Name", "", "/team/zones")}})
	want := []ssmtypes.ParameterMetadata{{Name: aws.String("/team/zones"), ARN: aws.String("arn:aws:ssm:us-east-1:111122223333:parameter/team/zones"), Type: "StringList",
		LastModifiedDate: aws.Time(testNow), Version: 1, Tier: "Standard", DataType: aws.String("text"), Description: aws.String("d"), Policies: []ssmtypes.ParameterInlinePolicy{}}}
	if diff := cmp.Diff(want, out.Parameters, ignoreUnexported); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
}

func TestGetParameterHistory(t *testing.T) {
	p := newSSMPair(t, newSSMFixture(t))
	hist := func(name, value string, version int64, modified string) ssmtypes.ParameterHistory {
		prm := param(name, value, version, modified)
		return ssmtypes.ParameterHistory{Name: prm.Name, Type: prm.Type, Value: prm.Value, Version: version, LastModifiedDate: prm.LastModifiedDate,
			DataType: prm.DataType, Tier: "Standard", Labels: []string{}, Policies: []ssmtypes.ParameterInlinePolicy{}}
	}
	tests := []struct {
		name    string
		in      *ssm.GetParameterHistoryInput
		want    []ssmtypes.ParameterHistory
		wantErr *ssmErr
	}{
		{"the account's, every put", &ssm.GetParameterHistoryInput{Name: aws.String("/team/base-ami")},
			[]ssmtypes.ParameterHistory{hist("/team/base-ami", "ami-5e1f00000000000e1", 1, fixtureCustom), hist("/team/base-ami", "ami-5e1f00000000000e1", 2, fixtureCustom)}, nil},
		{"public, every release, one a page", &ssm.GetParameterHistoryInput{Name: aws.String(brX86133), MaxResults: aws.Int32(1)},
			[]ssmtypes.ParameterHistory{hist(brX86133, "ami-b0771e000000000c1", 1, "2025-09-01T00:00:00Z"), hist(brX86133, "ami-b0771e000000000c2", 2, "2025-08-01T00:00:00Z")}, nil},
		{"missing", &ssm.GetParameterHistoryInput{Name: aws.String("/nope")}, nil, notFound("/nope")},
		{"MaxResults 0", &ssm.GetParameterHistoryInput{Name: aws.String("/team/base-ami"), MaxResults: aws.Int32(0)}, nil,
			validation("1 validation error detected: Value '0' at 'maxResults' failed to satisfy constraint: Member must have value greater than or equal to 1")},
		{"token of another parameter", &ssm.GetParameterHistoryInput{Name: aws.String("/team/base-ami"),
			NextToken: aws.String(encodeToken(tokenOpParameterHistory, 0, "1"))}, nil,
			&ssmErr{Code: CodeInvalidNextToken, Message: invalidSSMTokenMessage, Type: "*types.InvalidNextToken", Status: 400}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := cloneInput(tc.in)
			var got []ssmtypes.ParameterHistory
			for page := 0; ; page++ {
				out, err := both(t, p.b.GetParameterHistory, p.client.GetParameterHistory, in)
				if diff := cmp.Diff(tc.wantErr, err); diff != "" {
					t.Fatalf("page %d: error (-want +got):\n%s", page, diff)
				}
				if err != nil {
					return
				}
				got = append(got, out.Parameters...)
				if out.NextToken == nil {
					break
				}
				in.NextToken = out.NextToken
			}
			if diff := cmp.Diff(tc.want, got, ignoreUnexported); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A parameter written over HTTP by one client is what another reads, and
// every new operation is faultable and logged like the reads.
func TestSSMWriteOperationsLogged(t *testing.T) {
	p := newSSMPair(t, New(Options{}))
	ctx := context.Background()
	if err := p.b.InjectFault(Fault{Operation: OpPutParameter, Code: "ThrottlingException", Message: "Rate exceeded", Times: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.client.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String("/a"), Value: aws.String("v"), Type: "String"}); err != nil {
		t.Fatalf("PutParameter after a throttle: %v", err)
	}
	if _, err := p.client.GetParameterHistory(ctx, &ssm.GetParameterHistoryInput{Name: aws.String("/a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.client.DescribeParameters(ctx, &ssm.DescribeParametersInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.client.DeleteParameter(ctx, &ssm.DeleteParameterInput{Name: aws.String("/a")}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.b.Calls() {
		got = append(got, fmt.Sprintf("%s %T %s", c.Operation, c.Input, fmtErrCode(c.Err)))
	}
	want := []string{
		"PutParameter *ssm.PutParameterInput ThrottlingException/400",
		"PutParameter *ssm.PutParameterInput ok",
		"GetParameterHistory *ssm.GetParameterHistoryInput ok",
		"DescribeParameters *ssm.DescribeParametersInput ok",
		"DeleteParameter *ssm.DeleteParameterInput ok",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call log (-want +got):\n%s", diff)
	}
}
