package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// networkInputs names the recorded network-limit files (catalog/README.md):
// EC2's own DescribeInstanceTypes answer, which the catalog serves, and
// three records of the same facts it is checked against.
type networkInputs struct {
	ec2, nodeadm, vpcLimits, eniMaxPods string
}

func networkFlags() *networkInputs {
	in := &networkInputs{}
	flag.StringVar(&in.ec2, "network", "", "recorded DescribeInstanceTypes NetworkInfo, one JSON object per line")
	flag.StringVar(&in.nodeadm, "nodeadm", "", "nodeadm's instance-info.jsonl as \"type enis ipv4\" lines (capacity/upstream/al2023-instance-info.txt)")
	flag.StringVar(&in.vpcLimits, "vpc-limits", "", "Karpenter's VPC limits table (TSV)")
	flag.StringVar(&in.eniMaxPods, "eni-max-pods", "", "amazon-eks-ami's eni-max-pods.txt (capacity/upstream/al2-eni-max-pods.txt)")
	return in
}

// networkRecords are the read inputs, by instance type name.
type networkRecords struct {
	ec2       map[string]ec2types.NetworkInfo
	nodeadm   map[string]nodeadmInfo
	karpenter map[string]vpcLimits
	maxPods   map[string]int32
}

// nodeadmInfo is one record of nodeadm's instance-info.jsonl
// (nodeadm/internal/util/ec2.go, InstanceInfo): the default card's
// interfaces and the IPv4 addresses per interface.
type nodeadmInfo struct {
	InstanceType              string
	DefaultMaxENIs            int32
	Ipv4AddressesPerInterface int32
}

// vpcLimits is one row of Karpenter's VPC limits table.
type vpcLimits struct {
	interfaces, ipv4, defaultCard int32
	cards                         []int32 // interfaces per card, by index
	trunking                      bool
	branch                        int32
}

func readNetwork(in networkInputs) (networkRecords, error) {
	var r networkRecords
	if in.ec2 == "" || in.nodeadm == "" || in.vpcLimits == "" || in.eniMaxPods == "" {
		return r, errors.New("all of -network, -nodeadm, -vpc-limits and -eni-max-pods are required")
	}
	var err error
	if r.ec2, err = readWith(in.ec2, parseEC2Network); err != nil {
		return r, err
	}
	if r.nodeadm, err = readWith(in.nodeadm, parseNodeadm); err != nil {
		return r, err
	}
	if r.karpenter, err = readWith(in.vpcLimits, parseVPCLimits); err != nil {
		return r, err
	}
	r.maxPods, err = readWith(in.eniMaxPods, parseENIMaxPods)
	return r, err
}

