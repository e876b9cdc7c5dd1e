package karpenter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/internal/ec2nodeclass"
	"pgregory.net/rapid"
)

var (
	ncAliases   = []string{"al2023@latest", "al2@latest", "bottlerocket@latest", "al2023@v20250715", "bottlerocket@v1.39.1", "windows2022@latest", "windows2019@latest", "windows2025@latest"}
	ncBadAlias  = []string{"al2023", "ubuntu@latest", "windows2022@v1", "windows2022", "al2023@v1@x", "AL2023@latest", "al2023@", strings.Repeat("a", 28) + "@latest", "@latest", "al2023 @latest"}
	ncFamilies  = []string{"AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"}
	ncBadFamily = []string{"al2023", "Ubuntu", "", "BottleRocket"}
	ncUserData  = []any{"#!/bin/bash\necho hi\n", "[settings.kubernetes]\nmax-pods = 110\n", "", plain("~"), plain("yes"), plain("12")}
	ncTags      = []any{m("karpenter.sh/discovery", "my-cluster"), m("Name", "*"), m("", "x"), m("a", ""), m("env", plain("yes")), m("env", plain("~"))}
)

func drawTerms(t *rapid.T, label, id string, keys ...string) *seq {
	terms := s()
	for i := range rapid.IntRange(1, 2).Draw(t, label) {
		switch draw(t, fmt.Sprintf("%s[%d]", label, i), keys) {
		case "tags":
			terms.items = append(terms.items, m("tags", m("karpenter.sh/discovery", draw(t, "cluster", []string{"my-cluster", "prod"}))))
		case "id":
			terms.items = append(terms.items, m("id", id))
		case "name":
			terms.items = append(terms.items, m("name", draw(t, "name", []string{"my-sg", "amazon-eks-node-al2023-*"})))
		}
	}
	return terms
}

// drawNodeClassDoc draws an EC2NodeClass document that is valid but for
// what the generator makes wrong on purpose, rarely.
func drawNodeClassDoc(t *rapid.T) *mapping {
	spec := m()
	if rapid.Bool().Draw(t, "alias?") {
		alias := draw(t, "alias", ncAliases)
		spec.set("amiSelectorTerms", s(m("alias", alias)))
		if rapid.IntRange(0, 3).Draw(t, "family with alias?") == 0 {
			family := "Custom"
			if rapid.Bool().Draw(t, "alias family?") {
				family = map[string]string{"al2023": "AL2023", "al2": "AL2", "bottlerocket": "Bottlerocket", "windows2022": "Windows2022", "windows2019": "Windows2019", "windows2025": "Windows2025"}[strings.Split(alias, "@")[0]]
			}
			spec.set("amiFamily", family)
		}
	} else {
		spec.set("amiFamily", draw(t, "family", ncFamilies))
		terms := s()
		for i := range rapid.IntRange(1, 3).Draw(t, "ami terms") {
			switch draw(t, fmt.Sprintf("ami term %d", i), []string{"id", "name", "tags", "ssm", "name+owner"}) {
			case "id":
				terms.items = append(terms.items, m("id", "ami-0123456789abcdef0"))
			case "name":
				terms.items = append(terms.items, m("name", "my-ami-*"))
			case "tags":
				terms.items = append(terms.items, m("tags", m("team", "web")))
			case "ssm":
				terms.items = append(terms.items, m("ssmParameter", "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"))
			case "name+owner":
				terms.items = append(terms.items, m("name", "my-ami-*", "owner", "self"))
			}
		}
		spec.set("amiSelectorTerms", terms)
	}
	if rapid.Bool().Draw(t, "role?") {
		spec.set("role", "KarpenterNodeRole-my-cluster")
	} else {
		spec.set("instanceProfile", "KarpenterNodeInstanceProfile")
	}
	spec.set("subnetSelectorTerms", drawTerms(t, "subnets", "subnet-0123abcd", "tags", "id"))
	spec.set("securityGroupSelectorTerms", drawTerms(t, "sgs", "sg-0123abcd", "tags", "id", "name"))
	if rapid.Bool().Draw(t, "userData?") {
		spec.set("userData", draw(t, "userData", ncUserData[:3]))
	}
	if rapid.Bool().Draw(t, "kubelet?") {
		k := m("maxPods", rapid.IntRange(0, 250).Draw(t, "maxPods"))
		if rapid.Bool().Draw(t, "reserved?") {
			k.set("systemReserved", m("cpu", "100m", "memory", "100Mi"))
		}
		if rapid.Bool().Draw(t, "soft?") {
			k.set("evictionSoft", m("memory.available", "10%"))
			k.set("evictionSoftGracePeriod", m("memory.available", "1m30s"))
		}
		spec.set("kubelet", k)
	}
	if rapid.Bool().Draw(t, "block devices?") {
		spec.set("blockDeviceMappings", s(m("deviceName", "/dev/xvda", "rootVolume", true, "ebs", m("volumeSize", draw(t, "size", []string{"20Gi", "100G", "1Ti"}), "volumeType", "gp3", "encrypted", true))))
	}
	if rapid.Bool().Draw(t, "metadataOptions?") {
		spec.set("metadataOptions", m("httpTokens", "required", "httpPutResponseHopLimit", rapid.IntRange(1, 64).Draw(t, "hops")))
	}
	if rapid.Bool().Draw(t, "tags?") {
		spec.set("tags", m("team", "web"))
	}
	return m("apiVersion", "karpenter.k8s.aws/v1", "kind", "EC2NodeClass", "metadata", m("name", draw(t, "name", npNames[:4])), "spec", spec)
}

