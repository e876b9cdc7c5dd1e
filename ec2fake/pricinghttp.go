package ec2fake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/pricing"
	pricingtypes "github.com/aws/aws-sdk-go-v2/service/pricing/types"
)

// The Price List Query API speaks AWS JSON 1.1 like SSM: X-Amz-Target
// "AWSPriceListService.GetProducts", a JSON object in, a JSON object out,
// errors as {"__type": code, "Message": ...} (botocore's pricing model
// spells every error's member Message).
const pricingTargetPrefix = "AWSPriceListService."

// pricingHandlers are the Price List operations served over HTTP, by
// operation name; the members are botocore's pricing request shapes.
var pricingHandlers = map[string]ssmOperation{
	OpGetProducts: jsonOperation(OpGetProducts, []string{"ServiceCode", "Filters", "FormatVersion", "NextToken", "MaxResults"},
		func(b *Backend, in *pricing.GetProductsInput, _ string) (*pricing.GetProductsOutput, *apiError) {
			if in.ServiceCode == nil {
				return nil, newAPIError(CodeInvalidParameterException, "ServiceCode is required.")
			}
			return b.getProducts(in)
		},
		func(o *pricing.GetProductsOutput) any {
			return struct {
				FormatVersion *string
				NextToken     *string `json:",omitempty"`
				PriceList     []string
			}{o.FormatVersion, o.NextToken, o.PriceList}
		}),
	OpDescribeServices: jsonOperation(OpDescribeServices, []string{"ServiceCode", "FormatVersion", "NextToken", "MaxResults"},
		func(b *Backend, in *pricing.DescribeServicesInput, _ string) (*pricing.DescribeServicesOutput, *apiError) {
			return b.describeServices(in)
		},
		func(o *pricing.DescribeServicesOutput) any {
			type service struct {
				ServiceCode    *string
				AttributeNames []string
			}
			s := make([]service, len(o.Services))
			for i, v := range o.Services {
				s[i] = service{v.ServiceCode, v.AttributeNames}
			}
			return struct {
				FormatVersion *string
				Services      []service
			}{o.FormatVersion, s}
		}),
	OpGetAttributeValues: jsonOperation(OpGetAttributeValues, []string{"ServiceCode", "AttributeName", "NextToken", "MaxResults"},
		func(b *Backend, in *pricing.GetAttributeValuesInput, _ string) (*pricing.GetAttributeValuesOutput, *apiError) {
			if in.ServiceCode == nil || in.AttributeName == nil {
				return nil, newAPIError(CodeInvalidParameterException, "ServiceCode and AttributeName are required.")
			}
			return b.getAttributeValues(in)
		},
		func(o *pricing.GetAttributeValuesOutput) any {
			type value struct{ Value *string }
			vs := make([]value, len(o.AttributeValues))
			for i, v := range o.AttributeValues {
				vs[i] = value{v.Value}
			}
			return struct {
				AttributeValues []value
				NextToken       *string `json:",omitempty"`
			}{vs, o.NextToken}
		}),
}

// servePricing answers one Price List request.
func (h *handler) servePricing(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		h.failPricing(w, h.b.nextRequestID(), &apiError{code: codeUnknownOp, message: "Price List requests use POST, not " + r.Method + ".", status: http.StatusMethodNotAllowed})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		h.failPricing(w, h.b.nextRequestID(), newAPIError(codeSerialization, "The request body could not be read: %v", err))
		return
	}
	name := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), pricingTargetPrefix)
	op, ok := pricingHandlers[name]
	if !ok {
		h.failPricing(w, h.b.nextRequestID(), newAPIError(codeUnknownOp, "The operation %q is not known; ec2fake's Price List implements GetProducts, DescribeServices and GetAttributeValues.", name))
		return
	}
	in := op.newInput()
	if aerr := decodeJSONObject(body, in, op.members); aerr != nil {
		h.failPricing(w, h.b.nextRequestID(), aerr)
		return
	}
	out, requestID, aerr, ctxErr := op.run(h.b, r, in, "")
	switch {
	case ctxErr != nil:
		h.failPricing(w, requestID, &apiError{code: CodeInternalErrorException, message: "request canceled: " + ctxErr.Error(), status: http.StatusServiceUnavailable})
	case aerr != nil:
		h.failPricing(w, requestID, aerr)
	default:
		b, _ := json.Marshal(out)
		h.writeSSM(w, requestID, http.StatusOK, b)
	}
}

func (h *handler) failPricing(w http.ResponseWriter, requestID string, e *apiError) {
	body, _ := json.Marshal(map[string]string{"__type": e.code, "Message": e.message})
	h.writeSSM(w, requestID, e.status, body)
}

// pricingError is the modeled error the pricing SDK deserializes e into,
// so errors.As(err, &*pricingtypes.NotFoundException) works in process as
// over HTTP.
func pricingError(e *apiError) (error, bool) {
	msg := aws.String(e.message)
	switch e.code {
	case CodeInvalidParameterException:
		return &pricingtypes.InvalidParameterException{Message: msg}, true
	case CodeNotFoundException:
		return &pricingtypes.NotFoundException{Message: msg}, true
	case CodeInvalidNextTokenException:
		return &pricingtypes.InvalidNextTokenException{Message: msg}, true
	case CodeExpiredNextTokenException:
		return &pricingtypes.ExpiredNextTokenException{Message: msg}, true
	case CodeThrottlingException:
		return &pricingtypes.ThrottlingException{Message: msg}, true
	case CodeInternalErrorException:
		return &pricingtypes.InternalErrorException{Message: msg}, true
	case CodeAccessDeniedException:
		return &pricingtypes.AccessDeniedException{Message: msg}, true
	}
	return nil, false
}

// NewPricingClient returns a real *pricing.Client that talks to the Price
// List endpoint at url (a NewServer URL, the one NewClient uses): region
// us-east-1 (one of the Price List's endpoints), anonymous credentials,
// the same retryer and transport guard as NewClient.
func NewPricingClient(url string) *pricing.Client {
	return pricing.New(pricing.Options{
		HTTPClient:   guardedHTTPClient(),
		Region:       defaultRegion,
		BaseEndpoint: aws.String(url),
		Credentials:  aws.AnonymousCredentials{},
		Retryer:      fastRetryer(),
	})
}
