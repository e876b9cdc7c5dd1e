package ec2fake

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// ec2Document is enough of EC2's XML to tell answers from errors.
type ec2Document struct {
	XMLName   xml.Name
	RequestID string `xml:"requestId"`
	Errors    []struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	} `xml:"Errors>Error"`
	ErrRequestID string `xml:"RequestID"`
}

func post(t testing.TB, h http.Handler, method, body string) (int, ec2Document, string) {
	t.Helper()
	var req *http.Request
	if method == http.MethodGet {
		req = httptest.NewRequest(method, "/?"+body, nil)
	} else {
		req = httptest.NewRequest(method, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Body)
	var doc ec2Document
	if err := xml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s %q: response is not XML: %v\n%s", method, body, err, raw)
	}
	return rec.Code, doc, string(raw)
}

func TestHandlerProtocolErrors(t *testing.T) {
	h := newFixture(t).Handler()
	tests := []struct {
		name, method, body string
		wantStatus         int
		wantCode           string
		wantMessage        string
	}{
		{"no action", http.MethodPost, "Version=2016-11-15", 400, CodeInvalidAction, "The request must contain the parameter Action."},
		{"unknown action", http.MethodPost, "Action=RunInstances&Version=2016-11-15", 400, CodeInvalidAction,
			"The action RunInstances is not valid for this web service; ec2fake implements DescribeImages, DescribeInstanceTypes, DisableImage, DescribeSpotPriceHistory, DescribeAvailabilityZones, DescribeInstanceTypeOfferings, DescribeCapacityReservations, DescribeSubnets, CreateFleet."},
		{"unknown parameter", http.MethodPost, "Action=DescribeImages&Owners.1=self", 400, CodeUnknownParameter, "The parameter Owners.1 is not recognized"},
		{"bad index", http.MethodPost, "Action=DescribeImages&ImageId.0=ami-12345678", 400, CodeUnknownParameter, "The parameter ImageId.0 is not recognized"},
		{"leading zero index", http.MethodPost, "Action=DescribeImages&Filter.01.Name=name", 400, CodeUnknownParameter, "The parameter Filter.01.Name is not recognized"},
		{"filter without index", http.MethodPost, "Action=DescribeImages&Filter.Name=name", 400, CodeUnknownParameter, "The parameter Filter.Name is not recognized"},
		{"DescribeImages parameter on DescribeInstanceTypes", http.MethodPost, "Action=DescribeInstanceTypes&Owner.1=self", 400, CodeUnknownParameter, "The parameter Owner.1 is not recognized"},
		{"bad boolean", http.MethodPost, "Action=DescribeImages&IncludeDeprecated=yes", 400, CodeInvalidParameterValue,
			"Value (yes) for parameter IncludeDeprecated is invalid. Expected a boolean (true or false)."},
		{"bad integer", http.MethodPost, "Action=DescribeImages&MaxResults=ten", 400, CodeInvalidParameterValue, "Value (ten) for parameter MaxResults is invalid. Expected an integer."},
		{"malformed query", http.MethodPost, "Action=DescribeImages&Filter.1.Name=%zz", 400, CodeMalformedQueryString, `The query string is malformed: invalid URL escape "%zz"`},
		{"method", http.MethodPut, "Action=DescribeImages", 405, CodeInvalidAction, "HTTP method PUT is not supported; EC2 Query requests use POST or GET."},
		{"filter value without name", http.MethodPost, "Action=DescribeImages&Filter.1.Value.1=x", 400, CodeInvalidParameterValue, "The filter 'null' is invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, doc, raw := post(t, h, tc.method, tc.body)
			if status != tc.wantStatus || doc.XMLName.Local != "Response" || len(doc.Errors) != 1 {
				t.Fatalf("status %d, document %s; want %d and one EC2 error:\n%s", status, doc.XMLName.Local, tc.wantStatus, raw)
			}
			if doc.Errors[0].Code != tc.wantCode || doc.Errors[0].Message != tc.wantMessage {
				t.Errorf("error %s: %q; want %s: %q", doc.Errors[0].Code, doc.Errors[0].Message, tc.wantCode, tc.wantMessage)
			}
		})
	}
}

func TestHandlerAcceptsGETAndSigningParameters(t *testing.T) {
	h := newFixture(t).Handler()
	body := url.Values{
		"Action": {"DescribeImages"}, "Version": {"2016-11-15"}, "ImageId.1": {ImageTeamBaseAvailable},
		"X-Amz-Date": {"20260101T000000Z"}, "AWSAccessKeyId": {"AKIDEXAMPLE"},
	}.Encode()
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		status, doc, raw := post(t, h, method, body)
		if status != 200 || doc.XMLName.Local != "DescribeImagesResponse" || !strings.Contains(raw, "<name>team-base-al2023-20250301</name>") {
			t.Errorf("%s: status %d\n%s", method, status, raw)
		}
	}
}

