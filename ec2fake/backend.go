package ec2fake

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/smithy-go"

	"github.com/ec2select/ec2select/internal/pricedata"
)

// DefaultAccountID is the account a Backend acts as when Options.AccountID
// is empty. The catalog's custom AMIs belong to it.
const DefaultAccountID = "111122223333"

// Operation names, as used in Fault.Operation, SetLatency and Call.Operation.
const (
	OpDescribeImages        = "DescribeImages"
	OpDescribeInstanceTypes = "DescribeInstanceTypes"
	OpDisableImage          = "DisableImage"
)

// operations lists every operation a Backend answers, EC2's then SSM's.
var operations = slices.Concat([]string{OpDescribeImages, OpDescribeInstanceTypes, OpDisableImage, OpDescribeSpotPriceHistory}, ssmOperations, placementOperations, pricingOperations)

func checkOperation(op string) error {
	if op == "" || slices.Contains(operations, op) {
		return nil
	}
	return fmt.Errorf("unknown operation %q; use one of %v or \"\" for all", op, operations)
}

// Options configures a Backend. The zero value is valid: an empty backend
// acting as DefaultAccountID with the wall clock.
type Options struct {
	// AccountID is the caller's 12-digit account: the owner that "self"
	// names, that sees its own private and deprecated images, and that
	// PutImage gives to images without an OwnerId. Default DefaultAccountID.
	// It should be 12 digits: PutImage rejects images whose owner is not.
	AccountID string

	// Now is the clock deciding whether an image is deprecated
	// (DeprecationTime <= Now) and stamping parameters put. Default
	// time.Now. Latency always uses real time, because it waits for the
	// caller's context.
	Now func() time.Time

	// Region is the region SSM answers for when the caller does not say:
	// in process without an ssm.Options Region, over HTTP without a
	// Signature Version 4 Authorization header (NewSSMClient's anonymous
	// requests). It shows in parameter ARNs. Default (and for anything that
	// is not a region name such as "us-west-2") us-east-1.
	Region string
}

// Backend is an in-memory EC2 that answers DescribeImages,
// DescribeInstanceTypes and DisableImage with EC2's semantics, and the SSM
// Parameter Store reads with SSM's. It is safe for concurrent use;
// describes run in parallel, mutations are serialized. Every Backend is
// independent: there is no package state and nothing to reset between tests.
// The zero Backend is an empty one with the default Options; a Backend must
// not be copied after first use.
type Backend struct {
	account string
	now     func() time.Time

	mu      sync.RWMutex
	images  map[string]*storedImage // by image ID
	sorted  []*storedImage          // by image ID; the order pages follow
	types   map[string]*ec2types.InstanceTypeInfo
	typeIDs []string // sorted instance type names

	regionName string

	params     map[string]*customParameter // the account's parameters, by name
	paramNames []string                    // their names, sorted
	paramIndex *publicIndex                // nil: rebuild on the next SSM call

	place placeState // zones, offerings, reservations, subnets, launches

	prices   *pricedata.Table // on-demand and spot prices (pricing.go)
	priceIdx *priceIndex      // nil: rebuild on the next Price List call

	ctl       sync.Mutex // faults, latency, call log, request IDs
	faults    []*faultState
	latency   map[string]time.Duration
	calls     []Call
	requestNo uint64
}

type storedImage struct {
	img           ec2types.Image
	deprecatesAt  time.Time
	hasDeprecated bool

	// What the name says about public parameters, parsed on the first
	// parameter index build that sees this image (under b.mu for writing).
	params         amiParameters
	releaseVersion string
	published      []publishedName
	paramsOK       bool
	paramsParsed   bool
}

func (s *storedImage) deprecated(now time.Time) bool {
	return s.hasDeprecated && !s.deprecatesAt.After(now)
}

var accountIDPattern = regexp.MustCompile(`^[0-9]{12}$`)

