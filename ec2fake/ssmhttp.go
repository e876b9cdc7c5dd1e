package ec2fake

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
)

// SSM speaks the AWS JSON 1.1 protocol: a POST whose X-Amz-Target header
// names the operation ("AmazonSSM.GetParameter") and whose body is the input
// as a JSON object; answers are JSON objects, errors a JSON object whose
// "__type" is the error code.
const (
	ssmTargetPrefix   = "AmazonSSM."
	ssmContentType    = "application/x-amz-json-1.1"
	codeSerialization = "SerializationException"
	codeUnknownOp     = "UnknownOperationException"
)

// ssmRequest is one decoded SSM request: its operation and input, a
// *ssm.GetParameterInput, *ssm.GetParametersInput or
// *ssm.GetParametersByPathInput.
type ssmRequest struct {
	op    string
	input any
}

// decodeSSMRequest reads an X-Amz-Target value and a JSON body. Members are
// matched by their exact, case-sensitive names; other members are ignored,
// as AWS JSON services do; a body that is not a JSON object, or a member of
// the wrong JSON type, is a SerializationException.
func decodeSSMRequest(target string, body []byte) (ssmRequest, *apiError) {
	op, ok := strings.CutPrefix(target, ssmTargetPrefix)
	var input any
	var members []string
	switch {
	case ok && op == OpGetParameter:
		input, members = &ssm.GetParameterInput{}, []string{"Name", "WithDecryption"}
	case ok && op == OpGetParameters:
		input, members = &ssm.GetParametersInput{}, []string{"Names", "WithDecryption"}
	case ok && op == OpGetParametersByPath:
		input, members = &ssm.GetParametersByPathInput{}, []string{"Path", "Recursive", "MaxResults", "NextToken", "ParameterFilters", "WithDecryption"}
	default:
		return ssmRequest{}, newAPIError(codeUnknownOp, "The operation %q is not known; ec2fake's SSM implements AmazonSSM.GetParameter, AmazonSSM.GetParameters and AmazonSSM.GetParametersByPath.", target)
	}
	if aerr := decodeJSONObject(body, input, members); aerr != nil {
		return ssmRequest{}, aerr
	}
	return ssmRequest{op: op, input: input}, nil
}

// decodeJSONObject decodes the named members of a JSON object into into.
// encoding/json alone would also accept "name" for Name.
func decodeJSONObject(body []byte, into any, members []string) *apiError {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		return newAPIError(codeSerialization, "The request body is not a JSON object: %v", err)
	}
	kept := make(map[string]json.RawMessage, len(members))
	for _, m := range members {
		if v, ok := raw[m]; ok {
			kept[m] = v
		}
	}
	exact, err := json.Marshal(kept)
	if err == nil {
		err = json.Unmarshal(exact, into)
	}
	if err != nil {
		return newAPIError(codeSerialization, "The request body could not be read: %v", err)
	}
	return nil
}

func (h *handler) serveSSM(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.failSSM(w, h.b.nextRequestID(), &apiError{code: codeUnknownOp, message: "SSM requests use POST, not " + r.Method + ".", status: http.StatusMethodNotAllowed})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		h.failSSM(w, h.b.nextRequestID(), newAPIError(codeSerialization, "The request body could not be read (limit %d bytes): %v", maxRequestBody, err))
		return
	}
	req, aerr := decodeSSMRequest(r.Header.Get("X-Amz-Target"), body)
	if aerr != nil {
		h.failSSM(w, h.b.nextRequestID(), aerr)
		return
	}
	var out any
	var requestID string
	var ctxErr error
	switch in := req.input.(type) {
	case *ssm.GetParameterInput:
		out, requestID, aerr, ctxErr = invokeAny(r, h.b, OpGetParameter, in, h.b.getParameter)
	case *ssm.GetParametersInput:
		out, requestID, aerr, ctxErr = invokeAny(r, h.b, OpGetParameters, in, h.b.getParameters)
	case *ssm.GetParametersByPathInput:
		out, requestID, aerr, ctxErr = invokeAny(r, h.b, OpGetParametersByPath, in, h.b.getParametersByPath)
	}
	switch {
	case ctxErr != nil:
		h.failSSM(w, requestID, &apiError{code: "InternalServerError", message: "request canceled: " + ctxErr.Error(), status: http.StatusServiceUnavailable})
	case aerr != nil:
		h.failSSM(w, requestID, aerr)
	default:
		h.writeSSM(w, requestID, http.StatusOK, ssmResponse(out))
	}
}

