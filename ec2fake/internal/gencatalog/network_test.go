package main

import (
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/google/go-cmp/cmp"
)

// The recorded inputs: ec2fake's own, and the max-pods tables capacity
// ships (their one home, with provenance in capacity/upstream/README.md).
const (
	up         = "../../catalog/upstream/"
	capacityUp = "../../../capacity/upstream/"
)

// recordedNetwork is the go:generate line's network inputs (catalog.go).
var recordedNetwork = networkInputs{
	ec2:        up + "moto-instance-types-network.jsonl",
	nodeadm:    capacityUp + "al2023-instance-info.txt",
	vpcLimits:  up + "karpenter-v1.14.1-vpc-limits.tsv",
	eniMaxPods: capacityUp + "al2-eni-max-pods.txt",
}

// recordedTypes builds the catalog's types from the recorded inputs.
func recordedTypes(t *testing.T) ([]ec2types.InstanceTypeInfo, map[string]ec2types.InstanceTypeInfo, networkRecords) {
	t.Helper()
	if reason := sdkTooOld(); reason != "" {
		t.Skip(reason)
	}
	types, err := instanceTypes(up+"karpenter-v1.14-instance-types.md", up+"first-wave-instance-types.json", recordedNetwork)
	if err != nil {
		t.Fatal(err)
	}
	var base struct{ InstanceTypes []ec2types.InstanceTypeInfo }
	if err := decodeJSON(up+"first-wave-instance-types.json", &base); err != nil {
		t.Fatal(err)
	}
	byName := map[string]ec2types.InstanceTypeInfo{}
	for _, b := range base.InstanceTypes {
		byName[string(b.InstanceType)] = b
	}
	net, err := readNetwork(recordedNetwork)
	if err != nil {
		t.Fatal(err)
	}
	return types, byName, net
}

// The recorded sources agree on every catalog type: EC2's answer (moto
// c4ea6380), nodeadm (amazon-eks-ami 81fec2e8) on all 1366, Karpenter's
// VPC limits (v1.14.1) on the 1303 it lists, eni-max-pods.txt (0ab84280)
// on the 1174 it lists, the first-wave catalog on the 192 it gives limits for, and the page's
// EFA and encryption in transit on its 1363. Where they ever disagree,
// the catalog keeps EC2's answer (the page's for EFA and encryption in
// transit) and the generator prints the difference; this test then names
// it and must be updated with the choice.
func TestNetworkSourcesAgree(t *testing.T) {
	types, base, net := recordedTypes(t)
	if got := networkDisagreements(types, base, net); len(got) != 0 {
		t.Errorf("the network sources disagree:\n%s", strings.Join(got, "\n"))
	}
	covered := map[string]int{}
	for _, it := range types {
		name := string(it.InstanceType)
		for source, ok := range map[string]bool{"nodeadm": has(net.nodeadm, name), "Karpenter": has(net.karpenter, name),
			"eni-max-pods": has(net.maxPods, name), "first wave": base[name].NetworkInfo != nil && base[name].NetworkInfo.MaximumNetworkInterfaces != nil} {
			if ok {
				covered[source]++
			}
		}
	}
	want := map[string]int{"nodeadm": 1366, "Karpenter": 1303, "eni-max-pods": 1174, "first wave": 192}
	if diff := cmp.Diff(want, covered); diff != "" {
		t.Errorf("catalog types each source covers (-want +got):\n%s", diff)
	}
}

func has[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }

