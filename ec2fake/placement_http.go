package ec2fake

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// servePlacement answers the placement operations over the EC2 Query
// protocol; it reports false for any other action.
func (h *handler) servePlacement(w http.ResponseWriter, r *http.Request, action string, form url.Values) bool {
	switch action {
	case OpDescribeAvailabilityZones:
		serveQuery(h, w, r, action, form, parseDescribeAvailabilityZones, h.b.describeAvailabilityZones, func(id string, o *ec2.DescribeAvailabilityZonesOutput) []byte {
			return listResponse(h.enc, "DescribeAvailabilityZonesResponse", "availabilityZoneInfo", id, o.AvailabilityZones, nil)
		})
	case OpDescribeInstanceTypeOfferings:
		serveQuery(h, w, r, action, form, parseDescribeInstanceTypeOfferings, h.b.describeInstanceTypeOfferings, func(id string, o *ec2.DescribeInstanceTypeOfferingsOutput) []byte {
			return listResponse(h.enc, "DescribeInstanceTypeOfferingsResponse", "instanceTypeOfferingSet", id, o.InstanceTypeOfferings, o.NextToken)
		})
	case OpDescribeCapacityReservations:
		serveQuery(h, w, r, action, form, parseDescribeCapacityReservations, h.b.describeCapacityReservations, func(id string, o *ec2.DescribeCapacityReservationsOutput) []byte {
			return listResponse(h.enc, "DescribeCapacityReservationsResponse", "capacityReservationSet", id, o.CapacityReservations, o.NextToken)
		})
	case OpDescribeSubnets:
		serveQuery(h, w, r, action, form, parseDescribeSubnets, h.b.describeSubnets, func(id string, o *ec2.DescribeSubnetsOutput) []byte {
			return listResponse(h.enc, "DescribeSubnetsResponse", "subnetSet", id, o.Subnets, o.NextToken)
		})
	case OpCreateFleet:
		serveQuery(h, w, r, action, form, parseCreateFleet, h.b.createFleet, h.enc.createFleetResponse)
	default:
		return false
	}
	return true
}

// serveQuery parses, runs and answers one operation.
func serveQuery[I, O any](h *handler, w http.ResponseWriter, r *http.Request, op string, form url.Values,
	parse func(*formNode) (*I, *apiError), run func(*I) (*O, *apiError), write func(string, *O) []byte) {
	root := newFormTree(form)
	in, aerr := parse(root)
	if aerr == nil {
		aerr = root.unused()
	}
	if aerr != nil {
		h.fail(w, h.b.nextRequestID(), aerr)
		return
	}
	out, requestID, aerr, ctxErr := invoke(r.Context(), h.b, op, in, run)
	if h.failed(w, requestID, aerr, ctxErr) {
		return
	}
	h.write(w, requestID, http.StatusOK, write(requestID, out))
}

// formNode is a request's parameters as a tree: "A.1.B" is the child B of
// the first entry of the list A. Each node remembers whether the parser
// read it, so that a parameter no parser reads is refused, as EC2 refuses
// parameters it does not know.
type formNode struct {
	path     string
	value    *string
	children map[string]*formNode
	read     bool
}

func newFormTree(form url.Values) *formNode {
	root := &formNode{read: true}
	for key, values := range form {
		if isProtocolParam(key) || len(values) == 0 {
			continue
		}
		n := root
		for _, part := range strings.Split(key, ".") {
			if n.children == nil {
				n.children = map[string]*formNode{}
			}
			c := n.children[part]
			if c == nil {
				c = &formNode{path: strings.TrimPrefix(n.path+"."+part, ".")}
				n.children[part] = c
			}
			n = c
		}
		v := values[0]
		n.value = &v
	}
	return root
}

// child returns the named child (nil when absent) and marks it read.
func (n *formNode) child(name string) *formNode {
	if n == nil {
		return nil
	}
	c := n.children[name]
	if c != nil {
		c.read = true
	}
	return c
}

func (n *formNode) str(name string) *string {
	if c := n.child(name); c != nil {
		return c.value
	}
	return nil
}

// list returns the entries of the list name in index order; an entry
// that is no index (A.x, A.0, A.01) is an unknown parameter.
func (n *formNode) list(name string) ([]*formNode, *apiError) {
	c := n.child(name)
	if c == nil {
		return nil, nil
	}
	type entry struct {
		i int
		n *formNode
	}
	var entries []entry
	for k, e := range c.children {
		i, ok := index(k)
		if !ok {
			return nil, unknownParam(e.path)
		}
		e.read = true
		entries = append(entries, entry{i, e})
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.i - b.i })
	out := make([]*formNode, len(entries))
	for k, e := range entries {
		out[k] = e.n
	}
	return out, nil
}