// New returns an empty Backend configured by opts.
func New(opts Options) *Backend {
	b := &Backend{account: opts.AccountID, now: opts.Now}
	if regionPattern.MatchString(opts.Region) {
		b.regionName = opts.Region
	}
	return b
}

func (b *Backend) accountID() string {
	if b.account == "" {
		return DefaultAccountID
	}
	return b.account
}

func (b *Backend) clock() time.Time {
	if b.now == nil {
		return time.Now()
	}
	return b.now()
}

// initLocked makes the maps of a zero Backend; b.mu must be held for writing.
func (b *Backend) initLocked() {
	if b.images == nil {
		b.images = map[string]*storedImage{}
		b.types = map[string]*ec2types.InstanceTypeInfo{}
	}
}

// NewWithCatalog returns a Backend loaded with DefaultCatalog and the
// ZoneCatalog of its region (Options.Region, default us-east-1), if the
// zone catalog has that region.
func NewWithCatalog(opts Options) *Backend {
	b := New(opts)
	images, types := DefaultCatalog()
	if err := b.Load(images, types); err != nil {
		// The catalog is embedded and checked by TestCatalogLoads.
		panic(fmt.Sprintf("ec2fake: embedded catalog does not load: %v", err))
	}
	b.loadZoneCatalog()
	b.loadEmbeddedPrices()
	return b
}

// AccountID returns the account the backend acts as.
func (b *Backend) AccountID() string { return b.accountID() }

var (
	_ ec2.DescribeImagesAPIClient        = (*Backend)(nil)
	_ ec2.DescribeInstanceTypesAPIClient = (*Backend)(nil)
)