// invokeAny runs one SSM operation for the HTTP handler.
func invokeAny[I, O any](r *http.Request, b *Backend, op string, in *I, run func(*I) (*O, *apiError)) (any, string, *apiError, error) {
	out, requestID, aerr, ctxErr := invoke(r.Context(), b, op, in, run)
	return out, requestID, aerr, ctxErr
}

func (h *handler) failSSM(w http.ResponseWriter, requestID string, e *apiError) {
	doc := map[string]string{"__type": e.code}
	if e.message != "" {
		doc["message"] = e.message
	}
	body, _ := json.Marshal(doc)
	h.writeSSM(w, requestID, e.status, body)
}

func (h *handler) writeSSM(w http.ResponseWriter, requestID string, status int, body []byte) {
	hdr := w.Header()
	hdr.Set("Content-Type", ssmContentType)
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	hdr.Set("X-Amzn-Requestid", requestID)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// wireParameter is ssmtypes.Parameter as AWS JSON writes it: timestamps as
// epoch seconds.
type wireParameter struct {
	ARN              *string  `json:"ARN,omitempty"`
	DataType         *string  `json:"DataType,omitempty"`
	LastModifiedDate *float64 `json:"LastModifiedDate,omitempty"`
	Name             *string  `json:"Name,omitempty"`
	Selector         *string  `json:"Selector,omitempty"`
	SourceResult     *string  `json:"SourceResult,omitempty"`
	Type             string   `json:"Type,omitempty"`
	Value            *string  `json:"Value,omitempty"`
	Version          int64    `json:"Version"`
}

func toWire(p ssmtypes.Parameter) wireParameter {
	w := wireParameter{ARN: p.ARN, DataType: p.DataType, Name: p.Name, Selector: p.Selector, SourceResult: p.SourceResult,
		Type: string(p.Type), Value: p.Value, Version: p.Version}
	if p.LastModifiedDate != nil {
		s := float64(p.LastModifiedDate.UnixMilli()) / 1000
		w.LastModifiedDate = &s
	}
	return w
}

func toWireList(ps []ssmtypes.Parameter) []wireParameter {
	out := make([]wireParameter, len(ps))
	for i, p := range ps {
		out[i] = toWire(p)
	}
	return out
}

func ssmResponse(out any) []byte {
	var doc any
	switch o := out.(type) {
	case *ssm.GetParameterOutput:
		doc = struct {
			Parameter wireParameter
		}{toWire(*o.Parameter)}
	case *ssm.GetParametersOutput:
		doc = struct {
			InvalidParameters []string
			Parameters        []wireParameter
		}{o.InvalidParameters, toWireList(o.Parameters)}
	case *ssm.GetParametersByPathOutput:
		doc = struct {
			NextToken  *string `json:",omitempty"`
			Parameters []wireParameter
		}{o.NextToken, toWireList(o.Parameters)}
	}
	body, _ := json.Marshal(doc)
	return body
}

// NewSSMClient returns a real *ssm.Client that talks to the SSM JSON
// endpoint at url (a NewServer URL, the same one NewClient uses): region
// us-east-1, anonymous credentials, the standard retryer with 3 attempts,
// no backoff delay and no retry quota, and the transport guard NewClient
// uses (see closedBodyGuard).
func NewSSMClient(url string) *ssm.Client {
	return ssm.New(ssm.Options{
		HTTPClient:   guardedHTTPClient(),
		Region:       parameterRegion,
		BaseEndpoint: aws.String(url),
		Credentials:  aws.AnonymousCredentials{},
		Retryer:      fastRetryer(),
	})
}
