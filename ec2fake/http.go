package ec2fake

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// maxRequestBody bounds what the handler reads from one request.
const maxRequestBody = 1 << 20

// Handler returns an http.Handler that speaks the EC2 Query protocol for
// DescribeImages, DescribeInstanceTypes and DisableImage, and, for requests
// with an X-Amz-Target header, SSM's AWS JSON 1.1 for GetParameter,
// GetParameters and GetParametersByPath. EC2 parameters arrive as a
// form-encoded POST body (or a GET query string), the answer is EC2's XML,
// and failures are EC2's error document with the error's HTTP status. A real
// *ec2.Client pointed at it (see NewClient) behaves as against EC2,
// including its retries on RequestLimitExceeded. The handler is safe for
// concurrent use.
func (b *Backend) Handler() http.Handler {
	enc, err := newXMLEncoder()
	return &handler{b: b, enc: enc, planErr: err}
}

type handler struct {
	b       *Backend
	enc     *xmlEncoder
	planErr error // non-nil only if an answer's item type has no element names at all
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if target := r.Header.Get("X-Amz-Target"); strings.HasPrefix(target, pricingTargetPrefix) {
		h.servePricing(w, r)
		return
	} else if target != "" {
		h.serveSSM(w, r)
		return
	}
	if h.planErr != nil {
		h.fail(w, h.b.nextRequestID(), &apiError{code: CodeInternalError, message: h.planErr.Error(), status: http.StatusInternalServerError})
		return
	}
	form, aerr := readForm(w, r)
	if aerr != nil {
		h.fail(w, h.b.nextRequestID(), aerr)
		return
	}
	switch action := first(form, "Action"); action {
	case OpDescribeImages:
		in, aerr := parseDescribeImages(form)
		if aerr != nil {
			h.fail(w, h.b.nextRequestID(), aerr)
			return
		}
		out, requestID, aerr, ctxErr := invoke(r.Context(), h.b, OpDescribeImages, in, h.b.describeImages)
		if h.failed(w, requestID, aerr, ctxErr) {
			return
		}
		h.write(w, requestID, http.StatusOK, h.enc.imagesResponse(requestID, out.Images, out.NextToken))
	case OpDescribeInstanceTypes:
		in, aerr := parseDescribeInstanceTypes(form)
		if aerr != nil {
			h.fail(w, h.b.nextRequestID(), aerr)
			return
		}
		out, requestID, aerr, ctxErr := invoke(r.Context(), h.b, OpDescribeInstanceTypes, in, h.b.describeInstanceTypes)
		if h.failed(w, requestID, aerr, ctxErr) {
			return
		}
		h.write(w, requestID, http.StatusOK, h.enc.instanceTypesResponse(requestID, out.InstanceTypes, out.NextToken))
	case OpDisableImage:
		in, aerr := parseDisableImage(form)
		if aerr != nil {
			h.fail(w, h.b.nextRequestID(), aerr)
			return
		}
		out, requestID, aerr, ctxErr := invoke(r.Context(), h.b, OpDisableImage, in, h.b.disableImage)
		if h.failed(w, requestID, aerr, ctxErr) {
			return
		}
		h.write(w, requestID, http.StatusOK, returnResponse("DisableImageResponse", requestID, aws.ToBool(out.Return)))
	case OpDescribeSpotPriceHistory:
		h.serveSpotPriceHistory(w, r, form)
	case "":
		h.fail(w, h.b.nextRequestID(), newAPIError(CodeInvalidAction, "The request must contain the parameter Action."))
	default:
		if h.servePlacement(w, r, action, form) {
			return
		}
		h.fail(w, h.b.nextRequestID(), newAPIError(CodeInvalidAction, "The action %s is not valid for this web service; ec2fake implements %s.", action, strings.Join(ec2Operations(), ", ")))
	}
}

func (h *handler) failed(w http.ResponseWriter, requestID string, aerr *apiError, ctxErr error) bool {
	switch {
	case ctxErr != nil:
		// The client has gone; this answer is for the record only.
		h.fail(w, requestID, &apiError{code: CodeInternalError, message: "request canceled: " + ctxErr.Error(), status: http.StatusServiceUnavailable})
		return true
	case aerr != nil:
		h.fail(w, requestID, aerr)
		return true
	}
	return false
}

func (h *handler) fail(w http.ResponseWriter, requestID string, e *apiError) {
	h.write(w, requestID, e.status, errorResponse(requestID, e.code, e.message))
}

func (h *handler) write(w http.ResponseWriter, requestID string, status int, body []byte) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/xml;charset=UTF-8")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	if requestID != "" {
		hdr.Set("X-Amzn-Requestid", requestID)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func readForm(w http.ResponseWriter, r *http.Request) (url.Values, *apiError) {
	var raw string
	switch r.Method {
	case http.MethodPost:
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		if err != nil {
			return nil, newAPIError(CodeMalformedQueryString, "The request body could not be read (limit %d bytes): %v", maxRequestBody, err)
		}
		raw = string(body)
	case http.MethodGet:
		raw = r.URL.RawQuery
	default:
		return nil, &apiError{code: CodeInvalidAction, message: fmt.Sprintf("HTTP method %s is not supported; EC2 Query requests use POST or GET.", r.Method), status: http.StatusMethodNotAllowed}
	}
	form, err := url.ParseQuery(raw)
	if err != nil {
		return nil, newAPIError(CodeMalformedQueryString, "The query string is malformed: %v", err)
	}
	return form, nil
}