// networkDisagreements names each difference and keeps the catalog's
// value: here the catalog (EC2's answer) has 3 interfaces of 10 addresses
// on its one card, EFA 1 and no encryption in transit, and every other
// source says something else.
func TestNetworkDisagreements(t *testing.T) {
	cat := ec2types.InstanceTypeInfo{InstanceType: "x1.large", NetworkInfo: &ec2types.NetworkInfo{
		MaximumNetworkInterfaces: aws.Int32(3), Ipv4AddressesPerInterface: aws.Int32(10), DefaultNetworkCardIndex: aws.Int32(0),
		NetworkCards: []ec2types.NetworkCardInfo{{NetworkCardIndex: aws.Int32(0), MaximumNetworkInterfaces: aws.Int32(3)}},
		EfaInfo:      &ec2types.EfaInfo{MaximumEfaInterfaces: aws.Int32(1)}, EncryptionInTransitSupported: aws.Bool(false),
	}}
	base := map[string]ec2types.InstanceTypeInfo{"x1.large": {NetworkInfo: &ec2types.NetworkInfo{MaximumNetworkInterfaces: aws.Int32(4),
		Ipv4AddressesPerInterface: aws.Int32(10), NetworkCards: []ec2types.NetworkCardInfo{{MaximumNetworkInterfaces: aws.Int32(4)}}}}}
	r := networkRecords{
		ec2:       map[string]ec2types.NetworkInfo{"x1.large": {EncryptionInTransitSupported: aws.Bool(true)}},
		nodeadm:   map[string]nodeadmInfo{"x1.large": {InstanceType: "x1.large", DefaultMaxENIs: 2, Ipv4AddressesPerInterface: 15}},
		karpenter: map[string]vpcLimits{"x1.large": {interfaces: 3, ipv4: 10, defaultCard: 1, cards: []int32{2, 1}}},
		maxPods:   map[string]int32{"x1.large": 29},
	}
	want := []string{
		"x1.large: EFA interfaces: EC2 says 0, the catalog 1",
		"x1.large: IPv4 addresses per interface: nodeadm says 15, the catalog 10",
		"x1.large: default card: Karpenter says 1, the catalog 0",
		"x1.large: default-card interfaces: nodeadm says 2, the catalog 3",
		"x1.large: encryption in transit: EC2 says true, the catalog false",
		"x1.large: interfaces per card: Karpenter says [2 1], the catalog [3]",
		"x1.large: interfaces per card: the first wave says [4], the catalog [3]",
		"x1.large: interfaces: the first wave says 4, the catalog 3",
		// eni-max-pods.txt's 29 is 3 × (10 − 1) + 2: no line.
	}
	got := networkDisagreements([]ec2types.InstanceTypeInfo{cat}, base, r)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("networkDisagreements (-want +got):\n%s", diff)
	}
}

