package ec2fake

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// describedCatalog is every catalog type as DescribeInstanceTypes answers
// it, in process and to a real *ec2.Client over HTTP (describeTypesBoth
// fails the test if the two differ).
func describedCatalog(t *testing.T) map[string]ec2types.InstanceTypeInfo {
	t.Helper()
	p := newPair(t, NewWithCatalog(Options{}))
	out := map[string]ec2types.InstanceTypeInfo{}
	in := &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(100)}
	for {
		page, err := describeTypesBoth(t, p, in)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.InstanceTypes {
			out[string(it.InstanceType)] = it
		}
		if page.NextToken == nil {
			return out
		}
		in.NextToken = page.NextToken
	}
}

// nodeadmDefaultCard is nodeadm's reading of a DescribeInstanceTypes
// answer (awslabs/amazon-eks-ami 81fec2e8, nodeadm/internal/util/ec2.go
// lines 34-53, getInstanceInfoFromDescribeResponse): the interfaces of the
// card whose index is DefaultNetworkCardIndex, which must exist and be
// positive, and Ipv4AddressesPerInterface. AL2's max-pods-calculator.sh
// reads the same two fields (0ab84280, templates/al2/runtime/
// max-pods-calculator.sh lines 128-130).
func nodeadmDefaultCard(info ec2types.InstanceTypeInfo) (enis, ipv4 int32, ok bool) {
	n := info.NetworkInfo
	if n == nil {
		return 0, 0, false
	}
	for _, c := range n.NetworkCards {
		if aws.ToInt32(c.NetworkCardIndex) == aws.ToInt32(n.DefaultNetworkCardIndex) {
			return aws.ToInt32(c.MaximumNetworkInterfaces), aws.ToInt32(n.Ipv4AddressesPerInterface), aws.ToInt32(c.MaximumNetworkInterfaces) > 0
		}
	}
	return 0, 0, false
}

// capacityTable is the fields of each data line of a max-pods table under
// capacity/upstream, the one home of the tables the AMI families ship
// (provenance in capacity/upstream/README.md).
func capacityTable(t *testing.T, name string) [][]string {
	t.Helper()
	data, err := os.ReadFile("../capacity/upstream/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Fields(line))
	}
	return out
}

func atoi32(t *testing.T, s string) int32 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return int32(n)
}

type nodeadmRecord struct {
	InstanceType              string
	DefaultMaxENIs            int32
	Ipv4AddressesPerInterface int32
}

// TestCatalogNetworkMatchesNodeadm: for every catalog type, the default
// card's interfaces and the IPv4 addresses per interface a client reads
// from DescribeInstanceTypes are the ones nodeadm ships for it
// (nodeadm/internal/kubelet/instance-info.jsonl at awslabs/amazon-eks-ami
// 81fec2e8, recorded as "type defaultMaxENIs ipv4AddressesPerInterface" in
// capacity/upstream/al2023-instance-info.txt).
func TestCatalogNetworkMatchesNodeadm(t *testing.T) {
	want := map[string]nodeadmRecord{}
	for _, f := range capacityTable(t, "al2023-instance-info.txt") {
		want[f[0]] = nodeadmRecord{InstanceType: f[0], DefaultMaxENIs: atoi32(t, f[1]), Ipv4AddressesPerInterface: atoi32(t, f[2])}
	}
	described := describedCatalog(t)
	for name, info := range described {
		w, listed := want[name]
		if !listed {
			t.Errorf("%s: nodeadm does not list it", name)
			continue
		}
		enis, ipv4, ok := nodeadmDefaultCard(info)
		got := nodeadmRecord{InstanceType: name, DefaultMaxENIs: enis, Ipv4AddressesPerInterface: ipv4}
		if !ok || got != w {
			t.Errorf("%s (-nodeadm +DescribeInstanceTypes):\n%s", name, cmp.Diff(w, got))
		}
	}
	if len(described) != 1366 {
		t.Errorf("compared %d types; the catalog has 1366", len(described))
	}
	t.Logf("%d catalog types compared with nodeadm's %d", len(described), len(want))
}