func TestHandlerOrdersIndexedParameters(t *testing.T) {
	b := newFixture(t)
	body := "Action=DescribeImages&Filter.10.Name=name&Filter.10.Value.2=b&Filter.10.Value.1=a&Filter.2.Name=state&Filter.2.Value.1=available&ImageId.2=" +
		ImageTeamBaseArm64 + "&ImageId.1=" + ImageTeamBaseAvailable
	if status, _, raw := post(t, b.Handler(), http.MethodPost, body); status != 200 {
		t.Fatalf("status %d\n%s", status, raw)
	}
	got := b.Calls()[0].Input.(*ec2.DescribeImagesInput)
	want := &ec2.DescribeImagesInput{
		ImageIds: []string{ImageTeamBaseAvailable, ImageTeamBaseArm64},
		Filters:  []ec2types.Filter{filter("state", "available"), filter("name", "a", "b")},
	}
	if diff := cmp.Diff(want, got, ignoreUnexported); diff != "" {
		t.Errorf("parsed input (-want +got):\n%s", diff)
	}
}

func FuzzHandler(f *testing.F) {
	for _, seed := range []string{
		"Action=DescribeImages&Version=2016-11-15",
		"Action=DescribeImages&Filter.1.Name=name&Filter.1.Value.1=amazon-eks-*&Owner.1=amazon&MaxResults=5",
		"Action=DescribeImages&ImageId.1=" + ImageTeamBaseAvailable + "&IncludeDeprecated=true&IncludeDisabled=false",
		"Action=DescribeImages&NextToken=AQ&MaxResults=6",
		"Action=DescribeInstanceTypes&InstanceType.1=m5.large&Filter.1.Name=bare-metal&Filter.1.Value.1=false",
		"Action=DescribeInstanceTypes&MaxResults=5&DryRun=true",
		"Action=DescribeImages&Filter.1.Name=tag:team&Filter.1.Value.1=%5C*%3F",
		"Action=&&&=&Filter..Name=",
		"Action=DescribeImages&Filter.99999999999999999999.Name=x",
	} {
		f.Add(seed)
	}
	h := newFixture(f).Handler()
	f.Fuzz(func(t *testing.T, body string) {
		status, doc, raw := post(t, h, http.MethodPost, body)
		switch {
		case status == 200:
			if doc.XMLName.Local != "DescribeImagesResponse" && doc.XMLName.Local != "DescribeInstanceTypesResponse" {
				t.Fatalf("status 200 with document %q:\n%s", doc.XMLName.Local, raw)
			}
			if doc.RequestID == "" {
				t.Fatalf("answer without requestId:\n%s", raw)
			}
		case status >= 400 && status < 600:
			if doc.XMLName.Local != "Response" || len(doc.Errors) != 1 || doc.Errors[0].Code == "" || doc.Errors[0].Message == "" {
				t.Fatalf("status %d without an EC2 error document:\n%s", status, raw)
			}
		default:
			t.Fatalf("status %d:\n%s", status, raw)
		}
	})
}

// fill sets every exported field reachable from v to a non-zero value
// derived from its path, so a field the XML encoder drops shows up as a
// difference after the round trip.
func fill(v reflect.Value, path string, depth int) {
	switch v.Kind() {
	case reflect.Pointer:
		n := reflect.New(v.Type().Elem())
		fill(n.Elem(), path, depth)
		v.Set(n)
	case reflect.Struct:
		if v.Type() == timeType {
			v.Set(reflect.ValueOf(time.Date(2025, 1, 2, 3, 4, 5, int(time.Duration(len(path))*time.Millisecond), time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), path+"."+v.Type().Field(i).Name, depth+1)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i), depth)
		}
		v.Set(s)
	case reflect.String:
		v.SetString("v" + path)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int32, reflect.Int64:
		v.SetInt(int64(len(path)*7 + depth))
	case reflect.Float64:
		v.SetFloat(float64(len(path)) + 0.125)
	}
}

func TestEveryFieldSurvivesHTTP(t *testing.T) {
	var img ec2types.Image
	fill(reflect.ValueOf(&img).Elem(), "Image", 0)
	img.ImageId = aws.String("ami-0fedcba9876543210")
	img.State = ec2types.ImageStateAvailable
	img.Architecture = ec2types.ArchitectureValuesArm64
	img.OwnerId = aws.String(DefaultAccountID)
	img.DeprecationTime = aws.String("2099-01-01T00:00:00.000Z")
	img.Name = aws.String("with <xml> & \"quotes\"\ttab\nnewline\r\nend")
	var info ec2types.InstanceTypeInfo
	fill(reflect.ValueOf(&info).Elem(), "InstanceTypeInfo", 0)
	info.InstanceType = "zz9.large"
	info.ProcessorInfo.SupportedArchitectures = []ec2types.ArchitectureType{"arm64", "x86_64"}
	info.SupportedUsageClasses = []ec2types.UsageClassType{"spot", "on-demand"}

	b := New(Options{Now: func() time.Time { return testNow }})
	if err := b.PutImage(img); err != nil {
		t.Fatal(err)
	}
	if err := b.PutInstanceType(info); err != nil {
		t.Fatal(err)
	}
	p := newPair(t, b)
	images, errI := describeImagesBoth(t, p, &ec2.DescribeImagesInput{ImageIds: []string{*img.ImageId}})
	types, errT := describeTypesBoth(t, p, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"zz9.large"}})
	if errI != nil || errT != nil {
		t.Fatalf("describe: %v %v", errI, errT)
	}
	// describe*Both compared in-process with HTTP; also check nothing was
	// lost on the way in.
	if diff := cmp.Diff(img, images.Images[0], ignoreUnexported); diff != "" {
		t.Errorf("image (-put +described):\n%s", diff)
	}
	if diff := cmp.Diff(info, types.InstanceTypes[0], ignoreUnexported); diff != "" {
		t.Errorf("instance type (-put +described):\n%s", diff)
	}
}