var nodeClassMutations = []struct {
	name   string
	mutate func(t *rapid.T, doc *mapping)
}{
	{"alias", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec").set("amiSelectorTerms", s(m("alias", draw(t, "alias", append(ncBadAlias, ncAliases...)))))
	}},
	{"alias with another term or field", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		if rapid.Bool().Draw(t, "field?") {
			spec.set("amiSelectorTerms", s(m("alias", "al2023@latest", draw(t, "field", []string{"id", "name", "owner"}), "ami-0abc")))
		} else {
			spec.set("amiSelectorTerms", s(m("alias", "al2023@latest"), m("name", "x")))
		}
	}},
	{"amiFamily", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		switch draw(t, "what", []string{"drop", "bad", "other", "null"}) {
		case "drop":
			spec.del("amiFamily")
		case "bad":
			spec.set("amiFamily", draw(t, "family", ncBadFamily))
		case "other":
			spec.set("amiFamily", draw(t, "family", ncFamilies))
		case "null":
			spec.set("amiFamily", plain("~"))
		}
	}},
	{"terms", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		field := draw(t, "list", []string{"amiSelectorTerms", "subnetSelectorTerms", "securityGroupSelectorTerms", "capacityReservationSelectorTerms"})
		switch draw(t, "what", []string{"drop", "empty", "empty term", "id and tags", "bad id", "tags", "null", "name and id"}) {
		case "drop":
			spec.del(field)
		case "empty":
			spec.set(field, s())
		case "empty term":
			spec.set(field, s(m()))
		case "id and tags":
			spec.set(field, s(m("id", "sg-1", "tags", m("a", "b"))))
		case "bad id":
			spec.set(field, s(m("id", draw(t, "id", []string{"sg_1", "subnet-", "ami-ABC", "cr-1", "cr-X", "x"}))))
		case "tags":
			spec.set(field, s(m("tags", draw(t, "tags", ncTags))))
		case "null":
			spec.set(field, plain("~"))
		case "name and id":
			spec.set(field, s(m("name", "x", "id", "sg-1")))
		}
	}},
	{"role and instance profile", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		switch draw(t, "what", []string{"both", "neither", "empty role", "empty profile"}) {
		case "both":
			spec.set("role", "r")
			spec.set("instanceProfile", "p")
		case "neither":
			spec.del("role")
			spec.del("instanceProfile")
		case "empty role":
			spec.del("instanceProfile")
			spec.set("role", "")
		case "empty profile":
			spec.del("role")
			spec.set("instanceProfile", "")
		}
	}},
	{"userData", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec").set("userData", draw(t, "userData", ncUserData))
	}},
	{"kubelet", func(t *rapid.T, doc *mapping) {
		k := doc.path(true, "spec", "kubelet")
		switch draw(t, "what", []string{"maxPods", "reserved key", "reserved negative", "eviction key", "soft without grace", "grace without soft", "grace not a duration", "gc", "clusterDNS", "threshold", "unknown"}) {
		case "maxPods":
			k.set("maxPods", draw(t, "n", []any{plain("-1"), plain("1.5"), "110", plain("4294967297"), plain("110.0")}))
		case "reserved key":
			k.set("kubeReserved", m("gpu", "1"))
		case "reserved negative":
			k.set("systemReserved", m("cpu", "-100m"))
		case "eviction key":
			k.set("evictionHard", m("memory.free", "10%"))
		case "soft without grace":
			k.set("evictionSoft", m("memory.available", "10%"))
			k.del("evictionSoftGracePeriod")
		case "grace without soft":
			k.del("evictionSoft")
			k.set("evictionSoftGracePeriod", m("memory.available", "1m"))
		case "grace not a duration":
			k.set("evictionSoft", m("memory.available", "10%"))
			k.set("evictionSoftGracePeriod", m("memory.available", draw(t, "d", []string{"1 minute", "90", "", "1m30s"})))
		case "gc":
			k.set("imageGCHighThresholdPercent", draw(t, "hi", []int{50, 85, 101}))
			k.set("imageGCLowThresholdPercent", draw(t, "lo", []int{50, 80}))
		case "clusterDNS":
			k.set("clusterDNS", draw(t, "dns", []any{s("10.100.0.10"), s(plain("~")), "10.100.0.10"}))
		case "threshold":
			k.set("evictionHard", m("memory.available", draw(t, "v", []string{"", "100.5%", "500Mi", "5 percent", "-1"})))
		case "unknown":
			k.set(draw(t, "field", []string{"maxpods", "kubeAPIQPS", "containerRuntime"}), 5)
		}
	}},
	{"block devices", func(t *rapid.T, doc *mapping) {
		ebs := m("volumeSize", draw(t, "size", []string{"20Gi", "0Gi", "64001G", "20GiB", "1Ti", "Ti", "100"}))
		if rapid.Bool().Draw(t, "rate?") {
			ebs.set("volumeInitializationRate", draw(t, "rate", []int{99, 100, 300, 301}))
		}
		if rapid.Bool().Draw(t, "no size?") {
			ebs.del("volumeSize")
		}
		bdm := s(m("deviceName", "/dev/xvda", "rootVolume", true, "ebs", ebs))
		if rapid.Bool().Draw(t, "two roots?") {
			bdm.items = append(bdm.items, m("deviceName", "/dev/xvdb", "rootVolume", true, "ebs", m("volumeSize", "10Gi")))
		}
		doc.path(true, "spec").set("blockDeviceMappings", bdm)
	}},
	{"metadata options", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec").set("metadataOptions", draw(t, "opts", []any{m(), m("httpTokens", "optional"), m("httpTokens", "off"), m("httpPutResponseHopLimit", 0), m("httpPutResponseHopLimit", 65), m("httpEndpoint", plain("on"))}))
	}},
	{"spec tags", func(t *rapid.T, doc *mapping) {
		doc.path(true, "spec").set("tags", m(draw(t, "key", []string{"eks:eks-cluster-name", "kubernetes.io/cluster/x", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass", "", "team"}), "x"))
	}},
	{"network", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		switch draw(t, "what", []string{"no primary", "duplicate", "efa", "connection tracking", "placement", "ipPrefixCount", "associatePublicIPAddress"}) {
		case "no primary":
			spec.set("networkInterfaces", s(m("networkCardIndex", 0, "deviceIndex", 1, "interfaceType", "interface")))
		case "duplicate":
			spec.set("networkInterfaces", s(m("networkCardIndex", 0, "deviceIndex", 0, "interfaceType", "interface"), m("networkCardIndex", 0, "deviceIndex", 0, "interfaceType", "efa-only")))
		case "efa":
			spec.set("networkInterfaces", s(m("networkCardIndex", 0, "deviceIndex", 0, "interfaceType", "interface"), m("networkCardIndex", 1, "deviceIndex", 0, "interfaceType", "efa-only")))
		case "connection tracking":
			spec.set("connectionTracking", draw(t, "ct", []any{m(), m("udpTimeout", 30), m("udpTimeout", 29)}))
		case "placement":
			spec.set("placementGroupSelector", draw(t, "pg", []any{m(), m("name", "x"), m("id", "pg-1", "name", "x"), m("name", "")}))
		case "ipPrefixCount":
			spec.set("ipPrefixCount", draw(t, "n", []any{0, plain("-1"), "2"}))
		case "associatePublicIPAddress":
			spec.set("associatePublicIPAddress", draw(t, "v", []any{true, plain("yes"), "true"}))
		}
	}},
	{"unknown field", func(t *rapid.T, doc *mapping) {
		switch draw(t, "where", []string{"spec", "term", "root", "status", "metadata", "case"}) {
		case "spec":
			doc.path(true, "spec").set(draw(t, "field", []string{"instanceProfileName", "detailedMonitorring", "amiSelector"}), "x")
		case "term":
			doc.path(true, "spec").set("amiSelectorTerms", s(m("name", "x", "architecture", "amd64")))
		case "root":
			doc.set("foo", 1)
		case "status":
			doc.set("status", draw(t, "status", []any{m(), m("foo", 1), m("amis", s(m("id", "ami-1", "x", 1)))}))
		case "metadata":
			doc.path(true, "metadata").set("foo", 1)
		case "case":
			doc.path(true, "spec").set("UserData", "x")
		}
	}},
	{"metadata", func(t *rapid.T, doc *mapping) {
		meta := doc.path(true, "metadata")
		switch draw(t, "what", []string{"resourceVersion", "finalizers", "name", "labels"}) {
		case "resourceVersion":
			meta.set("resourceVersion", draw(t, "rv", []any{"4711", "abc"}))
		case "finalizers":
			meta.set("finalizers", s(draw(t, "f", npFinalizers)))
		case "name":
			meta.set("name", draw(t, "name", npNames))
		case "labels":
			meta.set("labels", m("team", draw(t, "v", []any{plain("yes"), "-x", plain("~")})))
		}
	}},
	{"duplicate key", func(t *rapid.T, doc *mapping) {
		spec := doc.path(true, "spec")
		spec.add("amiFamily", "Ubuntu")
		spec.add("amiFamily", "AL2023")
	}},
}

// TestNodeClassesAgainstAPIServer is the differential test for
// EC2NodeClasses: ec2nodeclass.Decode, which examples/preflight reads
// them with, must refuse every document the API server refuses.
func TestNodeClassesAgainstAPIServer(t *testing.T) {
	_, api := apiServers(t)
	o := &outcomes{stricter: map[string]int{}, mutations: map[string]int{}}
	const rounds = 30 // 3,000 documents
	for range rounds {
		rapid.Check(t, func(t *rapid.T) {
			doc := drawNodeClassDoc(t)
			var applied []string
			for i := range rapid.IntRange(0, 3).Draw(t, "mutations") {
				mu := rapid.SampledFrom(nodeClassMutations).Draw(t, fmt.Sprintf("mutation[%d]", i))
				mu.mutate(t, doc)
				applied = append(applied, mu.name)
			}
			text := yamlText(doc)
			theirs := api.apply([]byte(text))
			_, ours := ec2nodeclass.Decode([]byte(text))
			o.add(applied, ours, theirs)
			if ours == nil && theirs != nil {
				t.Fatalf("ec2nodeclass.Decode accepts an EC2NodeClass kubectl apply refuses:\n%s\nkubectl/API server: %v", text, theirs)
			}
		})
		if t.Failed() {
			break
		}
	}
	o.report(t, "EC2NodeClasses")
	if o.cases < 3000 {
		t.Errorf("%d documents; want at least 3,000", o.cases)
	}
	for _, mu := range nodeClassMutations {
		if o.mutations[mu.name] == 0 {
			t.Errorf("mutation %q was never applied", mu.name)
		}
	}
}
