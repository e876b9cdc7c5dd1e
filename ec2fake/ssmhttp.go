package ec2fake

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

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

// ssmOperation is one SSM operation the handler serves: the input members
// it reads (botocore's ssm service-2.json request shapes), a new input to
// decode them into, and how to run it on that input.
type ssmOperation struct {
	members  []string
	newInput func() any
	run      func(b *Backend, r *http.Request, in any, region string) (out any, requestID string, aerr *apiError, ctxErr error)
}

// jsonOperation makes an ssmOperation of a Backend method; wire encodes
// its answer as AWS JSON writes it.
func jsonOperation[I, O any](op string, members []string, run func(*Backend, *I, string) (*O, *apiError), wire func(*O) any) ssmOperation {
	return ssmOperation{members: members, newInput: func() any { return new(I) },
		run: func(b *Backend, r *http.Request, in any, region string) (any, string, *apiError, error) {
			out, requestID, aerr, ctxErr := invoke(r.Context(), b, op, in.(*I), func(in *I) (*O, *apiError) { return run(b, in, region) })
			if aerr != nil || ctxErr != nil {
				return nil, requestID, aerr, ctxErr
			}
			return wire(out), requestID, nil, nil
		}}
}

// ssmOperations served over HTTP, by X-Amz-Target operation name.
var ssmHandlers = map[string]ssmOperation{
	OpGetParameter: jsonOperation(OpGetParameter, []string{"Name", "WithDecryption"}, (*Backend).getParameter,
		func(o *ssm.GetParameterOutput) any { return struct{ Parameter wireParameter }{toWire(*o.Parameter)} }),
	OpGetParameters: jsonOperation(OpGetParameters, []string{"Names", "WithDecryption"}, (*Backend).getParameters,
		func(o *ssm.GetParametersOutput) any {
			return struct {
				InvalidParameters []string
				Parameters        []wireParameter
			}{o.InvalidParameters, wireList(o.Parameters, toWire)}
		}),
	OpGetParametersByPath: jsonOperation(OpGetParametersByPath, []string{"Path", "Recursive", "MaxResults", "NextToken", "ParameterFilters", "WithDecryption"}, (*Backend).getParametersByPath,
		func(o *ssm.GetParametersByPathOutput) any {
			return struct {
				NextToken  *string `json:",omitempty"`
				Parameters []wireParameter
			}{o.NextToken, wireList(o.Parameters, toWire)}
		}),
	OpPutParameter: jsonOperation(OpPutParameter, []string{"Name", "Description", "Value", "Type", "KeyId", "Overwrite", "AllowedPattern", "Tags", "Tier", "Policies", "DataType"},
		func(b *Backend, in *ssm.PutParameterInput, _ string) (*ssm.PutParameterOutput, *apiError) {
			return b.putParameter(in)
		},
		func(o *ssm.PutParameterOutput) any {
			return struct {
				Tier    ssmtypes.ParameterTier
				Version int64
			}{o.Tier, o.Version}
		}),
	OpDeleteParameter: jsonOperation(OpDeleteParameter, []string{"Name"},
		func(b *Backend, in *ssm.DeleteParameterInput, _ string) (*ssm.DeleteParameterOutput, *apiError) {
			return b.deleteParameter(in)
		},
		func(*ssm.DeleteParameterOutput) any { return struct{}{} }),
	OpDescribeParameters: jsonOperation(OpDescribeParameters, []string{"Filters", "ParameterFilters", "MaxResults", "NextToken", "Shared"}, (*Backend).describeParameters,
		func(o *ssm.DescribeParametersOutput) any {
			return struct {
				NextToken  *string `json:",omitempty"`
				Parameters []wireMetadata
			}{o.NextToken, wireList(o.Parameters, toWireMetadata)}
		}),
	OpGetParameterHistory: jsonOperation(OpGetParameterHistory, []string{"Name", "WithDecryption", "MaxResults", "NextToken"}, (*Backend).getParameterHistory,
		func(o *ssm.GetParameterHistoryOutput) any {
			return struct {
				NextToken  *string `json:",omitempty"`
				Parameters []wireHistory
			}{o.NextToken, wireList(o.Parameters, toWireHistory)}
		}),
}

// decodeJSONObject decodes the named members of a JSON object into into.
// Members are matched by their exact, case-sensitive names; other members
// are ignored, as AWS JSON services do; a body that is not a JSON object,
// or a member of the wrong JSON type, is a SerializationException.
// (encoding/json alone would also accept "name" for Name.)
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

// ssmRequest is one decoded SSM request: its operation and input (an
// *ssm.GetParameterInput, *ssm.PutParameterInput, ...).
type ssmRequest struct {
	op    ssmOperation
	input any
}

// decodeSSMRequest reads an X-Amz-Target value and a JSON body.
func decodeSSMRequest(target string, body []byte) (ssmRequest, *apiError) {
	name, ok := strings.CutPrefix(target, ssmTargetPrefix)
	op, known := ssmHandlers[name]
	if !ok || !known {
		return ssmRequest{}, newAPIError(codeUnknownOp, "The operation %q is not known; ec2fake's SSM implements %s.", target, knownSSMTargets())
	}
	in := op.newInput()
	if aerr := decodeJSONObject(body, in, op.members); aerr != nil {
		return ssmRequest{}, aerr
	}
	return ssmRequest{op: op, input: in}, nil
}