func TestXMLShapesCoverEveryField(t *testing.T) {
	enc, err := newXMLEncoder()
	if err != nil {
		t.Fatal(err)
	}
	// Every field of the SDK release in use has an element name: one
	// without is left out of answers.
	for _, f := range enc.unnamed {
		t.Errorf("%s has no EC2 element name (xmlshapes.go): the SDK release in use added it, and ec2fake leaves it out of answers", f)
	}
	// And no entry in the table is stale: each names a field of the SDK
	// release in use, or one a release after the module's floor added.
	absent := 0
	for typ, plans := range enc.plans {
		shape, _ := shapeOf(typ)
		have := map[string]bool{}
		for _, p := range plans {
			have[typ.Field(p.index).Name] = true
		}
		for _, f := range shape {
			switch {
			case have[f.goName]:
			case laterFields[typ.Name()+"."+f.goName]:
				absent++
			default:
				t.Errorf("%s.%s has an element name but is no field of the SDK release in use, nor one a later release added", typ.Name(), f.goName)
			}
		}
	}
	if absent > 0 {
		t.Logf("%d fields that later SDK releases added are absent from the one in use", absent)
	}
	used := map[string]bool{}
	for typ := range enc.plans {
		used[typ.Name()] = true
	}
	for name := range xmlShapes {
		if !used[name] && !laterShapes[name] {
			t.Errorf("xmlShapes[%q] is not reachable from Image or InstanceTypeInfo", name)
		}
	}
	for name := range xmlShapesOfferings {
		if _, twice := xmlShapes[name]; twice || !used[name] && !laterShapes[name] {
			t.Errorf("xmlShapesOfferings[%q] is in xmlShapes too, or is not reachable from an answer's item type", name)
		}
	}
}

func TestHTTPErrorsMatchInProcessErrors(t *testing.T) {
	// The table tests compare errors for every case; this checks the
	// details a caller may read besides code and message.
	p := newPair(t, newFixture(t))
	_, err := p.client.DescribeImages(context.Background(), &ec2.DescribeImagesInput{ImageIds: []string{"ami-12345678"}})
	got := err.Error()
	if !strings.HasPrefix(got, "operation error EC2: DescribeImages, https response error StatusCode: 400, RequestID: 00000000-0000-4000-8000-") ||
		!strings.HasSuffix(got, "api error InvalidAMIID.NotFound: The image id '[ami-12345678]' does not exist") {
		t.Errorf("HTTP error reads %q", got)
	}
	_, err = p.b.DescribeImages(context.Background(), &ec2.DescribeImagesInput{ImageIds: []string{"ami-12345678"}})
	local := err.Error()
	if !strings.HasPrefix(local, "operation error EC2: DescribeImages, https response error StatusCode: 400, RequestID: 00000000-0000-4000-8000-") ||
		!strings.HasSuffix(local, "api error InvalidAMIID.NotFound: The image id '[ami-12345678]' does not exist") {
		t.Errorf("in-process error reads %q", local)
	}
}

// A closed smithy-go request body answers WriteTo with io.EOF, which
// net/http's write loop takes for an error and answers by closing the
// connection; the guard must hand the transport a body without WriteTo and
// leave the caller's request alone.
func TestClosedBodyGuardHidesWriteTo(t *testing.T) {
	var seen io.Reader
	next := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = r.Body
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
	})
	body := io.NopCloser(strings.NewReader("Action=DescribeImages")) // implements io.WriterTo
	if _, ok := body.(io.WriterTo); !ok {
		t.Fatal("test body should implement io.WriterTo")
	}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (closedBodyGuard{next: next}).RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if _, ok := seen.(io.WriterTo); ok {
		t.Error("the transport still sees WriteTo on the request body")
	}
	if req.Body != body {
		t.Error("the guard modified the caller's request")
	}
	b, _ := io.ReadAll(seen)
	if string(b) != "Action=DescribeImages" {
		t.Errorf("body through the guard = %q", b)
	}
	if _, ok := NewClient("http://127.0.0.1/").Options().HTTPClient.(*http.Client).Transport.(closedBodyGuard); !ok {
		t.Error("NewClient does not use closedBodyGuard")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
