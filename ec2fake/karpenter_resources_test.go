package ec2fake_test

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/ec2fake"
	"github.com/ec2select/ec2select/ec2fake/internal/karpenterpage"
)

// TestCatalogReproducesKarpenterPodsAndPodENI: Karpenter's instance-types
// reference lists, per type, the pods and vpc.amazonaws.com/pod-eni it
// derives from the network facts (AL2023, no NodeClass interfaces, no
// reserved ENIs; hack/docs/instancetypes_gen/main.go). Each type, read by
// a real *ec2.Client and converted by compat, gives the same figures:
//
//   - pods by Karpenter's ENILimitedPods (karpenter-provider-aws v1.14.1,
//     pkg/providers/instancetype/types.go lines 485-505): the default
//     card's interfaces × (IPv4 per interface − 1) + 2;
//   - pod-eni by awsPodENI (same file, lines 407-414): the branch
//     interfaces of a trunking type in its VPC limits table, else 0 (the
//     page omits a zero).
func TestCatalogReproducesKarpenterPodsAndPodENI(t *testing.T) {
	text, err := os.ReadFile("catalog/upstream/karpenter-v1.14-instance-types.md")
	if err != nil {
		t.Fatal(err)
	}
	page, err := karpenterpage.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	srv := ec2fake.NewServer(ec2fake.NewWithCatalog(ec2fake.Options{}))
	t.Cleanup(srv.Close)
	pages := ec2.NewDescribeInstanceTypesPaginator(ec2fake.NewClient(srv.URL), &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(100)})
	byName := map[string]compat.InstanceType{}
	for pages.HasMorePages() {
		out, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range out.InstanceTypes {
			if it, err := compat.InstanceTypeFromEC2(info); err == nil {
				byName[it.Name] = it
			}
		}
	}
	var trunking int
	for _, p := range page {
		it, ok := byName[p.Name]
		if !ok {
			t.Errorf("%s: on the page, but not described or not convertible", p.Name)
			continue
		}
		n := it.Network
		pods := n.DefaultCardInterfaces()*(n.IPv4PerInterface-1) + 2
		if want := p.Resources["pods"]; strconv.Itoa(pods) != want {
			t.Errorf("%s: pods: Karpenter %s, ours %d (%d interfaces × (%d − 1) + 2)", p.Name, want, pods, n.DefaultCardInterfaces(), n.IPv4PerInterface)
		}
		want := p.Resources["vpc.amazonaws.com/pod-eni"]
		if want == "" {
			want = "0"
		}
		if got := strconv.Itoa(n.BranchInterfaces); got != want {
			t.Errorf("%s: vpc.amazonaws.com/pod-eni: Karpenter %s, ours %s", p.Name, want, got)
		}
		if n.BranchInterfaces > 0 {
			trunking++
		}
	}
	if len(page) != 1363 || trunking < 1200 {
		t.Errorf("compared %d types, %d with pod ENIs; want the page's 1363 and over 1200", len(page), trunking)
	}
	t.Logf("%d types compared; %d with pod ENIs", len(page), trunking)
}