func readWith[T any](path string, parse func([]byte) (T, error)) (T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := parse(data)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// parseEC2Network reads one {"InstanceType", "NetworkInfo"} object per
// line and checks each is a layout EC2 gives: cards indexed 0..n-1 in
// order, their interfaces adding up to the total, the default card among
// them. The generator relies on that shape, so anything else stops it.
func parseEC2Network(data []byte) (map[string]ec2types.NetworkInfo, error) {
	out := map[string]ec2types.NetworkInfo{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	for n := 1; ; n++ {
		var rec struct {
			InstanceType string
			NetworkInfo  *ec2types.NetworkInfo
		}
		if err := dec.Decode(&rec); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("record %d: %w", n, err)
		}
		if err := checkLayout(rec.NetworkInfo); err != nil {
			return nil, fmt.Errorf("record %d (%s): %w", n, rec.InstanceType, err)
		}
		if _, dup := out[rec.InstanceType]; dup || rec.InstanceType == "" {
			return nil, fmt.Errorf("record %d: instance type %q is empty or repeated", n, rec.InstanceType)
		}
		out[rec.InstanceType] = *rec.NetworkInfo
	}
}

func checkLayout(n *ec2types.NetworkInfo) error {
	if n == nil || n.MaximumNetworkInterfaces == nil || n.Ipv4AddressesPerInterface == nil || n.DefaultNetworkCardIndex == nil || len(n.NetworkCards) == 0 {
		return errors.New("NetworkInfo lacks interfaces, IPv4 addresses per interface, the default card or the cards")
	}
	var sum int32
	for i, c := range n.NetworkCards {
		if aws.ToInt32(c.NetworkCardIndex) != int32(i) || aws.ToInt32(c.MaximumNetworkInterfaces) <= 0 {
			return fmt.Errorf("card %d has index %d and %d interfaces; want index %d and at least one", i, aws.ToInt32(c.NetworkCardIndex), aws.ToInt32(c.MaximumNetworkInterfaces), i)
		}
		sum += *c.MaximumNetworkInterfaces
	}
	if sum != *n.MaximumNetworkInterfaces || *n.DefaultNetworkCardIndex < 0 || int(*n.DefaultNetworkCardIndex) >= len(n.NetworkCards) || aws.ToInt32(n.MaximumNetworkCards) != int32(len(n.NetworkCards)) {
		return fmt.Errorf("%d interfaces on %d cards (%d listed, default %d) do not add up", *n.MaximumNetworkInterfaces, aws.ToInt32(n.MaximumNetworkCards), len(n.NetworkCards), *n.DefaultNetworkCardIndex)
	}
	return nil
}

// parseNodeadm reads capacity/upstream/al2023-instance-info.txt, nodeadm's
// instance-info.jsonl as "# comments", then "type defaultMaxENIs
// ipv4AddressesPerInterface" lines (that file's README says how it is made).
func parseNodeadm(data []byte) (map[string]nodeadmInfo, error) {
	out := map[string]nodeadmInfo{}
	err := lines(data, "", func(_ int, f []string) error {
		var p intParser
		if len(f) != 3 {
			return fmt.Errorf("%q is not an instance type, its interfaces and IPv4 addresses per interface", strings.Join(f, " "))
		}
		rec := nodeadmInfo{InstanceType: f[0], DefaultMaxENIs: p.num(f[1]), Ipv4AddressesPerInterface: p.num(f[2])}
		if p.err != nil || rec.DefaultMaxENIs <= 0 || rec.Ipv4AddressesPerInterface <= 0 {
			return fmt.Errorf("%s: interfaces %q and addresses %q must be positive integers", f[0], f[1], f[2])
		}
		if _, dup := out[rec.InstanceType]; dup {
			return fmt.Errorf("%s repeated", f[0])
		}
		out[rec.InstanceType] = rec
		return nil
	})
	return out, err
}

// lines yields the fields of each line that is neither empty nor a
// comment, with its line number, split by sep ("" for white space).
func lines(data []byte, sep string, each func(n int, f []string) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if sep != "" {
			f = strings.Split(line, sep)
		}
		if err := each(n, f); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

var vpcColumns = []string{"name", "interfaces", "ipv4_per_interface", "default_card", "cards", "trunking", "branch_interfaces"}

func parseVPCLimits(data []byte) (map[string]vpcLimits, error) {
	out := map[string]vpcLimits{}
	err := lines(data, "\t", func(_ int, f []string) error {
		if len(f) != len(vpcColumns) {
			return fmt.Errorf("%d fields; want %d (%s)", len(f), len(vpcColumns), strings.Join(vpcColumns, ", "))
		}
		if f[0] == vpcColumns[0] {
			if !slices.Equal(f, vpcColumns) {
				return fmt.Errorf("header %q; want %q", f, vpcColumns)
			}
			return nil
		}
		var p intParser
		l := vpcLimits{interfaces: p.num(f[1]), ipv4: p.num(f[2]), defaultCard: p.num(f[3]), trunking: f[5] == "true", branch: p.num(f[6])}
		for i, card := range strings.Split(f[4], ",") {
			index, n, _ := strings.Cut(card, ":")
			if p.num(index) != int32(i) {
				return fmt.Errorf("%s: card %q is not index %d", f[0], card, i)
			}
			l.cards = append(l.cards, p.num(n))
		}
		if p.err != nil || (f[5] != "true" && f[5] != "false") {
			return fmt.Errorf("%s: %v (trunking %q)", f[0], p.err, f[5])
		}
		if _, dup := out[f[0]]; dup {
			return fmt.Errorf("%s repeated", f[0])
		}
		out[f[0]] = l
		return nil
	})
	return out, err
}

// parseENIMaxPods reads eni-max-pods.txt: "# comments", then "type pods".
func parseENIMaxPods(data []byte) (map[string]int32, error) {
	out := map[string]int32{}
	err := lines(data, "", func(_ int, f []string) error {
		var p intParser
		if len(f) != 2 || p.num(f[1]) <= 0 || p.err != nil {
			return fmt.Errorf("%q is not an instance type and a positive pod count", strings.Join(f, " "))
		}
		if _, dup := out[f[0]]; dup {
			return fmt.Errorf("%s repeated", f[0])
		}
		out[f[0]] = p.num(f[1])
		return nil
	})
	return out, err
}

type intParser struct{ err error }

func (p *intParser) num(s string) int32 {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%q is not an integer", s)
	}
	return int32(n)
}

// ec2Limits copies the interface limits of EC2's answer: interfaces,
// addresses per interface, IPv6 support, ENA, the default card and each
// card's interfaces (no bandwidth; see spreadBandwidth).
func ec2Limits(src ec2types.NetworkInfo) *ec2types.NetworkInfo {
	n := &ec2types.NetworkInfo{
		MaximumNetworkInterfaces: src.MaximumNetworkInterfaces, Ipv4AddressesPerInterface: src.Ipv4AddressesPerInterface,
		Ipv6AddressesPerInterface: src.Ipv6AddressesPerInterface, Ipv6Supported: src.Ipv6Supported,
		DefaultNetworkCardIndex: src.DefaultNetworkCardIndex, EnaSupport: src.EnaSupport,
	}
	for _, c := range src.NetworkCards {
		n.NetworkCards = append(n.NetworkCards, ec2types.NetworkCardInfo{NetworkCardIndex: c.NetworkCardIndex, MaximumNetworkInterfaces: c.MaximumNetworkInterfaces})
	}
	return n
}

// spreadBandwidth puts the page's baseline bandwidth (mbps) on cards:
// EC2's per-card baselines (from src) when they add up to it, else all of
// it on the default card. The page's figure is Karpenter's own table,
// which rounds differently and sometimes gives less than EC2 (c6in.32xlarge:
// 200 Gbps against EC2's 2 × 200), and compat labels the sum, so the sum
// must stay the page's.
func spreadBandwidth(cards []ec2types.NetworkCardInfo, src ec2types.NetworkInfo, mbps int64) {
	var sum float64
	for _, c := range src.NetworkCards {
		sum += aws.ToFloat64(c.BaselineBandwidthInGbps)
	}
	if roundMbps(sum) == mbps {
		for i := range cards {
			cards[i].BaselineBandwidthInGbps = src.NetworkCards[i].BaselineBandwidthInGbps
		}
		return
	}
	cards[aws.ToInt32(src.DefaultNetworkCardIndex)].BaselineBandwidthInGbps = aws.Float64(float64(mbps) / 1000)
}

// networkDisagreements compares the catalog's network facts with every
// other record of them and lists each difference, sorted: nodeadm's
// default-card interfaces and IPv4 addresses, Karpenter's VPC limits, the
// first-wave catalog, max pods by the ENI formula against eni-max-pods.txt,
// and EC2's EFA and encryption-in-transit answers against the page's. The
// catalog keeps EC2's answer (the page's for EFA and encryption in
// transit, which it labels); the list says where another source differs.
func networkDisagreements(types []ec2types.InstanceTypeInfo, base map[string]ec2types.InstanceTypeInfo, r networkRecords) []string {
	var out []string
	for _, t := range types {
		name, n := string(t.InstanceType), t.NetworkInfo
		differ := func(what, source string, theirs, ours any) {
			if fmt.Sprint(theirs) != fmt.Sprint(ours) {
				out = append(out, fmt.Sprintf("%s: %s: %s says %v, the catalog %v", name, what, source, theirs, ours))
			}
		}
		defaultCard := n.NetworkCards[aws.ToInt32(n.DefaultNetworkCardIndex)].MaximumNetworkInterfaces
		ipv4 := aws.ToInt32(n.Ipv4AddressesPerInterface)
		if a, ok := r.nodeadm[name]; ok {
			differ("default-card interfaces", "nodeadm", a.DefaultMaxENIs, *defaultCard)
			differ("IPv4 addresses per interface", "nodeadm", a.Ipv4AddressesPerInterface, ipv4)
		}
		if k, ok := r.karpenter[name]; ok {
			differ("interfaces", "Karpenter", k.interfaces, aws.ToInt32(n.MaximumNetworkInterfaces))
			differ("IPv4 addresses per interface", "Karpenter", k.ipv4, ipv4)
			differ("default card", "Karpenter", k.defaultCard, aws.ToInt32(n.DefaultNetworkCardIndex))
			differ("interfaces per card", "Karpenter", k.cards, cardInterfaces(n))
		}
		if pods, ok := r.maxPods[name]; ok {
			differ("max pods", "eni-max-pods.txt", pods, *defaultCard*(ipv4-1)+2)
		}
		if b := base[name].NetworkInfo; b != nil && b.MaximumNetworkInterfaces != nil {
			differ("interfaces", "the first wave", *b.MaximumNetworkInterfaces, aws.ToInt32(n.MaximumNetworkInterfaces))
			differ("IPv4 addresses per interface", "the first wave", aws.ToInt32(b.Ipv4AddressesPerInterface), ipv4)
			if len(b.NetworkCards) > 0 && b.NetworkCards[0].MaximumNetworkInterfaces != nil {
				differ("interfaces per card", "the first wave", cardInterfaces(b), cardInterfaces(n))
			}
		}
		e := r.ec2[name]
		differ("EFA interfaces", "EC2", efaInterfaces(&e), efaInterfaces(n))
		differ("encryption in transit", "EC2", aws.ToBool(e.EncryptionInTransitSupported), aws.ToBool(n.EncryptionInTransitSupported))
	}
	slices.Sort(out)
	return out
}

func roundMbps(gbps float64) int64 { return int64(math.Round(gbps * 1000)) }

func cardInterfaces(n *ec2types.NetworkInfo) []int32 {
	out := make([]int32, len(n.NetworkCards))
	for i, c := range n.NetworkCards {
		out[i] = aws.ToInt32(c.MaximumNetworkInterfaces)
	}
	return out
}

func efaInterfaces(n *ec2types.NetworkInfo) int32 {
	if n.EfaInfo == nil {
		return 0
	}
	return aws.ToInt32(n.EfaInfo.MaximumEfaInterfaces)
}
