package ec2fake

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const knownTargets = "AmazonSSM.GetParameter, AmazonSSM.GetParameters, AmazonSSM.GetParametersByPath, AmazonSSM.PutParameter, AmazonSSM.DeleteParameter, AmazonSSM.DescribeParameters and AmazonSSM.GetParameterHistory"

// SSM's JSON 1.1 errors as a raw client sees them: status, "__type",
// message and a request ID on every answer, including those the handler
// gives before an operation runs.
func TestSSMHandlerProtocolErrors(t *testing.T) {
	h := newSSMFixture(t).Handler()
	type answer struct {
		Status            int
		Type, Message     string
		HasRequestID      bool
		ContentTypeIsJSON bool
	}
	tests := []struct {
		name, method, target, body string
		want                       answer
	}{
		{"unknown operation", http.MethodPost, "AmazonSSM.LabelParameterVersion", `{}`,
			answer{400, codeUnknownOp, `The operation "AmazonSSM.LabelParameterVersion" is not known; ec2fake's SSM implements ` + knownTargets + `.`, true, true}},
		{"other service", http.MethodPost, "AmazonEC2.GetParameter", `{}`,
			answer{400, codeUnknownOp, `The operation "AmazonEC2.GetParameter" is not known; ec2fake's SSM implements ` + knownTargets + `.`, true, true}},
		{"not JSON", http.MethodPost, "AmazonSSM.GetParameter", `Name=/x`,
			answer{400, codeSerialization, "The request body is not a JSON object: invalid character 'N' looking for beginning of value", true, true}},
		{"wrong member type", http.MethodPost, "AmazonSSM.GetParametersByPath", `{"Path":"/team","MaxResults":"3"}`,
			answer{400, codeSerialization, "The request body could not be read: json: cannot unmarshal string into Go struct field GetParametersByPathInput.MaxResults of type int32", true, true}},
		// Members are case-sensitive: "name" is not Name, so Name is missing.
		{"member in the wrong case", http.MethodPost, "AmazonSSM.GetParameter", `{"name":"/team/base-ami"}`,
			answer{400, CodeValidationException, "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null", true, true}},
		{"missing Names", http.MethodPost, "AmazonSSM.GetParameters", `{}`,
			answer{400, CodeValidationException, "1 validation error detected: Value null at 'names' failed to satisfy constraint: Member must not be null", true, true}},
		{"not found", http.MethodPost, "AmazonSSM.GetParameter", `{"Name":"/nope"}`,
			answer{400, CodeParameterNotFound, "Parameter /nope not found.", true, true}},
		{"PutParameter without a Value", http.MethodPost, "AmazonSSM.PutParameter", `{"Name":"/x","Type":"String"}`,
			answer{400, CodeValidationException, "1 validation error detected: Value null at 'value' failed to satisfy constraint: Member must not be null", true, true}},
		{"GET", http.MethodGet, "AmazonSSM.GetParameter", ``,
			answer{405, codeUnknownOp, "SSM requests use POST, not GET.", true, true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/", strings.NewReader(tc.body))
			req.Header.Set("X-Amz-Target", tc.target)
			req.Header.Set("Content-Type", ssmContentType)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			raw, _ := io.ReadAll(rec.Body)
			var doc struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatalf("answer is not JSON: %v\n%s", err, raw)
			}
			got := answer{rec.Code, doc.Type, doc.Message, rec.Header().Get("X-Amzn-Requestid") != "", rec.Header().Get("Content-Type") == ssmContentType}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, raw)
			}
		})
	}
}

// The answer carries epoch-second timestamps and exactly the members SSM
// writes.
func TestSSMHandlerAnswerShape(t *testing.T) {
	h := newSSMFixture(t).Handler()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"Name":"`+win2022Core+`"}`))
	req.Header.Set("X-Amz-Target", "AmazonSSM.GetParameter")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	want := `{"Parameter":{"ARN":"arn:aws:ssm:us-east-1::parameter` + win2022Core + `","DataType":"text","LastModifiedDate":1762905600,"Name":"` + win2022Core + `","Type":"String","Value":"ami-3191d0000000000d2","Version":2}}`
	if diff := cmp.Diff(want, rec.Body.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
