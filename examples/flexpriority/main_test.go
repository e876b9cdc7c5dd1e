package main

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/examples/internal/cli/clitest"
	"github.com/ec2select/ec2select/internal/golden"
)

var update = flag.Bool("update", false, "rewrite testdata/output.golden with the current output")

func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(context.Background(), &buf, nil); err != nil {
		t.Fatalf("run: %v", err)
	}
	got := buf.String()

	golden.Check(t, filepath.Join("testdata", "output.golden"), buf.Bytes(), *update)

	step1, step2 := golden.Section(t, got, "1. "), golden.Section(t, got, "2. ")
	step3, step4 := got[strings.Index(got, "\n3. "):strings.Index(got, "\n4. ")], golden.Section(t, got, "4. ")
	for _, c := range []struct{ in, text, why string }{
		{step1, `In [c7i-flex *]: value "*" is not a valid label value`, "a wildcard value must be refused as Karpenter refuses it"},
		{step2, "flex weight 100:  14 types, first c7i-flex.large, m7i-flex.large,", "the flex tier holds both flex families' 14 sizes, cheapest first"},
		{step2, "rest weight   1: 1350 types, first m7i.large,", "every other type falls to the rest tier"},
		{step2, "unranked: 0\n", "the '*' tier leaves no type unranked"},
		{step2, `m7i-flex.2xlarge: tier flex (weight 100), 11 of 14, via pattern "m7i-flex"`, "Explain names the tier and pattern of a flex type"},
		{step2, "m7i.large: tier rest (weight 1), 1 of 1350, via pattern \"*\"; not in tier flex (weight 100): family m7i matches none of [c7i-flex m7i-flex]", "Explain says why a non-flex type is not in the flex tier"},
		{step3, "  name: default-flex\n", "the flex tier's NodePool"},
		{step3, "      - key: karpenter.k8s.aws/instance-family\n        operator: In\n        values:\n        - c7i-flex\n        - m7i-flex\n  weight: 100\n", "the flex NodePool lists the families, weight 100"},
		{step3, "      - key: karpenter.k8s.aws/instance-family\n        operator: NotIn\n        values:\n        - c7i-flex\n        - m7i-flex\n  weight: 1\n", "the rest NodePool excludes them, weight 1"},
		{step3, "  annotations:\n    example.com/owner: platform-team\n  name: default-flex\n", "the flex NodePool keeps the base's annotations"},
		{step3, "  disruption:\n    budgets:\n    - nodes: 10%\n    consolidateAfter: 1m\n    consolidationPolicy: WhenEmptyOrUnderutilized\n  limits:\n    cpu: \"1000\"\n    memory: 1000Gi\n", "each NodePool keeps the base's disruption and limits"},
		{step3, "14 only in default-flex, 1350 only in default-rest, 0 in several, 0 in none.", "the NodePools must split the catalog exactly as the ranking does"},
		{step4, "all capacity available → flex, 14 types", "with capacity, the flex tier comes first"},
		{step4, "no flex capacity       → rest, 1329 types, first m7i.large", "without flex capacity, Fallback gives the rest tier"},
	} {
		if !strings.Contains(c.in, c.text) {
			t.Errorf("%s: output lacks %q", c.why, c.text)
		}
	}
}

func TestCommandLine(t *testing.T) {
	clitest.Conventions(t, run, "extra")
}