// strs reads a list of plain values (Name.1, Name.2, ...).
func (n *formNode) strs(name string) ([]string, *apiError) {
	entries, aerr := n.list(name)
	var out []string
	for _, e := range entries {
		if e.value != nil {
			out = append(out, *e.value)
		}
	}
	return out, aerr
}

func (n *formNode) boolean(name string) (*bool, *apiError) {
	v := n.str(name)
	if v == nil {
		return nil, nil
	}
	switch strings.ToLower(*v) {
	case "true":
		return aws.Bool(true), nil
	case "false":
		return aws.Bool(false), nil
	}
	return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter %s is invalid. Expected a boolean (true or false).", *v, n.child(name).path)
}

func (n *formNode) int32(name string) (*int32, *apiError) {
	v := n.str(name)
	if v == nil {
		return nil, nil
	}
	i, err := strconv.ParseInt(*v, 10, 32)
	if err != nil {
		return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter %s is invalid. Expected an integer.", *v, n.child(name).path)
	}
	return aws.Int32(int32(i)), nil
}

func (n *formNode) float64(name string) (*float64, *apiError) {
	v := n.str(name)
	if v == nil {
		return nil, nil
	}
	f, err := strconv.ParseFloat(*v, 64)
	if err != nil {
		return nil, newAPIError(CodeInvalidParameterValue, "Value (%s) for parameter %s is invalid. Expected a number.", *v, n.child(name).path)
	}
	return aws.Float64(f), nil
}

// filters reads Filter.N.Name and Filter.N.Value.M.
func (n *formNode) filters() ([]ec2types.Filter, *apiError) {
	entries, aerr := n.list("Filter")
	if aerr != nil {
		return nil, aerr
	}
	var out []ec2types.Filter
	for _, e := range entries {
		values, aerr := e.strs("Value")
		if aerr != nil {
			return nil, aerr
		}
		out = append(out, ec2types.Filter{Name: e.str("Name"), Values: values})
	}
	return out, nil
}

// unused reports the first parameter, in sorted order, that no parser read.
func (n *formNode) unused() *apiError {
	for _, k := range slices.Sorted(maps.Keys(n.children)) {
		c := n.children[k]
		if !c.read {
			return unknownParam(c.path)
		}
		if aerr := c.unused(); aerr != nil {
			return aerr
		}
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...*apiError) *apiError {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func parseDescribeAvailabilityZones(n *formNode) (*ec2.DescribeAvailabilityZonesInput, *apiError) {
	in := &ec2.DescribeAvailabilityZonesInput{}
	var e1, e2, e3, e4, e5 *apiError
	in.Filters, e1 = n.filters()
	in.ZoneNames, e2 = n.strs("ZoneName")
	in.ZoneIds, e3 = n.strs("ZoneId")
	in.AllAvailabilityZones, e4 = n.boolean("AllAvailabilityZones")
	in.DryRun, e5 = n.boolean("DryRun")
	return in, firstErr(e1, e2, e3, e4, e5)
}

func parseDescribeInstanceTypeOfferings(n *formNode) (*ec2.DescribeInstanceTypeOfferingsInput, *apiError) {
	in := &ec2.DescribeInstanceTypeOfferingsInput{NextToken: n.str("NextToken")}
	if v := n.str("LocationType"); v != nil {
		in.LocationType = ec2types.LocationType(*v)
	}
	var e1, e2, e3 *apiError
	in.Filters, e1 = n.filters()
	in.MaxResults, e2 = n.int32("MaxResults")
	in.DryRun, e3 = n.boolean("DryRun")
	return in, firstErr(e1, e2, e3)
}

func parseDescribeCapacityReservations(n *formNode) (*ec2.DescribeCapacityReservationsInput, *apiError) {
	in := &ec2.DescribeCapacityReservationsInput{NextToken: n.str("NextToken")}
	var e1, e2, e3, e4 *apiError
	in.Filters, e1 = n.filters()
	in.CapacityReservationIds, e2 = n.strs("CapacityReservationId")
	in.MaxResults, e3 = n.int32("MaxResults")
	in.DryRun, e4 = n.boolean("DryRun")
	return in, firstErr(e1, e2, e3, e4)
}

func parseDescribeSubnets(n *formNode) (*ec2.DescribeSubnetsInput, *apiError) {
	in := &ec2.DescribeSubnetsInput{NextToken: n.str("NextToken")}
	var e1, e2, e3, e4 *apiError
	in.Filters, e1 = n.filters()
	in.SubnetIds, e2 = n.strs("SubnetId")
	in.MaxResults, e3 = n.int32("MaxResults")
	in.DryRun, e4 = n.boolean("DryRun")
	return in, firstErr(e1, e2, e3, e4)
}

// ec2Operations lists the EC2 actions the handler answers.
func ec2Operations() []string {
	return slices.DeleteFunc(slices.Clone(operations), func(op string) bool { return serviceOf(op) != serviceEC2 })
}