// The page's bandwidth keeps EC2's per-card split when the two add up
// (p5.48xlarge: 32 × 100 Gbps), and otherwise sits whole on the default
// card, since compat labels the sum (c6in.32xlarge: the page's 200 Gbps
// against EC2's 2 × 200).
func TestSpreadBandwidth(t *testing.T) {
	src := func(gbps ...float64) ec2types.NetworkInfo {
		n := ec2types.NetworkInfo{DefaultNetworkCardIndex: aws.Int32(0)}
		for i, g := range gbps {
			n.NetworkCards = append(n.NetworkCards, ec2types.NetworkCardInfo{NetworkCardIndex: aws.Int32(int32(i)), BaselineBandwidthInGbps: aws.Float64(g)})
		}
		return n
	}
	baselines := func(cards []ec2types.NetworkCardInfo) []*float64 {
		var out []*float64
		for _, c := range cards {
			out = append(out, c.BaselineBandwidthInGbps)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		src  ec2types.NetworkInfo
		mbps int64
		want []*float64
	}{
		{"EC2's split adds up", src(100, 100), 200000, []*float64{aws.Float64(100), aws.Float64(100)}},
		{"EC2 gives more", src(200, 200), 200000, []*float64{aws.Float64(200), nil}},
		{"rounding differs", src(33.333), 33330, []*float64{aws.Float64(33.33)}},
		{"sub-gigabit", src(0.75), 750, []*float64{aws.Float64(0.75)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cards := ec2Limits(tc.src).NetworkCards
			spreadBandwidth(cards, tc.src, tc.mbps)
			if diff := cmp.Diff(tc.want, baselines(cards)); diff != "" {
				t.Errorf("baselines (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseNetworkInputsReject(t *testing.T) {
	good := `{"InstanceType":"m5.large","NetworkInfo":{"MaximumNetworkInterfaces":3,"Ipv4AddressesPerInterface":10,"DefaultNetworkCardIndex":0,"MaximumNetworkCards":1,"NetworkCards":[{"NetworkCardIndex":0,"MaximumNetworkInterfaces":3}]}}`
	if _, err := parseEC2Network([]byte(good + "\n")); err != nil {
		t.Fatalf("the well-formed record fails: %v", err)
	}
	for _, tc := range []struct {
		name  string
		parse func([]byte) error
		in    string
		want  string
	}{
		{"ec2: unknown field", ec2Parse, strings.Replace(good, `"Ipv4`, `"Ipv9":1,"Ipv4`, 1), "unknown field"},
		{"ec2: repeated", ec2Parse, good + good, `"m5.large" is empty or repeated`},
		{"ec2: no cards", ec2Parse, strings.Replace(good, `[{"NetworkCardIndex":0,"MaximumNetworkInterfaces":3}]`, `[]`, 1), "lacks"},
		{"ec2: cards do not add up", ec2Parse, strings.Replace(good, `"MaximumNetworkInterfaces":3,"Ipv4`, `"MaximumNetworkInterfaces":4,"Ipv4`, 1), "do not add up"},
		{"ec2: card out of order", ec2Parse, strings.Replace(good, `"NetworkCardIndex":0`, `"NetworkCardIndex":1`, 1), "want index 0"},
		{"ec2: default card missing", ec2Parse, strings.Replace(good, `"DefaultNetworkCardIndex":0`, `"DefaultNetworkCardIndex":1`, 1), "default 1"},
		{"ec2: negative default card", ec2Parse, strings.Replace(good, `"DefaultNetworkCardIndex":0`, `"DefaultNetworkCardIndex":-1`, 1), "default -1"},
		{"nodeadm: zero", nodeadmParse, "# c\nm5.large 0 10\n", `line 2: m5.large: interfaces "0" and addresses "10" must be positive`},
		{"nodeadm: not a number", nodeadmParse, "m5.large 3 ten\n", `addresses "ten"`},
		{"nodeadm: two fields", nodeadmParse, "m5.large 3\n", `"m5.large 3" is not an instance type, its interfaces`},
		{"nodeadm: JSON", nodeadmParse, `{"instanceType":"m5.large","defaultMaxENIs":3,"ipv4AddressesPerInterface":10}`, "is not an instance type"},
		{"nodeadm: repeated", nodeadmParse, "m5.large 3 10\nm5.large 3 10\n", "line 2: m5.large repeated"},
		{"vpc: short row", vpcParse, "m5.large\t3\t10\n", "3 fields; want 7"},
		{"vpc: wrong header", vpcParse, "name\tinterfaces\tipv4\tdefault_card\tcards\ttrunking\tbranch_interfaces\n", "header"},
		{"vpc: card gap", vpcParse, "m5.large\t3\t10\t0\t1:3\ttrue\t9\n", `card "1:3" is not index 0`},
		{"vpc: trunking", vpcParse, "m5.large\t3\t10\t0\t0:3\tyes\t9\n", `trunking "yes"`},
		{"vpc: number", vpcParse, "m5.large\tthree\t10\t0\t0:3\ttrue\t9\n", `"three" is not an integer`},
		{"vpc: repeated", vpcParse, "m5.large\t3\t10\t0\t0:3\ttrue\t9\nm5.large\t3\t10\t0\t0:3\ttrue\t9\n", "repeated"},
		{"eni-max-pods: one field", podsParse, "# c\nm5.large\n", `line 2: "m5.large" is not`},
		{"eni-max-pods: zero", podsParse, "m5.large 0\n", "positive pod count"},
		{"eni-max-pods: repeated", podsParse, "m5.large 29\nm5.large 29\n", "line 2: m5.large repeated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.parse([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want one containing %q", err, tc.want)
			}
		})
	}
}

func ec2Parse(b []byte) error     { _, err := parseEC2Network(b); return err }
func nodeadmParse(b []byte) error { _, err := parseNodeadm(b); return err }
func vpcParse(b []byte) error     { _, err := parseVPCLimits(b); return err }
func podsParse(b []byte) error    { _, err := parseENIMaxPods(b); return err }

// FuzzParseEC2Network: whatever the parser accepts has the layout the
// generator relies on: spreading a bandwidth over its cards never indexes
// out of range and keeps the total.
func FuzzParseEC2Network(f *testing.F) {
	data, err := os.ReadFile(recordedNetwork.ec2)
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.SplitN(string(data), "\n", 4)[:3] {
		f.Add(line)
	}
	f.Add(`{"InstanceType":"x.large","NetworkInfo":{"MaximumNetworkInterfaces":2,"Ipv4AddressesPerInterface":1,"DefaultNetworkCardIndex":1,"MaximumNetworkCards":2,"NetworkCards":[{"NetworkCardIndex":0,"MaximumNetworkInterfaces":1},{"NetworkCardIndex":1,"MaximumNetworkInterfaces":1}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseEC2Network([]byte(in))
		if err != nil {
			return
		}
		for name, n := range got {
			cards := ec2Limits(n).NetworkCards
			spreadBandwidth(cards, n, 1000)
			var sum float64
			for _, c := range cards {
				sum += aws.ToFloat64(c.BaselineBandwidthInGbps)
			}
			if roundMbps(sum) != 1000 {
				t.Fatalf("%s: 1000 Mbps spread over %d cards adds up to %v Gbps", name, len(cards), sum)
			}
		}
	})
}

// FuzzParseRecords: the three line formats never panic, and what they
// accept is complete.
func FuzzParseRecords(f *testing.F) {
	f.Add("# c\na1.large 3 10", "a1.large\t3\t10\t0\t0:3\ttrue\t9", "a1.large 29")
	f.Add("", "# c\nname\tinterfaces\tipv4_per_interface\tdefault_card\tcards\ttrunking\tbranch_interfaces", "# c")
	f.Fuzz(func(t *testing.T, nodeadm, vpc, pods string) {
		if got, err := parseNodeadm([]byte(nodeadm)); err == nil {
			for name, r := range got {
				if name == "" || r.DefaultMaxENIs <= 0 || r.Ipv4AddressesPerInterface <= 0 {
					t.Fatalf("accepted %+v", r)
				}
			}
		}
		if got, err := parseVPCLimits([]byte(vpc)); err == nil {
			for name, l := range got {
				if len(l.cards) == 0 {
					t.Fatalf("accepted %s without cards", name)
				}
			}
		}
		if got, err := parseENIMaxPods([]byte(pods)); err == nil {
			for name, n := range got {
				if n <= 0 {
					t.Fatalf("accepted %s with %d pods", name, n)
				}
			}
		}
	})
}

func TestReadNetworkNeedsEveryInput(t *testing.T) {
	in := recordedNetwork
	in.eniMaxPods = ""
	if _, err := readNetwork(in); err == nil || !strings.Contains(err.Error(), "-eni-max-pods are required") {
		t.Errorf("readNetwork without -eni-max-pods: %v; want the flags named", err)
	}
	in = recordedNetwork
	in.vpcLimits = up + "karpenter-v1.14-instance-types.md"
	if _, err := readNetwork(in); err == nil || !strings.Contains(err.Error(), "karpenter-v1.14-instance-types.md: line 1:") {
		t.Errorf("readNetwork of the wrong file as -vpc-limits: %v; want the file and line named", err)
	}
}