// Load adds or replaces images and instance types in one step. Every item is
// validated first; if any is invalid nothing is changed and the error names
// the item and the problem.
func (b *Backend) Load(images []ec2types.Image, types []ec2types.InstanceTypeInfo) error {
	stored := make([]*storedImage, 0, len(images))
	for i := range images {
		s, err := b.prepareImage(images[i])
		if err != nil {
			return fmt.Errorf("ec2fake: images[%d]: %w", i, err)
		}
		stored = append(stored, s)
	}
	infos := make([]*ec2types.InstanceTypeInfo, 0, len(types))
	for i := range types {
		info, err := prepareInstanceType(types[i])
		if err != nil {
			return fmt.Errorf("ec2fake: instanceTypes[%d]: %w", i, err)
		}
		infos = append(infos, info)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.initLocked()
	for _, s := range stored {
		b.images[*s.img.ImageId] = s
	}
	b.sorted = b.sorted[:0]
	for _, s := range b.images {
		b.sorted = append(b.sorted, s)
	}
	slices.SortFunc(b.sorted, func(x, y *storedImage) int { return strings.Compare(*x.img.ImageId, *y.img.ImageId) })
	b.paramIndex = nil
	for _, info := range infos {
		name := string(info.InstanceType)
		if _, ok := b.types[name]; !ok {
			b.typeIDs = append(b.typeIDs, name)
		}
		b.types[name] = info
	}
	slices.Sort(b.typeIDs)
	return nil
}

// PutImage adds img, or replaces the image with the same ImageId. ImageId
// is "ami-" followed by letters, digits or hyphens: EC2's own IDs ("ami-"
// and 8 or 17 lowercase hex digits) and the fixture IDs test suites use,
// such as Karpenter's "ami-id-amd64". Queries stay as strict as EC2's: an
// image stored under an ID EC2 would not issue is found through the
// image-id filter (how Karpenter and amiselect look IDs up), while
// DescribeImages ImageIds and DisableImage refuse that ID with
// InvalidAMIID.Malformed, as EC2 refuses it. An empty State
// becomes "available" and an empty OwnerId the backend's account. State,
// Architecture, OwnerId and DeprecationTime are validated; CreationDate is
// stored as given, so tests can reproduce malformed dates.
func (b *Backend) PutImage(img ec2types.Image) error {
	s, err := b.prepareImage(img)
	if err != nil {
		return fmt.Errorf("ec2fake: PutImage: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.initLocked()
	id := *s.img.ImageId
	if _, exists := b.images[id]; !exists {
		i, _ := slices.BinarySearchFunc(b.sorted, id, func(e *storedImage, id string) int { return strings.Compare(*e.img.ImageId, id) })
		b.sorted = slices.Insert(b.sorted, i, s)
	} else {
		i, _ := slices.BinarySearchFunc(b.sorted, id, func(e *storedImage, id string) int { return strings.Compare(*e.img.ImageId, id) })
		b.sorted[i] = s
	}
	b.images[id] = s
	b.paramIndex = nil
	return nil
}

// SetImageState changes the state of an existing image, e.g. to move an
// image from "pending" to "available" as a Packer build finishes. Moving an
// image to "disabled" also makes it private, as DisableImage does, and
// leaving "disabled" does not make it public again (EC2's EnableImage does
// not restore launch permissions). Unlike DisableImage it does not check
// the owner: it stands for changes EC2 makes itself.
func (b *Backend) SetImageState(imageID string, state ec2types.ImageState) error {
	if !slices.Contains(state.Values(), state) {
		return fmt.Errorf("ec2fake: SetImageState(%q): state %q is not an EC2 image state; use one of %v", imageID, state, state.Values())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.images[imageID]
	if !ok {
		return fmt.Errorf("ec2fake: SetImageState(%q): image %w", imageID, ErrNotFound)
	}
	// Replace rather than mutate: describes hand out copies, but a stored
	// value is never changed in place.
	next := *s
	next.img = clone(s.img)
	next.img.State = state
	if state == ec2types.ImageStateDisabled {
		next.img.Public = aws.Bool(false)
	}
	b.replaceImage(&next)
	return nil
}

// DeleteImage removes an image; later describes by its ID fail with
// InvalidAMIID.NotFound, as for a deregistered AMI.
func (b *Backend) DeleteImage(imageID string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.images[imageID]; !ok {
		return fmt.Errorf("ec2fake: DeleteImage(%q): image %w", imageID, ErrNotFound)
	}
	delete(b.images, imageID)
	i, _ := slices.BinarySearchFunc(b.sorted, imageID, func(e *storedImage, id string) int { return strings.Compare(*e.img.ImageId, id) })
	b.sorted = slices.Delete(b.sorted, i, i+1)
	b.paramIndex = nil
	return nil
}

func (b *Backend) replaceImage(s *storedImage) {
	id := *s.img.ImageId
	b.images[id] = s
	i, _ := slices.BinarySearchFunc(b.sorted, id, func(e *storedImage, id string) int { return strings.Compare(*e.img.ImageId, id) })
	b.sorted[i] = s
	b.paramIndex = nil
}

// Image returns a copy of the stored image, whatever its visibility.
func (b *Backend) Image(imageID string) (ec2types.Image, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	s, ok := b.images[imageID]
	if !ok {
		return ec2types.Image{}, false
	}
	return clone(s.img), true
}

// PutInstanceType adds info, or replaces the instance type with the same
// name. InstanceType must look like "family.size"; architectures and usage
// classes must be EC2 enum values; counts must not be negative.
func (b *Backend) PutInstanceType(info ec2types.InstanceTypeInfo) error {
	p, err := prepareInstanceType(info)
	if err != nil {
		return fmt.Errorf("ec2fake: PutInstanceType: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.initLocked()
	name := string(p.InstanceType)
	if _, ok := b.types[name]; !ok {
		i, _ := slices.BinarySearch(b.typeIDs, name)
		b.typeIDs = slices.Insert(b.typeIDs, i, name)
	}
	b.types[name] = p
	return nil
}

var (
	// amiIDPattern is an AMI ID as EC2 issues them: "ami-" and 8 or 17
	// lowercase hex digits (17 since EC2's longer resource IDs). Requests
	// are checked against it, as EC2 checks an ID's form before looking it
	// up (InvalidAMIID.Malformed before InvalidAMIID.NotFound):
	// DescribeImages ImageIds, DisableImage, SSM's aws:ec2:image data type.
	amiIDPattern = regexp.MustCompile(`^ami-([0-9a-f]{8}|[0-9a-f]{17})$`)
	// fixtureAMIIDPattern is what the mutation API stores: amiIDPattern's
	// IDs and the ones test suites write, such as karpenter-provider-aws's
	// "ami-id-amd64" (pkg/providers/amifamily/suite_test.go:77-80 at
	// v1.14.1) and its fake SSM's "ami-" + 16 mixed-case alphanumerics
	// (pkg/fake/ssmapi.go:70). Letters, digits and hyphens only: an ID with
	// a filter wildcard ("*", "?", "\\") or white space would not match
	// itself as an image-id filter value.
	fixtureAMIIDPattern = regexp.MustCompile(`^ami-[0-9A-Za-z-]+$`)
	instanceTypePattern = regexp.MustCompile(`^[a-z][a-z0-9-]*\.[a-z0-9-]+$`)
)

func (b *Backend) prepareImage(img ec2types.Image) (*storedImage, error) {
	img = clone(img)
	if img.ImageId == nil || !fixtureAMIIDPattern.MatchString(*img.ImageId) {
		return nil, fmt.Errorf("image ID %s is not an AMI ID; use \"ami-\" followed by letters, digits or hyphens, such as \"ami-0123456789abcdef0\" or \"ami-id-amd64\"", quotePtr(img.ImageId))
	}
	id := *img.ImageId
	if img.State == "" {
		img.State = ec2types.ImageStateAvailable
	}
	if !slices.Contains(img.State.Values(), img.State) {
		return nil, fmt.Errorf("image %s: state %q is not an EC2 image state; use one of %v", id, img.State, img.State.Values())
	}
	// EC2 cannot hold such an image: DisableImage makes an AMI private and
	// a disabled AMI cannot be shared. Refused rather than made private,
	// because a backend that silently stored something other than what the
	// test put would answer differently from what the test reads.
	if img.State == ec2types.ImageStateDisabled && img.Public != nil && *img.Public {
		return nil, fmt.Errorf("image %s is disabled and public, which EC2 never holds (DisableImage makes an AMI private); set Public to false or State to available", id)
	}
	if img.Architecture != "" && !slices.Contains(img.Architecture.Values(), img.Architecture) {
		return nil, fmt.Errorf("image %s: architecture %q is not an EC2 architecture; use one of %v", id, img.Architecture, img.Architecture.Values())
	}
	if img.OwnerId == nil || *img.OwnerId == "" {
		owner := b.accountID()
		img.OwnerId = &owner
	}
	if !accountIDPattern.MatchString(*img.OwnerId) {
		return nil, fmt.Errorf("image %s: owner ID %q is not a 12-digit account ID", id, *img.OwnerId)
	}
	for i, t := range img.Tags {
		if t.Key == nil || *t.Key == "" {
			return nil, fmt.Errorf("image %s: tag %d has an empty key", id, i)
		}
	}
	s := &storedImage{img: img}
	if img.DeprecationTime != nil {
		t, err := time.Parse(time.RFC3339, *img.DeprecationTime)
		if err != nil {
			return nil, fmt.Errorf("image %s: deprecation time %q is not RFC 3339 (e.g. 2025-06-01T00:00:00.000Z): %w", id, *img.DeprecationTime, err)
		}
		s.deprecatesAt, s.hasDeprecated = t, true
	}
	return s, nil
}

func prepareInstanceType(info ec2types.InstanceTypeInfo) (*ec2types.InstanceTypeInfo, error) {
	info = clone(info)
	name := string(info.InstanceType)
	if !instanceTypePattern.MatchString(name) {
		return nil, fmt.Errorf("instance type %q is not of the form family.size (e.g. m5.large)", name)
	}
	if p := info.ProcessorInfo; p != nil {
		for _, a := range p.SupportedArchitectures {
			if !slices.Contains(a.Values(), a) {
				return nil, fmt.Errorf("instance type %s: architecture %q is not an EC2 architecture; use one of %v", name, a, a.Values())
			}
		}
	}
	for _, u := range info.SupportedUsageClasses {
		if !slices.Contains(u.Values(), u) {
			return nil, fmt.Errorf("instance type %s: usage class %q is not an EC2 usage class; use one of %v", name, u, u.Values())
		}
	}
	if v := info.VCpuInfo; v != nil && v.DefaultVCpus != nil && *v.DefaultVCpus < 0 {
		return nil, fmt.Errorf("instance type %s: negative vCPU count %d", name, *v.DefaultVCpus)
	}
	if m := info.MemoryInfo; m != nil && m.SizeInMiB != nil && *m.SizeInMiB < 0 {
		return nil, fmt.Errorf("instance type %s: negative memory %d MiB", name, *m.SizeInMiB)
	}
	if g := info.GpuInfo; g != nil {
		for _, d := range g.Gpus {
			if d.Count != nil && *d.Count < 0 {
				return nil, fmt.Errorf("instance type %s: negative GPU count %d", name, *d.Count)
			}
		}
	}
	return &info, nil
}

func quotePtr(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q", *s)
}

// Fault makes operations fail with an EC2 error instead of answering.
type Fault struct {
	// Operation is one of the Op* constants; empty means every operation.
	Operation string
	// Code is the EC2 error code, e.g. CodeRequestLimitExceeded.
	Code string
	// Message is the error message; empty means a generic one naming the
	// code.
	Message string
	// HTTPStatus is the status of the error response. Zero means what the
	// service uses: for EC2 operations 503 for throttling codes
	// (RequestLimitExceeded, Throttling, ThrottlingException) and 400
	// otherwise; for SSM operations 400 (SSM's common errors list
	// ThrottlingException as 400).
	HTTPStatus int
	// Times is how many calls fail. Times <= 0 fails every call until
	// ClearFaults.
	Times int
}

type faultState struct {
	Fault
	left int // remaining failures; -1 = until cleared
}

// InjectFault queues f. Faults are consulted in the order they were
// injected; the first one that applies to an operation and still has
// failures left is used (and counted down). It returns an error, and
// queues nothing, when the fault is malformed.
func (b *Backend) InjectFault(f Fault) error {
	if f.Code == "" {
		return fmt.Errorf("ec2fake: InjectFault: empty error code; set Fault.Code, e.g. %q", CodeRequestLimitExceeded)
	}
	if err := checkOperation(f.Operation); err != nil {
		return fmt.Errorf("ec2fake: InjectFault: %w", err)
	}
	if f.HTTPStatus != 0 && (f.HTTPStatus < 400 || f.HTTPStatus > 599) {
		return fmt.Errorf("ec2fake: InjectFault: HTTP status %d is not an error status; use 400-599 or 0 for the default", f.HTTPStatus)
	}
	left := f.Times
	if left <= 0 {
		left = -1
	}
	b.ctl.Lock()
	defer b.ctl.Unlock()
	b.faults = append(b.faults, &faultState{Fault: f, left: left})
	return nil
}

// ClearFaults removes every queued fault.
func (b *Backend) ClearFaults() {
	b.ctl.Lock()
	defer b.ctl.Unlock()
	b.faults = nil
}

// SetLatency delays every call of operation ("" for all operations) by d
// before it is answered. The wait ends early, with the SDK's canceled
// error, when the caller's context ends; no lock is held while waiting.
// d = 0 removes the delay.
func (b *Backend) SetLatency(operation string, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("ec2fake: SetLatency(%q, %v): negative latency", operation, d)
	}
	if err := checkOperation(operation); err != nil {
		return fmt.Errorf("ec2fake: SetLatency: %w", err)
	}
	b.ctl.Lock()
	defer b.ctl.Unlock()
	if d == 0 {
		delete(b.latency, operation)
	} else {
		if b.latency == nil {
			b.latency = map[string]time.Duration{}
		}
		b.latency[operation] = d
	}
	return nil
}

// Call is one entry of the call log.
type Call struct {
	// Operation is one of the Op* constants.
	Operation string
	// Input is a deep copy of the request (never nil): the operation's
	// input type, e.g. *ec2.DescribeImagesInput or *ssm.GetParameterInput.
	Input any
	// Err is the error the call returned, nil on success.
	Err error
}

// Calls returns the calls made so far, in the order they arrived, whether
// in-process or over HTTP. Requests that never reach an operation (an
// unknown Action, an unparsable body) are not logged.
func (b *Backend) Calls() []Call {
	b.ctl.Lock()
	defer b.ctl.Unlock()
	out := make([]Call, len(b.calls))
	for i, c := range b.calls {
		out[i] = Call{Operation: c.Operation, Input: cloneAny(c.Input), Err: c.Err}
	}
	return out
}

func cloneAny(v any) any {
	switch in := v.(type) {
	case *ec2.DescribeImagesInput:
		c := clone(*in)
		return &c
	case *ec2.DescribeInstanceTypesInput:
		c := clone(*in)
		return &c
	case *ec2.DisableImageInput:
		c := clone(*in)
		return &c
	case *ssm.GetParameterInput:
		c := clone(*in)
		return &c
	case *ssm.GetParametersInput:
		c := clone(*in)
		return &c
	case *ssm.GetParametersByPathInput:
		c := clone(*in)
		return &c
	}
	if c, ok := clonePriceInput(v); ok {
		return c
	}
	return clonePlacementInput(v)
}

func isThrottlingCode(code string) bool {
	switch code {
	case CodeRequestLimitExceeded, "Throttling", "ThrottlingException", "EC2ThrottledException":
		return true
	}
	return false
}

// begin logs the call, takes a request ID and picks the latency and any
// fault, all under the control lock, which is released before waiting.
func (b *Backend) begin(op string, input any) (callIndex int, requestID string, wait time.Duration, fault *apiError) {
	b.ctl.Lock()
	defer b.ctl.Unlock()
	requestID = b.nextRequestIDLocked()
	b.calls = append(b.calls, Call{Operation: op, Input: cloneAny(input)})
	callIndex = len(b.calls) - 1
	wait = b.latency[""] + b.latency[op]
	for i, f := range b.faults {
		if f.Operation != "" && f.Operation != op {
			continue
		}
		status := f.HTTPStatus
		if status == 0 {
			status = 400
			if isThrottlingCode(f.Code) && serviceOf(op) == serviceEC2 {
				status = 503
			}
		}
		msg := f.Message
		if msg == "" {
			msg = fmt.Sprintf("ec2fake: injected fault %s", f.Code)
		}
		fault = &apiError{code: f.Code, message: msg, status: status}
		if f.left > 0 {
			f.left--
			if f.left == 0 {
				b.faults = slices.Delete(b.faults, i, i+1)
			}
		}
		break
	}
	return callIndex, requestID, wait, fault
}

// nextRequestID takes a request ID for an answer that never reaches an
// operation (a request the handler cannot parse): every EC2 and SSM answer
// carries one.
func (b *Backend) nextRequestID() string {
	b.ctl.Lock()
	defer b.ctl.Unlock()
	return b.nextRequestIDLocked()
}

func (b *Backend) nextRequestIDLocked() string {
	b.requestNo++
	return fmt.Sprintf("00000000-0000-4000-8000-%012d", b.requestNo%1_000_000_000_000)
}

func (b *Backend) finish(callIndex int, err error) {
	b.ctl.Lock()
	defer b.ctl.Unlock()
	if callIndex < len(b.calls) {
		b.calls[callIndex].Err = err
	}
}

// invoke runs one operation for an in-process or HTTP caller. It returns
// either the output or an EC2 error (or, when ctx ends first, ctxErr).
func invoke[I, O any](ctx context.Context, b *Backend, op string, in *I, run func(*I) (*O, *apiError)) (out *O, requestID string, aerr *apiError, ctxErr error) {
	if in == nil {
		in = new(I)
	}
	idx, requestID, wait, fault := b.begin(op, in)
	defer func() {
		switch {
		case ctxErr != nil:
			b.finish(idx, canceledError(op, ctxErr))
		case aerr != nil:
			b.finish(idx, operationError(op, requestID, aerr))
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, requestID, nil, err
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, requestID, nil, ctx.Err()
		case <-t.C:
		}
	}
	if fault != nil {
		return nil, requestID, fault, nil
	}
	out, aerr = run(in)
	return out, requestID, aerr, nil
}

func result[O any](op string, out *O, requestID string, aerr *apiError, ctxErr error) (*O, error) {
	switch {
	case ctxErr != nil:
		return nil, canceledError(op, ctxErr)
	case aerr != nil:
		return nil, operationError(op, requestID, aerr)
	}
	return out, nil
}

// DescribeImages implements ec2.DescribeImagesAPIClient. Errors look like the
// SDK's: errors.As(err, &apiErr) with a smithy.APIError yields the EC2 code.
// The option functions are accepted and ignored.
func (b *Backend) DescribeImages(ctx context.Context, in *ec2.DescribeImagesInput, _ ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeImages, in, b.describeImages)
	return result(OpDescribeImages, out, requestID, aerr, ctxErr)
}

// DescribeInstanceTypes implements ec2.DescribeInstanceTypesAPIClient; see
// DescribeImages for errors and options.
func (b *Backend) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDescribeInstanceTypes, in, b.describeInstanceTypes)
	return result(OpDescribeInstanceTypes, out, requestID, aerr, ctxErr)
}

// DisableImage implements the EC2 operation: it sets the image's state to
// "disabled" and makes it private. Only the owner may disable an image
// (AuthFailure otherwise); an image the caller cannot see is
// InvalidAMIID.NotFound. Disabling a disabled image succeeds again.
func (b *Backend) DisableImage(ctx context.Context, in *ec2.DisableImageInput, _ ...func(*ec2.Options)) (*ec2.DisableImageOutput, error) {
	if in != nil && in.ImageId == nil {
		ip := smithy.InvalidParamsError{Context: "DisableImageInput"}
		ip.Add(smithy.NewErrParamRequired("ImageId"))
		return nil, &smithy.OperationError{ServiceID: serviceEC2, OperationName: OpDisableImage, Err: ip}
	}
	out, requestID, aerr, ctxErr := invoke(ctx, b, OpDisableImage, in, b.disableImage)
	return result(OpDisableImage, out, requestID, aerr, ctxErr)
}

func (b *Backend) disableImage(in *ec2.DisableImageInput) (*ec2.DisableImageOutput, *apiError) {
	id := aws.ToString(in.ImageId)
	if !amiIDPattern.MatchString(id) {
		return nil, newAPIError(CodeInvalidAMIIDMalformed, "Invalid id: \"%s\" (expecting \"ami-...\")", id)
	}
	account := b.accountID()
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.images[id]
	if !ok || (ownerOf(&s.img) != account && !aws.ToBool(s.img.Public)) {
		return nil, notFoundImages([]string{id})
	}
	if ownerOf(&s.img) != account {
		return nil, &apiError{code: CodeAuthFailure, message: fmt.Sprintf("Not authorized for image:%s", id), status: http.StatusBadRequest}
	}
	if aws.ToBool(in.DryRun) {
		return nil, &apiError{code: CodeDryRunOperation, message: dryRunMessage, status: http.StatusPreconditionFailed}
	}
	next := *s
	next.img = clone(s.img)
	next.img.State = ec2types.ImageStateDisabled
	next.img.Public = aws.Bool(false)
	b.replaceImage(&next)
	return &ec2.DisableImageOutput{Return: aws.Bool(true)}, nil
}
