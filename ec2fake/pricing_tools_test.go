package ec2fake_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/ec2select/ec2select/ec2fake"
)

var toolNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// toolEnv is what boto3 and the AWS CLI need to sign requests to the fake.
func toolEnv() []string {
	return append(os.Environ(), "AWS_ACCESS_KEY_ID=AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY=secret", "AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_PAGER=")
}

// boto3's pricing paginator and ec2's DescribeSpotPriceHistory read the
// fake's Price List and spot history as the Go SDK does.
func TestPricingWithBoto3(t *testing.T) {
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		t.Skip("boto3 is not installed (apt-get install -y python3-boto3): ", err)
	}
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return toolNow }})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	script := `
import boto3, json, sys, datetime
url = sys.argv[1]
p = boto3.client("pricing", endpoint_url=url, region_name="us-east-1")
docs = []
for page in p.get_paginator("get_products").paginate(ServiceCode="AmazonEC2", Filters=[
        {"Type": "TERM_MATCH", "Field": "ServiceCode", "Value": "AmazonEC2"},
        {"Type": "TERM_MATCH", "Field": "regionCode", "Value": "us-east-1"},
        {"Type": "TERM_MATCH", "Field": "operatingSystem", "Value": "linux"},
        {"Type": "ANY_OF", "Field": "instanceType", "Value": "m5.large,m5.xlarge,c7i-flex.large"}],
        PaginationConfig={"PageSize": 2}):
    docs += [json.loads(d) for d in page["PriceList"]]
e = boto3.client("ec2", endpoint_url=url, region_name="us-east-1")
spot = []
for page in e.get_paginator("describe_spot_price_history").paginate(InstanceTypes=["m5.large"], ProductDescriptions=["Linux/UNIX"],
        StartTime=datetime.datetime(2026, 11, 20, 12, 0, 0, tzinfo=datetime.timezone.utc), PaginationConfig={"PageSize": 5}):
    spot += [[s["AvailabilityZone"], s["SpotPrice"]] for s in page["SpotPriceHistory"]]
print(json.dumps({"prices": sorted([d["product"]["attributes"]["instanceType"], list(list(d["terms"]["OnDemand"].values())[0]["priceDimensions"].values())[0]["pricePerUnit"]["USD"]] for d in docs), "spot": sorted(spot)}))
`
	cmd := exec.Command("python3", "-c", script, srv.URL)
	cmd.Env = toolEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("boto3: %v\n%s", err, out)
	}
	var got struct {
		Prices [][2]string
		Spot   [][2]string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := [][2]string{{"c7i-flex.large", "0.084790"}, {"m5.large", "0.096000"}, {"m5.xlarge", "0.192000"}}
	if !equalPairs(want, got.Prices) {
		t.Errorf("boto3 prices %v; want %v", got.Prices, want)
	}
	goSpot := spotNow(t, ec2fake.NewClient(srv.URL))
	if !equalPairs(goSpot, got.Spot) {
		t.Errorf("boto3 spot %v; the Go SDK reads %v", got.Spot, goSpot)
	}
}

// The AWS CLI reads the same.
func TestPricingWithAWSCLI(t *testing.T) {
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("the AWS CLI is not installed (apt-get install -y awscli)")
	}
	b := ec2fake.NewWithCatalog(ec2fake.Options{Now: func() time.Time { return toolNow }})
	srv := ec2fake.NewServer(b)
	defer srv.Close()
	run := func(args ...string) []byte {
		cmd := exec.Command("aws", append(args, "--endpoint-url", srv.URL, "--output", "json")...)
		cmd.Env = toolEnv()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("aws %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	var products struct{ PriceList []string }
	if err := json.Unmarshal(run("pricing", "get-products", "--service-code", "AmazonEC2", "--filters",
		"Type=TERM_MATCH,Field=instanceType,Value=m5.large", "Type=EQUALS,Field=regionCode,Value=us-east-1"), &products); err != nil {
		t.Fatal(err)
	}
	if len(products.PriceList) != 1 || !strings.Contains(products.PriceList[0], `"USD":"0.096000"`) {
		t.Errorf("aws pricing get-products: %v", products.PriceList)
	}
	var spot struct {
		SpotPriceHistory []struct{ AvailabilityZone, SpotPrice string }
	}
	if err := json.Unmarshal(run("ec2", "describe-spot-price-history", "--instance-types", "m5.large", "--product-descriptions", "Linux/UNIX",
		"--start-time", "2026-11-20T12:00:00Z"), &spot); err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	for _, s := range spot.SpotPriceHistory {
		pairs = append(pairs, [2]string{s.AvailabilityZone, s.SpotPrice})
	}
	if goSpot := spotNow(t, ec2fake.NewClient(srv.URL)); !equalPairs(goSpot, pairs) {
		t.Errorf("aws ec2 describe-spot-price-history: %v; the Go SDK reads %v", pairs, goSpot)
	}
}

func spotNow(t *testing.T, c *ec2.Client) [][2]string {
	out, err := c.DescribeSpotPriceHistory(context.Background(), &ec2.DescribeSpotPriceHistoryInput{InstanceTypes: []ec2types.InstanceType{"m5.large"},
		ProductDescriptions: []string{"Linux/UNIX"}, StartTime: aws.Time(toolNow)})
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]string
	for _, s := range out.SpotPriceHistory {
		pairs = append(pairs, [2]string{aws.ToString(s.AvailabilityZone), aws.ToString(s.SpotPrice)})
	}
	zones := map[string]bool{}
	for _, p := range pairs {
		if zones[p[0]] {
			t.Fatalf("m5.large spot now: %v; want one price per zone", pairs)
		}
		zones[p[0]] = true
	}
	if len(zones) < 3 {
		t.Fatalf("m5.large spot now in %d zones", len(zones))
	}
	return pairs
}

func equalPairs(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[[2]string]int{}
	for _, p := range a {
		seen[p]++
	}
	for _, p := range b {
		seen[p]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
