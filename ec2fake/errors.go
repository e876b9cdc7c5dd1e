package ec2fake

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// EC2 error codes returned by the fake. Callers classify errors the way they
// do with the real service: errors.As(err, &apiErr) with a smithy.APIError,
// then apiErr.ErrorCode().
const (
	CodeInvalidParameterValue       = "InvalidParameterValue"
	CodeInvalidParameterCombination = "InvalidParameterCombination"
	CodeInvalidAMIIDMalformed       = "InvalidAMIID.Malformed"
	CodeInvalidAMIIDNotFound        = "InvalidAMIID.NotFound"
	CodeInvalidUserIDMalformed      = "InvalidUserID.Malformed"
	CodeInvalidInstanceType         = "InvalidInstanceType"
	CodeFilterLimitExceeded         = "FilterLimitExceeded"
	CodeDryRunOperation             = "DryRunOperation"
	CodeRequestLimitExceeded        = "RequestLimitExceeded"
	CodeInvalidAction               = "InvalidAction"
	CodeUnknownParameter            = "UnknownParameter"
	CodeMalformedQueryString        = "MalformedQueryString"
	CodeInternalError               = "InternalError"
	CodeAuthFailure                 = "AuthFailure"
	CodeMissingParameter            = "MissingParameter"

	// CodeUnsupported marks a real EC2 filter or parameter the fake does
	// not implement. EC2 itself would accept the request, so the message
	// says so; this never stands in for "invalid".
	CodeUnsupported = "Unsupported"
)

// ErrNotFound is returned (wrapped) by the mutation methods when the image
// or instance type they name does not exist.
var ErrNotFound = errors.New("ec2fake: not found")

// apiError is an EC2 error before it is dressed for a transport: in-process
// callers get it wrapped like the SDK wraps service errors, HTTP callers get
// EC2's error XML with the same code and message.
type apiError struct {
	code    string
	message string
	status  int
}

func newAPIError(code, format string, args ...any) *apiError {
	return &apiError{code: code, message: fmt.Sprintf(format, args...), status: http.StatusBadRequest}
}

// operationError wraps e the way the SDK wraps a service error, so that
// errors.As finds *smithy.GenericAPIError (as smithy.APIError),
// *awshttp.ResponseError (request ID) and *smithyhttp.ResponseError (HTTP
// status), and err.Error() reads like a real SDK error.
func operationError(op, requestID string, e *apiError) error {
	return &smithy.OperationError{
		ServiceID:     serviceOf(op),
		OperationName: op,
		Err: &awshttp.ResponseError{
			ResponseError: &smithyhttp.ResponseError{
				Response: &smithyhttp.Response{Response: &http.Response{
					StatusCode: e.status,
					Status:     fmt.Sprintf("%d %s", e.status, http.StatusText(e.status)),
					Header:     http.Header{"X-Amzn-Requestid": []string{requestID}},
				}},
				Err: e.sdkError(op),
			},
			RequestID: requestID,
		},
	}
}

// canceledError is what the SDK returns when the caller's context ends
// before the response arrives; errors.Is(err, context.Canceled) holds.
func canceledError(op string, cause error) error {
	return &smithy.OperationError{
		ServiceID:     serviceOf(op),
		OperationName: op,
		Err:           &aws.RequestCanceledError{Err: cause},
	}
}

// Service IDs as the SDK names them in *smithy.OperationError.
const (
	serviceEC2     = "EC2"
	serviceSSM     = "SSM"
	servicePricing = "Pricing"
)

func serviceOf(op string) string {
	switch {
	case slices.Contains(ssmOperations, op):
		return serviceSSM
	case slices.Contains(pricingOperations, op):
		return servicePricing
	}
	return serviceEC2
}

// sdkError is the API error the SDK's deserializer makes of e: for SSM the
// modeled error type where the SDK has one (so that errors.As with
// *ssmtypes.ParameterNotFound works in process as over HTTP), otherwise,
// and always for EC2, a *smithy.GenericAPIError.
func (e *apiError) sdkError(op string) smithy.APIError {
	if serviceOf(op) == servicePricing {
		if err, ok := pricingError(e); ok {
			return err.(smithy.APIError)
		}
	}
	if serviceOf(op) != serviceSSM {
		return &smithy.GenericAPIError{Code: e.code, Message: e.message}
	}
	var msg *string
	if e.message != "" {
		msg = aws.String(e.message)
	}
	switch e.code {
	case CodeParameterNotFound:
		return &ssmtypes.ParameterNotFound{Message: msg}
	case CodeParameterVersionNotFound:
		return &ssmtypes.ParameterVersionNotFound{Message: msg}
	case CodeInvalidNextToken:
		return &ssmtypes.InvalidNextToken{Message: msg}
	case CodeValidationException:
		return &ssmtypes.ValidationException{Message: msg}
	case CodeParameterAlreadyExists:
		return &ssmtypes.ParameterAlreadyExists{Message: msg}
	case CodeHierarchyLevelLimitExceeded:
		return &ssmtypes.HierarchyLevelLimitExceededException{Message: msg}
	case CodeParameterPatternMismatch:
		return &ssmtypes.ParameterPatternMismatchException{Message: msg}
	case CodeInvalidAllowedPattern:
		return &ssmtypes.InvalidAllowedPatternException{Message: msg}
	case CodeInvalidFilterKey:
		// botocore's model gives InvalidFilterKey no message member, so the
		// SDK drops the message the answer carries.
		return &ssmtypes.InvalidFilterKey{}
	case CodeAccessDenied:
		return &ssmtypes.AccessDeniedException{Message: msg}
	case CodeInvalidFilterOption:
		return &ssmtypes.InvalidFilterOption{Message: msg}
	case CodeInvalidFilterValue:
		return &ssmtypes.InvalidFilterValue{Message: msg}
	}
	return &smithy.GenericAPIError{Code: e.code, Message: e.message}
}