func knownSSMTargets() string {
	names := make([]string, len(ssmOperations))
	for i, op := range ssmOperations {
		names[i] = ssmTargetPrefix + op
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
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
	out, requestID, aerr, ctxErr := req.op.run(h.b, r, req.input, h.b.regionOfRequest(r))
	switch {
	case ctxErr != nil:
		h.failSSM(w, requestID, &apiError{code: "InternalServerError", message: "request canceled: " + ctxErr.Error(), status: http.StatusServiceUnavailable})
	case aerr != nil:
		h.failSSM(w, requestID, aerr)
	default:
		body, _ := json.Marshal(out)
		h.writeSSM(w, requestID, http.StatusOK, body)
	}
}

// failSSM writes an SSM error document. The message member is spelt as
// botocore's model spells it for the error ("Message" for
// InvalidFilterValue, "message" otherwise), which is how the SDK reads it.
func (h *handler) failSSM(w http.ResponseWriter, requestID string, e *apiError) {
	doc := map[string]string{"__type": e.code}
	if e.message != "" {
		key := "message"
		if e.code == CodeInvalidFilterValue {
			key = "Message"
		}
		doc[key] = e.message
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

// epochSeconds is a timestamp as AWS JSON writes it: seconds since the
// epoch, with milliseconds.
func epochSeconds(t *time.Time) *float64 {
	if t == nil {
		return nil
	}
	s := float64(t.UnixMilli()) / 1000
	return &s
}

// wireParameter is ssmtypes.Parameter as AWS JSON writes it.
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
	return wireParameter{ARN: p.ARN, DataType: p.DataType, LastModifiedDate: epochSeconds(p.LastModifiedDate), Name: p.Name, Selector: p.Selector,
		SourceResult: p.SourceResult, Type: string(p.Type), Value: p.Value, Version: p.Version}
}

// wireMetadata is ssmtypes.ParameterMetadata as AWS JSON writes it.
type wireMetadata struct {
	ARN              *string                          `json:"ARN,omitempty"`
	AllowedPattern   *string                          `json:"AllowedPattern,omitempty"`
	DataType         *string                          `json:"DataType,omitempty"`
	Description      *string                          `json:"Description,omitempty"`
	LastModifiedDate *float64                         `json:"LastModifiedDate,omitempty"`
	Name             *string                          `json:"Name,omitempty"`
	Policies         []ssmtypes.ParameterInlinePolicy `json:"Policies"`
	Tier             string                           `json:"Tier,omitempty"`
	Type             string                           `json:"Type,omitempty"`
	Version          int64                            `json:"Version"`
}

func toWireMetadata(m ssmtypes.ParameterMetadata) wireMetadata {
	return wireMetadata{ARN: m.ARN, AllowedPattern: m.AllowedPattern, DataType: m.DataType, Description: m.Description,
		LastModifiedDate: epochSeconds(m.LastModifiedDate), Name: m.Name, Policies: nonNil(m.Policies), Tier: string(m.Tier), Type: string(m.Type), Version: m.Version}
}

// wireHistory is ssmtypes.ParameterHistory as AWS JSON writes it.
type wireHistory struct {
	AllowedPattern   *string                          `json:"AllowedPattern,omitempty"`
	DataType         *string                          `json:"DataType,omitempty"`
	Description      *string                          `json:"Description,omitempty"`
	Labels           []string                         `json:"Labels"`
	LastModifiedDate *float64                         `json:"LastModifiedDate,omitempty"`
	Name             *string                          `json:"Name,omitempty"`
	Policies         []ssmtypes.ParameterInlinePolicy `json:"Policies"`
	Tier             string                           `json:"Tier,omitempty"`
	Type             string                           `json:"Type,omitempty"`
	Value            *string                          `json:"Value,omitempty"`
	Version          int64                            `json:"Version"`
}

func toWireHistory(h ssmtypes.ParameterHistory) wireHistory {
	return wireHistory{AllowedPattern: h.AllowedPattern, DataType: h.DataType, Description: h.Description, Labels: nonNil(h.Labels),
		LastModifiedDate: epochSeconds(h.LastModifiedDate), Name: h.Name, Policies: nonNil(h.Policies), Tier: string(h.Tier), Type: string(h.Type), Value: h.Value, Version: h.Version}
}

func wireList[T, W any](items []T, conv func(T) W) []W {
	out := make([]W, len(items))
	for i, it := range items {
		out[i] = conv(it)
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// NewSSMClient returns a real *ssm.Client that talks to the SSM JSON
// endpoint at url (a NewServer URL, the same one NewClient uses): region
// us-east-1, anonymous credentials, the standard retryer with 3 attempts,
// no backoff delay and no retry quota, and the transport guard NewClient
// uses (see closedBodyGuard). Its requests are unsigned, so the server
// answers for its Options.Region; a client that signs (boto3, the AWS CLI,
// an *ssm.Client with credentials) gets answers for the region it signs
// for.
func NewSSMClient(url string) *ssm.Client {
	return ssm.New(ssm.Options{
		HTTPClient:   guardedHTTPClient(),
		Region:       defaultRegion,
		BaseEndpoint: aws.String(url),
		Credentials:  aws.AnonymousCredentials{},
		Retryer:      fastRetryer(),
	})
}
