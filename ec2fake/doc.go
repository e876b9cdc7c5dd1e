// Package ec2fake is a fake EC2 and SSM Parameter Store for tests: an
// in-memory [Backend] that answers DescribeImages, DescribeInstanceTypes and
// DisableImage with EC2's own semantics, and GetParameter, GetParameters,
// GetParametersByPath, PutParameter, DeleteParameter, DescribeParameters and
// GetParameterHistory with SSM's, in process (it implements
// ec2.DescribeImagesAPIClient, ec2.DescribeInstanceTypesAPIClient,
// ssm.GetParametersByPathAPIClient, ssm.DescribeParametersAPIClient,
// ssm.GetParameterHistoryAPIClient, and GetParameter and GetParameters
// with *ssm.Client's signatures) and over HTTP, so that a real *ec2.Client
// or *ssm.Client — or boto3 and the AWS CLI — runs against it.
// [DefaultCatalog] supplies realistic data: real EKS AMI names and real
// instance type specifications; [FullCatalog] every recorded EKS AMI
// release for Kubernetes 1.29 to 1.36.
//
// Other fakes match names exactly or give '?' the wrong meaning, ignore
// owners, IncludeDeprecated and pagination, and panic on filters they do
// not know, so a controller that selects a pending AMI or never reads the
// second page passes its tests. This one behaves like EC2 and can be told
// to fail like EC2.
//
// # Use
//
//	b := ec2fake.NewWithCatalog(ec2fake.Options{})     // or New for an empty one
//	out, err := b.DescribeImages(ctx, input)            // in process
//
//	srv := ec2fake.NewServer(b)                          // or over HTTP
//	defer srv.Close()
//	client := ec2fake.NewClient(srv.URL)                 // a real *ec2.Client
//	params := ec2fake.NewSSMClient(srv.URL)              // a real *ssm.Client, same server
//
// Change the data with [Backend.PutImage], [Backend.SetImageState],
// [Backend.DeleteImage], [Backend.PutInstanceType], [Backend.Load],
// [Backend.PutParameter] and [Backend.DeleteParameter]; make
// calls fail with [Backend.InjectFault] or wait with [Backend.SetLatency];
// read what was asked with [Backend.Calls].
//
// # Concurrency and zero values
//
// A Backend is safe for concurrent use: describes run in parallel, mutations
// are serialized, and no lock is held while a call waits out its latency.
// Every Backend is independent (no package state, nothing to reset). The
// zero [Options] means account [DefaultAccountID] and the wall clock; the
// zero Backend is an empty backend with those defaults. Nothing is shared
// with callers: inputs are copied in, outputs are copied out. The package
// starts no goroutines; [NewServer] starts an httptest.Server, which the
// caller closes. No input makes it panic.
//
// # Filter values
//
// Filters are ANDed; the values of one filter are ORed. Each value is a
// pattern matched against the whole field, case-sensitively:
//
//	pattern = { char | "*" | "?" | "\" any-char }
//	"*"      any run of characters, including none
//	"?"      zero or one character (AWS: "database????" means up to four)
//	"\" c    the character c itself: "\*", "\?", "\\"; a final lone "\" is "\"
//
// Booleans read "true" and "false", numbers are decimal ("8192", "2.5"),
// timestamps ISO 8601. An absent field matches no value, not even "*"; a
// filter without values matches nothing. Filter names are case-sensitive;
// an unknown name fails with InvalidParameterValue ("The filter 'x' is
// invalid"), a real EC2 filter the fake does not implement with
// [CodeUnsupported], and more than 50 filters or 200 values per filter with
// FilterLimitExceeded.
//
// DescribeImages implements architecture, block-device-mapping.* (device-name,
// snapshot-id, volume-size, volume-type, encrypted, delete-on-termination),
// boot-mode, creation-date, description, ena-support, free-tier-eligible,
// hypervisor, image-allowed, image-id, image-type, image-watermark.*,
// is-public, kernel-id, manifest-location, name, owner-alias, owner-id,
// platform, product-code, product-code.type, public-ssm-parameter-name,
// ramdisk-id, root-device-name, root-device-type, source-image-id,
// source-image-region, source-instance-id, sriov-net-support, state,
// state-reason-code, state-reason-message, tag:KEY, tag-key, tag-value and
// virtualization-type; instance-type-specification.* and scan-result.* are
// Unsupported. DescribeInstanceTypes implements every filter EC2 documents
// for it (instance-type, processor-info.supported-architecture,
// current-generation, bare-metal, memory-info.size-in-mib, vcpu-info.*,
// network-info.*, ebs-info.*, instance-storage-info.*, supported-*, ...).
//
// # DescribeImages
//
// The caller — [Options.AccountID] — sees public images and its own. Owners
// narrows that to "self", the aliases "amazon", "aws-marketplace" and
// "aws-backup-vault", or 12-digit account IDs (anything else:
// InvalidUserID.Malformed). ExecutableBy "all" keeps public images; other
// ExecutableBy values are Unsupported, as the fake does not model launch
// permissions. An image is deprecated once its DeprecationTime is at or
// before [Options.Now]; deprecated images are left out unless
// IncludeDeprecated is set, the caller owns them, or they were asked for by
// ID. Images in state "disabled" are left out unless IncludeDisabled is set,
// even when asked for by ID. ImageIds must look like the AMI IDs EC2
// issues, "ami-" and 8 or 17 lowercase hex digits (InvalidAMIID.Malformed),
// and exist (InvalidAMIID.NotFound, naming every missing ID); an existing
// image the caller may not see is silently left out. A test may store an
// image under a fixture ID EC2 would not issue ("ami-id-amd64",
// [Backend.PutImage]); ImageIds refuses that ID as EC2 would, and the
// image-id filter, which validates nothing, finds it. DryRun validates the request, then fails with DryRunOperation (HTTP
// 412).
//
// # Pages
//
// Answers are in image ID (instance type name) order. MaxResults must be
// 5-1000 for DescribeImages and 5-100 for DescribeInstanceTypes, otherwise
// InvalidParameterValue with EC2's wording. Without MaxResults,
// DescribeImages answers with every match at once and DescribeInstanceTypes
// with pages of 100. NextToken is opaque: it names the last item returned
// and is bound to the request that produced it (operation, filters, owners,
// IDs, flags — not MaxResults, which may change between pages). A token
// from another request, a damaged or made-up one fails with
// InvalidParameterValue "The NextToken is invalid"; an empty token means the
// first page. Because pages continue after a key rather than at an offset,
// every item present throughout a walk is returned exactly once for any
// MaxResults, even when items are added or deleted between pages, and no
// token can point outside the data. The last page has no NextToken.
//
// # Errors
//
// In process, errors are what the SDK returns for a service error: a
// *smithy.OperationError (service "EC2") wrapping an *awshttp.ResponseError
// with the request ID and HTTP status, wrapping a *smithy.GenericAPIError.
// Classify them as with real EC2:
//
//	var apiErr smithy.APIError
//	if errors.As(err, &apiErr) && apiErr.ErrorCode() == "RequestLimitExceeded" { ... }
//
// Over HTTP the same code and message travel in EC2's error document
// (<Response><Errors><Error><Code>...), so both paths give the same error.
// A call whose context ends while it waits returns the SDK's canceled
// error (errors.Is(err, context.Canceled)). Mutations return ordinary
// errors prefixed "ec2fake: " naming the input and the fix; unknown IDs
// wrap [ErrNotFound].
//
// # Disabled images
//
// A disabled image is private: [Backend.DisableImage] (owner only, else
// AuthFailure) and [Backend.SetImageState] make it so, and
// [Backend.PutImage] and [Backend.Load] refuse an image that is both
// disabled and public — EC2 never holds one, and storing something other
// than what a test put would hide the test's mistake. Only the owner sees a
// disabled image, and only with IncludeDisabled.
//
// # HTTP
//
// [Backend.Handler] reads the form-encoded POST body (or GET query string)
// the SDK sends (Action, Filter.N.Name, Filter.N.Value.M, ImageId.N,
// Owner.N, ExecutableBy.N, InstanceType.N, MaxResults, NextToken, flags),
// rejects unknown parameters with UnknownParameter and unknown actions with
// InvalidAction (every error, including these, carries a request ID), and
// more than 100 InstanceType.N values with InvalidParameterValue, and answers in EC2's XML with the element names of the
// SDK's deserializers (imagesSet, imageState, imageOwnerId, isPublic,
// tagSet, instanceTypeSet, vCpuInfo, ...). Every field of
// ec2types.Image and ec2types.InstanceTypeInfo survives the trip. [NewClient]
// builds an *ec2.Client for the server: anonymous credentials, region
// us-east-1, the standard retryer with 3 attempts, no backoff delay and no
// retry quota, and a transport wrapper that avoids a smithy-go/net/http
// race a fast loopback server exposes (calls failing now and then with
// "use of closed network connection", mostly under -race); prefer it to a
// client you configure yourself.
//
// # SSM parameters
//
// The same [Backend.Handler] serves SSM: a request with an X-Amz-Target
// header is AWS JSON 1.1 ("AmazonSSM.GetParameter", JSON body, JSON answer,
// errors as {"__type": code, "message": ...}); any other request is EC2
// Query. One server therefore backs both [NewClient] and [NewSSMClient].
// Members are matched case-sensitively and unknown ones ignored; a body
// that is not a JSON object is a SerializationException, an unknown target
// an UnknownOperationException.
//
// Public parameters are derived from the images: every public, available
// image with owner alias "amazon" whose name is an EKS AMI name feeds the
// parameters AWS publishes for it —
//
//	/aws/service/eks/optimized-ami/K/amazon-linux-2023/ARCH/VARIANT/recommended{,/image_id,/image_name,/release_version}
//	/aws/service/eks/optimized-ami/K/amazon-linux-2023/ARCH/VARIANT/NAME/image_id
//	/aws/service/eks/optimized-ami/K/amazon-linux-2{,-arm64,-gpu}/... (the same)
//	/aws/service/bottlerocket/aws-k8s-K{,-nvidia,-fips}/{x86_64,arm64}/{latest,X.Y.Z,X.Y.Z-BUILD}/{image_id,image_version}
//	/aws/service/ami-windows-latest/Windows_Server-YEAR-English-{Core,Full}-EKS_Optimized-K/image_id
//
// — so they follow whatever catalog is loaded. recommended and latest name
// the newest release (by the date or version in the name, then creation
// date, then ID); their versions are the releases, oldest first, so
// GetParameterHistory and ":N" selectors reach older ones. The
// "recommended" parent holds {"schema_version":"2","image_id",
// "image_name","release_version"}; release_version ("1.32.3-20250715") is
// published when the image description carries the Kubernetes patch
// version, as amazon-eks-ami's do. Names of no known family, images whose
// architecture contradicts their name, and pending, disabled or private
// images feed nothing. Values are Type String, DataType text,
// LastModifiedDate the image's creation date.
//
// The account's own parameters come from [Backend.PutParameter] (AMI IDs,
// in process) or AmazonSSM.PutParameter over HTTP: String and StringList,
// data types text and aws:ec2:image, tiers, descriptions and allowed
// patterns, with SSM's errors (ParameterAlreadyExists without Overwrite,
// reserved "aws"/"ssm" names, AccessDeniedException under /aws/, more
// than 15 levels, ...); SecureString, KMS keys, policies, labels and tags
// beyond creation are valid in SSM but Unsupported here. SSM keeps the
// newest 100 versions. DeleteParameter, DescribeParameters (Filters or
// ParameterFilters on Name, Path, Type, Tier and DataType) and
// GetParameterHistory work on them; parameters are shared by all regions.
//
// ARNs name the region the caller asked for: over HTTP the region a
// Signature Version 4 request is signed for (boto3, the AWS CLI, a signing
// *ssm.Client), in process the region the ssm.Options functions set,
// otherwise [Options].Region (default us-east-1); cn- and us-gov- regions
// get their partitions. Public parameters' ARNs carry no account.
//
// GetParameter accepts a ":VERSION" selector; a missing parameter is
// *ssmtypes.ParameterNotFound ("Parameter NAME not found."). GetParameters
// takes 1-10 names and lists those not found in InvalidParameters.
// GetParametersByPath lists one level below Path (every level with
// Recursive), in name order, MaxResults 1-10 (default 10) at a time, with
// the same keyset NextToken as the EC2 describes (InvalidNextToken if
// damaged or from another request); /aws/service/... paths list public
// parameters, any other path the account's own, and "/" also those whose
// names have no slash. Bad input is a ValidationException in SSM's
// wording; labels, ARNs and ParameterFilters of GetParametersByPath are
// valid in SSM but Unsupported here. In process, a nil required member
// gives the error *ssm.Client raises before sending.
//
// # Zones, offerings, reservations, subnets and launches
//
// DescribeAvailabilityZones, DescribeInstanceTypeOfferings (by region,
// zone or zone ID), DescribeCapacityReservations and DescribeSubnets
// answer as EC2 does (filters, pages, EC2's errors), and CreateFleet
// launches instant fleets: overrides in priority order, each taking what
// its scripted capacity ([Backend.SetCapacity]: "3 instances, then
// InsufficientInstanceCapacity"), its subnet's free addresses and, for
// reserved launches, its reservations allow; what it cannot launch is a
// per-override error, as EC2 reports it, and whole-call errors and
// throttling come from [Backend.InjectFault]. [NewWithCatalog] loads its
// region's zones and EC2's recorded offerings per zone ([ZoneCatalog]);
// [Backend.LoadZones], [Backend.PutCapacityReservation] and
// [Backend.PutSubnet] set them by hand. boto3 and the AWS CLI read every
// answer.
//
// # Prices
//
// The same [Backend.Handler] serves the Price List Query API: a request
// whose X-Amz-Target starts "AWSPriceListService." is AWS JSON 1.1, so a
// real *pricing.Client ([NewPricingClient]), boto3 and the AWS CLI read
// it. [Backend.GetProducts] lists one product (SKU) per on-demand price
// of the backend's price table ([NewWithCatalog] loads the embedded
// snapshot of internal/pricedata; [Backend.LoadPrices] replaces it), each
// a JSON document in a string as AWS writes it: product{productFamily,
// attributes{instanceType, regionCode, location, operatingSystem,
// licenseModel, tenancy, preInstalledSw NA, capacitystatus Used,
// marketoption OnDemand, usagetype, operation, ...}, sku},
// terms.OnDemand with one hourly dimension priced in USD (CNY in cn-
// regions), publicationDate. There are no Reserved terms: the table has no
// reserved-instance rates. Filters: TERM_MATCH (ignoring case, as both
// Karpenter's "Linux" and amazon-ec2-instance-selector's "linux" rely
// on), EQUALS, CONTAINS, ANY_OF and NONE_OF (exact; ANY_OF and NONE_OF take
// comma-separated values); field names ignore case; a product without the
// field matches no filter on it. Pages are 1-100 (default 100), in SKU
// order, with the same keyset NextToken as the EC2 describes
// (InvalidNextTokenException when damaged or from another request).
// Errors are the pricing SDK's modeled types (NotFoundException for a
// service other than AmazonEC2, InvalidParameterException, ...);
// InjectFault scripts the others (AccessDeniedException, as an SCP gives,
// ThrottlingException). DescribeServices and GetAttributeValues list the
// attributes and their values.
//
// [Backend.DescribeSpotPriceHistory] (EC2 Query, or in process) answers
// from a synthetic, deterministic price walk per zone, instance type and
// product description ("Linux/UNIX" from a region's Linux on-demand price,
// "Windows" from its Windows one), described in spotprice.go: EC2's real
// history is not public. A window returns its changes and the price in
// force at its start, newest first; StartTime now gives one price per
// history, as Karpenter asks; filters availability-zone,
// availability-zone-id, instance-type, product-description, spot-price
// and timestamp take EC2's wildcards. The region is the one the request
// is signed for (the backend's Options.Region when unsigned), and its
// zones are REGIONa-c with IDs such as use1-az1.
//
// # Faults, latency and the call log
//
// [Backend.InjectFault] makes calls fail with an EC2 error: for one
// operation or all, for Times calls or (Times <= 0) until
// [Backend.ClearFaults]. Throttling codes default to HTTP 503, others to
// 400; the SDK retries RequestLimitExceeded by itself, so two throttles
// followed by an answer succeed through [NewClient]. [Backend.SetLatency]
// delays answers and honours the caller's context. [Backend.Calls] lists
// every call in arrival order — in process or over HTTP — with a copy of
// its input and the error it returned.
//
// # The catalog
//
// [DefaultCatalog] decodes two embedded tab-separated files, generated by
// ec2fake/internal/gencatalog (go generate) from recorded upstream data;
// [NewWithCatalog] loads them. [FullCatalog] decodes the full release
// history instead of the default's images (load it with [Backend.Load]).
// catalog/README.md lists the sources, the commits, what is synthetic and
// what each catalog costs to decode.
//
// Instance types (1366): every type in Karpenter v1.14's generated
// instance-types reference (flex, metal, NVIDIA, AMD, Neuron, Qualcomm,
// high-memory u-), with the facts DescribeInstanceTypes reports for them,
// plus dl1.24xlarge (Habana Gaudi) and the two Mac types kept from the
// first-wave catalog. As EC2 reports them: g6f and gr6f have a GPU count
// of 0 with LogicalGpuCount 1 and a GpuPartitionSize (karpenter-provider-aws
// #8368); inf1 has both InferenceAcceleratorInfo and NeuronInfo; t2's
// small sizes support i386 and x86_64; the Mac types report x86_64_mac and
// arm64_mac.
//
// Images (387): for each Kubernetes version EKS supports on 2026-11-22
// (1.31 to 1.36), several real releases of every variant AWS publishes:
// AL2023 (x86_64 standard/nvidia/neuron, arm64 standard/nvidia), AL2 (up
// to 1.32 only), Bottlerocket (standard, nvidia and fips, x86_64 and
// aarch64), Windows Server 2019 and 2022 (and 2025 from 1.35), Core and
// Full. Public images carry owner alias "amazon" and the owner IDs
// [EKSOwnerID], [BottlerocketOwnerID] and [WindowsOwnerID]; within a
// Bottlerocket release the NVIDIA image is a few minutes newer than the
// standard one (karpenter-provider-aws #7925). AMI IDs, creation times,
// Bottlerocket commit suffixes and Windows release dates are synthetic.
// DeprecationTime is unset on public images so results do not change with
// the wall clock.
//
// Full history (4,105 images): every AL2023 and AL2 AMI in amazon-eks-ami's
// changelog for Kubernetes 1.29 to 1.36 (v20240117 to v20260714, the
// abandoned releases left out), Bottlerocket v1.18.0 to v1.61.0 with the
// variants each release carried, the Windows releases the EKS user guide
// lists (Server 2019 and 2022, Core and Full, 1.29 to 1.34, up to
// 2026.01.22; Server 2025 Core for 1.35), and the custom images below.
//
// Custom images, owned by [DefaultAccountID] and private, family
// team-base-al2023-* (tags team=platform, image-family=team-base-al2023):
// [ImageTeamBaseAvailable] (the right choice for x86_64),
// [ImageTeamBaseArm64], [ImageTeamBaseDeprecated] (newer, deprecated
// 2025-06-01), [ImageTeamBasePending] (newest, still "pending": Packer is
// building it, karpenter-provider-aws #7652), [ImageTeamBaseMalformedDate]
// (CreationDate in time.UnixDate form) and [ImageTeamBaseDisabled].
package ec2fake