// TestCatalogMaxPodsMatchesENIMaxPods: max pods by the ENI formula,
// default-card interfaces × (IPv4 per interface − 1) + 2 (nodeadm
// 81fec2e8, nodeadm/internal/kubelet/eni_max_pods.go line 76; the header
// of eni-max-pods.txt), from what a client reads, equals
// amazon-eks-ami's eni-max-pods.txt for every type the file lists. The
// file is AL2's (templates/shared/runtime/eni-max-pods.txt at 0ab84280,
// last changed in 2377b69a; main deleted it in 72b60466), recorded as
// capacity/upstream/al2-eni-max-pods.txt.
func TestCatalogMaxPodsMatchesENIMaxPods(t *testing.T) {
	want := map[string]int32{}
	for _, f := range capacityTable(t, "al2-eni-max-pods.txt") {
		want[f[0]] = atoi32(t, f[1])
	}
	described := describedCatalog(t)
	compared := 0
	for name, pods := range want {
		info, ok := described[name]
		if !ok {
			continue // types Karpenter's page does not list: retired (f1, p3, hs1, u-*.metal), other Macs, trn2.3xlarge
		}
		compared++
		enis, ipv4, ok := nodeadmDefaultCard(info)
		if got := enis*(ipv4-1) + 2; !ok || got != pods {
			t.Errorf("%s: eni-max-pods.txt %d, formula on DescribeInstanceTypes %d (%d interfaces × (%d − 1) + 2)", name, pods, got, enis, ipv4)
		}
	}
	if compared != 1174 {
		t.Errorf("compared %d types; 1174 catalog types are in eni-max-pods.txt", compared)
	}
	t.Logf("%d of the file's %d types are in the catalog and compared", compared, len(want))
}

// TestCatalogMacNetwork: the Mac types answer with their full network
// limits, as EC2 does (moto c4ea6380 instance_types.json), and they agree
// with nodeadm (8 interfaces, 30 IPv4 each), Karpenter v1.14.1's VPC
// limits (the same, trunking with 6 branch interfaces) and
// eni-max-pods.txt (234 = 8 × 29 + 2). No EKS node runs on them (compat
// refuses x86_64_mac and arm64_mac), but the real max-pods calculator
// does not fail on them any more.
func TestCatalogMacNetwork(t *testing.T) {
	described := describedCatalog(t)
	card := func(gbps float64) []ec2types.NetworkCardInfo {
		return []ec2types.NetworkCardInfo{{NetworkCardIndex: aws.Int32(0), MaximumNetworkInterfaces: aws.Int32(8), BaselineBandwidthInGbps: aws.Float64(gbps)}}
	}
	for name, gbps := range map[string]float64{"mac1.metal": 25, "mac2.metal": 10} {
		want := &ec2types.NetworkInfo{
			MaximumNetworkInterfaces: aws.Int32(8), Ipv4AddressesPerInterface: aws.Int32(30), Ipv6AddressesPerInterface: aws.Int32(30),
			Ipv6Supported: aws.Bool(true), DefaultNetworkCardIndex: aws.Int32(0), MaximumNetworkCards: aws.Int32(1), NetworkCards: card(gbps),
			EnaSupport: ec2types.EnaSupportRequired, EncryptionInTransitSupported: aws.Bool(false), EfaSupported: aws.Bool(false),
		}
		if diff := cmp.Diff(want, described[name].NetworkInfo, ignoreUnexported); diff != "" {
			t.Errorf("%s NetworkInfo (-EC2 +described):\n%s", name, diff)
		}
	}
}

// TestDescribeInstanceTypesNetworkXML: the network limits go over the wire
// under EC2's element names (EC2 API reference, NetworkInfo,
// NetworkCardInfo, EfaInfo), which is what the SDK's deserializer reads.
func TestDescribeInstanceTypesNetworkXML(t *testing.T) {
	srv := NewServer(NewWithCatalog(Options{}))
	t.Cleanup(srv.Close)
	resp, err := http.PostForm(srv.URL, url.Values{"Action": {"DescribeInstanceTypes"}, "Version": {"2016-11-15"}, "InstanceType.1": {"p5.48xlarge"}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v:\n%s", resp.StatusCode, err, body)
	}
	for _, want := range []string{
		"<maximumNetworkInterfaces>64</maximumNetworkInterfaces>",
		"<ipv4AddressesPerInterface>50</ipv4AddressesPerInterface>",
		"<ipv6AddressesPerInterface>50</ipv6AddressesPerInterface>",
		"<ipv6Supported>true</ipv6Supported>",
		"<defaultNetworkCardIndex>0</defaultNetworkCardIndex>",
		"<maximumNetworkCards>32</maximumNetworkCards>",
		"<networkCards><item><baselineBandwidthInGbps>100</baselineBandwidthInGbps><maximumNetworkInterfaces>2</maximumNetworkInterfaces><networkCardIndex>0</networkCardIndex></item>",
		"<item><baselineBandwidthInGbps>100</baselineBandwidthInGbps><maximumNetworkInterfaces>2</maximumNetworkInterfaces><networkCardIndex>31</networkCardIndex></item></networkCards>",
		"<efaInfo><maximumEfaInterfaces>32</maximumEfaInterfaces></efaInfo>",
		"<efaSupported>true</efaSupported>",
		"<enaSupport>required</enaSupport>",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("DescribeInstanceTypes XML lacks %s:\n%s", want, body)
		}
	}
}