func first(form url.Values, key string) string {
	if v := form[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Parameters that carry protocol or signing data rather than operation input.
func isProtocolParam(key string) bool {
	switch key {
	case "Action", "Version", "AWSAccessKeyId", "Signature", "SignatureMethod", "SignatureVersion", "Timestamp", "Expires", "SecurityToken":
		return true
	}
	return strings.HasPrefix(key, "X-Amz-")
}

// queryParams collects the indexed parameters of one request.
type queryParams struct {
	lists   map[string]map[int]string // "ImageId" -> N -> value
	filters map[int]*rawFilter
	scalars map[string]string
}

type rawFilter struct {
	name   *string
	values map[int]string
}

func parseParams(form url.Values, lists []string, scalars []string) (*queryParams, *apiError) {
	p := &queryParams{lists: map[string]map[int]string{}, filters: map[int]*rawFilter{}, scalars: map[string]string{}}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic choice of which unknown parameter to report
	for _, key := range keys {
		value := form[key][0]
		if isProtocolParam(key) {
			continue
		}
		if slices.Contains(scalars, key) {
			p.scalars[key] = value
			continue
		}
		parts := strings.Split(key, ".")
		if len(parts) == 2 && slices.Contains(lists, parts[0]) {
			n, ok := index(parts[1])
			if !ok {
				return nil, unknownParam(key)
			}
			if p.lists[parts[0]] == nil {
				p.lists[parts[0]] = map[int]string{}
			}
			p.lists[parts[0]][n] = value
			continue
		}
		if len(parts) >= 3 && parts[0] == "Filter" {
			n, ok := index(parts[1])
			if !ok {
				return nil, unknownParam(key)
			}
			f := p.filters[n]
			if f == nil {
				f = &rawFilter{values: map[int]string{}}
				p.filters[n] = f
			}
			switch {
			case len(parts) == 3 && parts[2] == "Name":
				v := value
				f.name = &v
				continue
			case len(parts) == 4 && parts[2] == "Value":
				m, ok := index(parts[3])
				if !ok {
					return nil, unknownParam(key)
				}
				f.values[m] = value
				continue
			}
		}
		return nil, unknownParam(key)
	}
	return p, nil
}

func index(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || strconv.Itoa(n) != s {
		return 0, false
	}
	return n, true
}

func unknownParam(key string) *apiError {
	return newAPIError(CodeUnknownParameter, "The parameter %s is not recognized", key)
}

func ordered(m map[int]string) []string {
	if len(m) == 0 {
		return nil
	}
	idx := make([]int, 0, len(m))
	for n := range m {
		idx = append(idx, n)
	}
	slices.Sort(idx)
	out := make([]string, len(idx))
	for i, n := range idx {
		out[i] = m[n]
	}
	return out
}

func (p *queryParams) filterList() []ec2types.Filter {
	if len(p.filters) == 0 {
		return nil
	}
	idx := make([]int, 0, len(p.filters))
	for n := range p.filters {
		idx = append(idx, n)
	}
	slices.Sort(idx)
	out := make([]ec2types.Filter, len(idx))
	for i, n := range idx {
		f := p.filters[n]
		out[i] = ec2types.Filter{Name: f.name, Values: ordered(f.values)}
	}
	return out
}

func (p *queryParams) boolean(key string) (*bool, *apiError) {
	v, ok := p.scalars[key]
	if !ok {
		return nil, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return aws.Bool(true), nil
	case "false":
		return aws.Bool(false), nil
	}
	return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter %s is invalid. Expected a boolean (true or false).", v, key)
}

func (p *queryParams) int32(key string) (*int32, *apiError) {
	v, ok := p.scalars[key]
	if !ok {
		return nil, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter %s is invalid. Expected an integer.", v, key)
	}
	return aws.Int32(int32(n)), nil
}

func (p *queryParams) str(key string) *string {
	if v, ok := p.scalars[key]; ok {
		return &v
	}
	return nil
}

func parseDescribeImages(form url.Values) (*ec2.DescribeImagesInput, *apiError) {
	p, aerr := parseParams(form, []string{"ImageId", "Owner", "ExecutableBy"}, []string{"DryRun", "IncludeDeprecated", "IncludeDisabled", "MaxResults", "NextToken"})
	if aerr != nil {
		return nil, aerr
	}
	in := &ec2.DescribeImagesInput{
		Filters:         p.filterList(),
		ImageIds:        ordered(p.lists["ImageId"]),
		Owners:          ordered(p.lists["Owner"]),
		ExecutableUsers: ordered(p.lists["ExecutableBy"]),
		NextToken:       p.str("NextToken"),
	}
	if in.DryRun, aerr = p.boolean("DryRun"); aerr != nil {
		return nil, aerr
	}
	if in.IncludeDeprecated, aerr = p.boolean("IncludeDeprecated"); aerr != nil {
		return nil, aerr
	}
	if in.IncludeDisabled, aerr = p.boolean("IncludeDisabled"); aerr != nil {
		return nil, aerr
	}
	if in.MaxResults, aerr = p.int32("MaxResults"); aerr != nil {
		return nil, aerr
	}
	return in, nil
}

func parseDescribeInstanceTypes(form url.Values) (*ec2.DescribeInstanceTypesInput, *apiError) {
	p, aerr := parseParams(form, []string{"InstanceType"}, []string{"DryRun", "IncludeUnsupportedInRegion", "MaxResults", "NextToken"})
	if aerr != nil {
		return nil, aerr
	}
	in := &ec2.DescribeInstanceTypesInput{
		Filters:   p.filterList(),
		NextToken: p.str("NextToken"),
	}
	for _, t := range ordered(p.lists["InstanceType"]) {
		in.InstanceTypes = append(in.InstanceTypes, ec2types.InstanceType(t))
	}
	if in.DryRun, aerr = p.boolean("DryRun"); aerr != nil {
		return nil, aerr
	}
	// IncludeUnsupportedInRegion is checked, and ec2fake answers the same
	// either way. (The input field it would fill came with ec2 v1.277.0,
	// after the lowest release the module requires.)
	if _, aerr = p.boolean("IncludeUnsupportedInRegion"); aerr != nil {
		return nil, aerr
	}
	if in.MaxResults, aerr = p.int32("MaxResults"); aerr != nil {
		return nil, aerr
	}
	return in, nil
}

func parseDisableImage(form url.Values) (*ec2.DisableImageInput, *apiError) {
	p, aerr := parseParams(form, nil, []string{"DryRun", "ImageId"})
	if aerr != nil {
		return nil, aerr
	}
	in := &ec2.DisableImageInput{ImageId: p.str("ImageId")}
	if in.ImageId == nil {
		return nil, newAPIError(CodeMissingParameter, "The request must contain the parameter ImageId")
	}
	if in.DryRun, aerr = p.boolean("DryRun"); aerr != nil {
		return nil, aerr
	}
	return in, nil
}

// NewServer starts an httptest.Server serving b.Handler(). Close it when
// done (t.Cleanup(srv.Close)).
func NewServer(b *Backend) *httptest.Server {
	return httptest.NewServer(b.Handler())
}

// NewClient returns a real *ec2.Client that talks to the EC2 Query endpoint
// at url (a NewServer URL): region us-east-1, anonymous credentials (no
// signing), and the SDK's standard retryer with 3 attempts, no backoff
// delay and no retry quota, so retry tests are fast and deterministic.
//
// The client's HTTP transport is the SDK's default one behind a small
// wrapper that works around a client-side race between smithy-go and
// net/http which a fast loopback server exposes (see closedBodyGuard); a
// client you build yourself against NewServer can fail now and then with
// "use of closed network connection", most often under -race.
func NewClient(url string) *ec2.Client {
	return ec2.New(ec2.Options{
		HTTPClient:   guardedHTTPClient(),
		Region:       "us-east-1",
		BaseEndpoint: aws.String(url),
		Credentials:  aws.AnonymousCredentials{},
		Retryer:      fastRetryer(),
	})
}

// guardedHTTPClient is the SDK's default transport behind closedBodyGuard,
// for NewClient and NewSSMClient.
func guardedHTTPClient() *http.Client {
	return &http.Client{Transport: closedBodyGuard{next: awshttp.NewBuildableClient().GetTransport()}}
}

// fastRetryer is the SDK's standard retryer with 3 attempts, no backoff
// delay and no retry quota, for NewClient and NewSSMClient.
func fastRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.RateLimiter = ratelimit.None
	})
}

// closedBodyGuard hides the request body's WriteTo method from net/http.
//
// smithy-go closes the request body as soon as the response headers
// arrive, and its body type answers WriteTo with io.EOF once closed. When
// the server replies before the transport's write loop has finished (it
// reads the body once more after Content-Length bytes to check for excess
// data), io.Copy reports that io.EOF as a write error and the transport
// closes the connection under the response still being read: the call
// fails with "failed to decode response body ... use of closed network
// connection". Against EC2 the window is never hit; against a loopback
// fake it is, occasionally, and often under the race detector. Through
// Read, a closed body simply ends, which io.Copy treats as success.
type closedBodyGuard struct{ next http.RoundTripper }

func (g closedBodyGuard) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return g.next.RoundTrip(r)
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Body = readOnlyBody{r.Body}
	return g.next.RoundTrip(r2)
}

// readOnlyBody exposes only Read and Close.
type readOnlyBody struct{ io.ReadCloser }
