package ec2nodeclass

import (
	"regexp"
	"slices"
	"strings"

	"github.com/ec2select/ec2select/internal/schema"
)

// crd is the openAPIV3Schema of the karpenter.k8s.aws/v1 EC2NodeClass CRD
// of karpenter-provider-aws v1.14.1 (pkg/apis/crds/
// karpenter.k8s.aws_ec2nodeclasses.yaml at bde00654), field for field,
// with its x-kubernetes-validations rules in Go. A rule's comment gives
// its place in the CRD, under spec.versions[0].schema.openAPIV3Schema.
var crd = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"spec"},
	Properties: map[string]*schema.Schema{
		"apiVersion": {Type: schema.String},
		"kind":       {Type: schema.String},
		"metadata":   {Type: schema.Object},
		"spec":       specSchema,
		"status":     statusSchema,
	},
}

var (
	// evictionThreshold is a percentage or a quantity, or empty: the
	// CRD's "||" admits "".
	evictionThreshold = regexp.MustCompile(`^((\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%||(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?)$`)
	volumeSize        = regexp.MustCompile(`^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$`)
	// The id patterns are unanchored in the CRD: they match anywhere.
	amiID           = regexp.MustCompile(`ami-[0-9a-z]+`)
	securityGroupID = regexp.MustCompile(`sg-[0-9a-z]+`)
	subnetID        = regexp.MustCompile(`subnet-[0-9a-z]+`)
	reservationID   = regexp.MustCompile(`^cr-[0-9a-z]+$`)
	accountID       = regexp.MustCompile(`^[0-9]{12}$`)
	placementID     = regexp.MustCompile(`^pg-[0-9a-z]+$`)
	aliasFormat     = regexp.MustCompile(`^[a-zA-Z0-9]+@.+$`)
	// aliasFamily is the rules' x.alias.find('^[^@]+').
	aliasFamily = regexp.MustCompile(`^[^@]+`)
)

// evictionSignals are the keys evictionHard, evictionSoft and
// evictionSoftGracePeriod take.
var evictionSignals = []string{"memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available"}

// reservedResources are the keys kubeReserved and systemReserved take.
var reservedResources = []string{"cpu", "memory", "ephemeral-storage", "pid"}

func str(fix string) *schema.Schema { return &schema.Schema{Type: schema.String, Fix: fix} }

func pattern(re *regexp.Regexp, fix string) *schema.Schema {
	return &schema.Schema{Type: schema.String, Pattern: re, Fix: fix}
}

func enum(values ...string) *schema.Schema { return &schema.Schema{Type: schema.String, Enum: values} }

func integer(format string, min, max *int64) *schema.Schema {
	return &schema.Schema{Type: schema.Integer, Format: format, Minimum: min, Maximum: max}
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func has(v any, field string) bool {
	m, _ := v.(map[string]any)
	_, ok := m[field]
	return ok
}

// tagsSchema is the tags map of a selector term, with its rule
// (...Terms.items.properties.tags).
func tagsSchema() *schema.Schema {
	return &schema.Schema{
		Type: schema.Object, MaxProperties: 20, Additional: &schema.Schema{Type: schema.String},
		Rules: []schema.Rule{{CEL: `self.all(k, k != '' && self[k] != '')`, Message: "empty tag keys or values aren't supported",
			Fix: "give every tag a key and a value; to match any value, write \"*\"",
			Holds: func(v any) bool {
				for k, e := range v.(map[string]any) {
					if k == "" || e == "" {
						return false
					}
				}
				return true
			}}},
	}
}

// termsRule is a rule over a list of selector terms.
func termsRule(cel, message, fix string, holds func(terms []any) bool) schema.Rule {
	return schema.Rule{CEL: cel, Message: message, Fix: fix, Holds: func(v any) bool { return holds(v.([]any)) }}
}

// all is CEL's self.all over a list.
func all(l []any, f func(any) bool) bool {
	for _, e := range l {
		if !f(e) {
			return false
		}
	}
	return true
}

func hasAny(term any, fields ...string) bool {
	return slices.ContainsFunc(fields, func(f string) bool { return has(term, f) })
}

var amiSelectorTerms = &schema.Schema{
	Type: schema.Array, MinItems: 1, MaxItems: 30,
	Items: &schema.Schema{Type: schema.Object, Properties: map[string]*schema.Schema{
		"alias": {Type: schema.String, MaxLength: 30, Rules: aliasRules},
		"id":    pattern(amiID, "write an AMI ID such as ami-0123456789abcdef0"),
		"name":  str(""), "owner": str(""), "ssmParameter": str(""),
		"tags": tagsSchema(),
	}},
	// spec.properties.amiSelectorTerms.x-kubernetes-validations
	Rules: []schema.Rule{
		termsRule(`self.all(x, has(x.tags) || has(x.id) || has(x.name) || has(x.alias) || has(x.ssmParameter))`,
			"expected at least one, got none, ['tags', 'id', 'name', 'alias', 'ssmParameter']", "give each term an alias, an id, a name, tags or an ssmParameter",
			func(l []any) bool {
				return all(l, func(x any) bool { return hasAny(x, "tags", "id", "name", "alias", "ssmParameter") })
			}),
		termsRule(`!self.exists(x, has(x.id) && (has(x.alias) || has(x.tags) || has(x.name) || has(x.owner)))`,
			"'id' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms", "put an id in a term of its own",
			func(l []any) bool {
				return all(l, func(x any) bool { return !has(x, "id") || !hasAny(x, "alias", "tags", "name", "owner") })
			}),
		termsRule(`!self.exists(x, has(x.alias) && (has(x.id) || has(x.tags) || has(x.name) || has(x.owner)))`,
			"'alias' is mutually exclusive, cannot be set with a combination of other fields in amiSelectorTerms", "an alias term has the alias alone",
			func(l []any) bool {
				return all(l, func(x any) bool { return !has(x, "alias") || !hasAny(x, "id", "tags", "name", "owner") })
			}),
		termsRule(`!(self.exists(x, has(x.alias)) && self.size() != 1)`,
			"'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms", "an alias is the only term",
			func(l []any) bool { return len(l) == 1 || all(l, func(x any) bool { return !has(x, "alias") }) }),
	},
}

// aliasRules are ...amiSelectorTerms.items.properties.alias.
// x-kubernetes-validations.
var aliasRules = []schema.Rule{
	{CEL: `self.matches('^[a-zA-Z0-9]+@.+$')`, Message: "'alias' is improperly formatted, must match the format 'family@version'",
		Fix: "write family@version, such as al2023@latest", Holds: func(v any) bool { return aliasFormat.MatchString(v.(string)) }},
	{CEL: `self.split('@')[0] in ['al2','al2023','bottlerocket','windows2019','windows2022','windows2025']`,
		Message: "family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'",
		Holds: func(v any) bool {
			family, _, _ := strings.Cut(v.(string), "@")
			return slices.Contains([]string{"al2", "al2023", "bottlerocket", "windows2019", "windows2022", "windows2025"}, family)
		}},
	{CEL: `self.split('@')[0] in ['windows2019','windows2022','windows2025'] ? self.split('@')[1] == 'latest' : true`,
		Message: "windows families may only specify version 'latest'", Fix: "write windows2022@latest",
		Holds: func(v any) bool {
			parts := strings.Split(v.(string), "@")
			if !slices.Contains([]string{"windows2019", "windows2022", "windows2025"}, parts[0]) {
				return true
			}
			return len(parts) > 1 && parts[1] == "latest" // [1] out of range is an evaluation error
		}},
}

func selectorTerms(fields map[string]*schema.Schema, rules ...schema.Rule) *schema.Schema {
	return &schema.Schema{Type: schema.Array, MaxItems: 30, Items: &schema.Schema{Type: schema.Object, Properties: fields}, Rules: rules}
}

// notAll is the CRD's !self.all(x, has(x.f) && (others)): it holds when
// some term lacks the combination. The CRD writes all where it means
// exists, so a list in which only some terms combine them passes.
func notAll(field string, others ...string) func([]any) bool {
	return func(l []any) bool {
		return !all(l, func(x any) bool { return has(x, field) && hasAny(x, others...) })
	}
}

func nonEmptyList(field string) schema.Rule {
	return termsRule(`self.size() != 0`, field+" cannot be empty", "select at least one by id, name or tags",
		func(l []any) bool { return len(l) != 0 })
}

var kubeletSchema = &schema.Schema{
	Type: schema.Object,
	Properties: map[string]*schema.Schema{
		"clusterDNS":  {Type: schema.Array, Items: &schema.Schema{Type: schema.String}},
		"cpuCFSQuota": {Type: schema.Boolean},
		"evictionHard": {Type: schema.Object, Additional: pattern(evictionThreshold, "write a percentage such as 10% or a quantity such as 500Mi"),
			Rules: []schema.Rule{signalKeys("evictionHard")}},
		"evictionMaxPodGracePeriod": integer("int32", nil, nil),
		"evictionSoft": {Type: schema.Object, Additional: pattern(evictionThreshold, "write a percentage such as 10% or a quantity such as 500Mi"),
			Rules: []schema.Rule{signalKeys("evictionSoft")}},
		"evictionSoftGracePeriod":     {Type: schema.Object, Additional: &schema.Schema{Type: schema.String}, Rules: []schema.Rule{signalKeys("evictionSoftGracePeriod")}},
		"imageGCHighThresholdPercent": integer("int32", schema.Int(0), schema.Int(100)),
		"imageGCLowThresholdPercent":  integer("int32", schema.Int(0), schema.Int(100)),
		"kubeReserved":                reserved("kubeReserved"),
		"maxPods":                     integer("int32", schema.Int(0), nil),
		"podsPerCore":                 integer("int32", schema.Int(0), nil),
		"systemReserved":              reserved("systemReserved"),
	},
	// spec.properties.kubelet.x-kubernetes-validations
	Rules: []schema.Rule{
		{CEL: `has(self.imageGCHighThresholdPercent) && has(self.imageGCLowThresholdPercent) ?  self.imageGCHighThresholdPercent > self.imageGCLowThresholdPercent  : true`,
			Message: "imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent",
			Holds: func(v any) bool {
				m := v.(map[string]any)
				hi, okH := schema.AsInteger(m["imageGCHighThresholdPercent"])
				lo, okL := schema.AsInteger(m["imageGCLowThresholdPercent"])
				return !okH || !okL || hi > lo
			}},
		{CEL: `has(self.evictionSoft) ? self.evictionSoft.all(e, (e in self.evictionSoftGracePeriod)):true`,
			Message: "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod", Fix: "give every evictionSoft signal a grace period",
			Holds: func(v any) bool { return covered(v, "evictionSoft", "evictionSoftGracePeriod") }},
		{CEL: `has(self.evictionSoftGracePeriod) ? self.evictionSoftGracePeriod.all(e, (e in self.evictionSoft)):true`,
			Message: "evictionSoftGracePeriod OwnerKey does not have a matching evictionSoft", Fix: "give every grace period an evictionSoft threshold",
			Holds: func(v any) bool { return covered(v, "evictionSoftGracePeriod", "evictionSoft") }},
	},
}

// covered is "has(self.a) ? self.a.all(e, e in self.b) : true"; reading
// self.b when it is not set is an evaluation error.
func covered(v any, a, b string) bool {
	m := v.(map[string]any)
	am, ok := m[a].(map[string]any)
	if !ok {
		return true
	}
	bm, ok := m[b].(map[string]any)
	if !ok {
		return len(am) == 0
	}
	for k := range am {
		if _, ok := bm[k]; !ok {
			return false
		}
	}
	return true
}

func signalKeys(field string) schema.Rule {
	return schema.Rule{CEL: "self.all(x, x in [the six signals])",
		Message: "valid keys for " + field + " are ['memory.available','nodefs.available','nodefs.inodesFree','imagefs.available','imagefs.inodesFree','pid.available']",
		Holds: func(v any) bool {
			return all(toAny(keys(v)), func(k any) bool { return slices.Contains(evictionSignals, k.(string)) })
		}}
}

func reserved(field string) *schema.Schema {
	return &schema.Schema{
		Type:       schema.Object,
		Additional: pattern(schema.QuantityPattern, "write a quantity such as 100m or 1Gi"),
		Rules: []schema.Rule{
			{CEL: `self.all(x, x=='cpu' || x=='memory' || x=='ephemeral-storage' || x=='pid')`,
				Message: "valid keys for " + field + " are ['cpu','memory','ephemeral-storage','pid']",
				Holds: func(v any) bool {
					return all(toAny(keys(v)), func(k any) bool { return slices.Contains(reservedResources, k.(string)) })
				}},
			{CEL: `self.all(x, !self[x].startsWith('-'))`, Message: field + " value cannot be a negative resource quantity",
				Holds: func(v any) bool {
					for _, e := range v.(map[string]any) {
						if strings.HasPrefix(e.(string), "-") {
							return false
						}
					}
					return true
				}},
		},
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var blockDeviceMappings = &schema.Schema{
	Type: schema.Array, MaxItems: 50,
	Items: &schema.Schema{Type: schema.Object, Properties: map[string]*schema.Schema{
		"deviceName": str(""),
		"ebs": {
			Type: schema.Object,
			Properties: map[string]*schema.Schema{
				"deleteOnTermination":      {Type: schema.Boolean},
				"encrypted":                {Type: schema.Boolean},
				"iops":                     integer("int64", nil, nil),
				"kmsKeyID":                 str(""),
				"snapshotID":               str(""),
				"throughput":               integer("int64", nil, nil),
				"volumeInitializationRate": integer("int32", schema.Int(100), schema.Int(300)),
				"volumeSize":               pattern(volumeSize, "write a size such as 20Gi or 100G, up to 64000G"),
				"volumeType":               enum("standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"),
			},
			// ...blockDeviceMappings.items.properties.ebs.x-kubernetes-validations
			Rules: []schema.Rule{
				{CEL: `has(self.snapshotID) || has(self.volumeSize)`, Message: "snapshotID or volumeSize must be defined",
					Holds: func(v any) bool { return hasAny(v, "snapshotID", "volumeSize") }},
				{CEL: `!has(self.volumeInitializationRate) || (has(self.snapshotID) && self.snapshotID != '')`,
					Message: "snapshotID must be set when volumeInitializationRate is set",
					Holds: func(v any) bool {
						m := v.(map[string]any)
						return !has(m, "volumeInitializationRate") || has(m, "snapshotID") && m["snapshotID"] != ""
					}},
			},
		},
		"rootVolume": {Type: schema.Boolean},
	}},
	// spec.properties.blockDeviceMappings.x-kubernetes-validations
	Rules: []schema.Rule{termsRule(`self.filter(x, has(x.rootVolume)?x.rootVolume==true:false).size() <= 1`,
		"must have only one blockDeviceMappings with rootVolume", "mark one device rootVolume: true",
		func(l []any) bool {
			n := 0
			for _, x := range l {
				if m, _ := x.(map[string]any); m["rootVolume"] == true {
					n++
				}
			}
			return n <= 1
		})},
}

var networkInterfaces = &schema.Schema{
	Type: schema.Array, MaxItems: 150,
	Items: &schema.Schema{Type: schema.Object, Required: []string{"deviceIndex", "interfaceType", "networkCardIndex"},
		Properties: map[string]*schema.Schema{
			"deviceIndex":      integer("int32", schema.Int(0), nil),
			"interfaceType":    enum("interface", "efa-only"),
			"networkCardIndex": integer("int32", schema.Int(0), nil),
		}},
	// spec.properties.networkInterfaces.x-kubernetes-validations
	Rules: []schema.Rule{
		termsRule(`self.size() == 0 || self.exists(x, x.deviceIndex == 0 && x.networkCardIndex == 0 && x.interfaceType == 'interface')`,
			"networkInterfaces must include a primary interface with interfaceType='interface'", "add {networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}",
			func(l []any) bool {
				return len(l) == 0 || slices.ContainsFunc(l, func(x any) bool {
					m := x.(map[string]any)
					d, _ := schema.AsInteger(m["deviceIndex"])
					c, _ := schema.AsInteger(m["networkCardIndex"])
					return d == 0 && c == 0 && m["interfaceType"] == "interface"
				})
			}),
		termsRule(`self.all(x, self.filter(y, x.networkCardIndex == y.networkCardIndex && x.deviceIndex == y.deviceIndex).size() == 1 && (x.interfaceType != 'efa-only' || self.filter(y, x.networkCardIndex == y.networkCardIndex && y.interfaceType == 'efa-only').size() == 1))`,
			"networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card", "",
			func(l []any) bool {
				idx := func(x any, f string) int64 { n, _ := schema.AsInteger(x.(map[string]any)[f]); return n }
				return all(l, func(x any) bool {
					same, efa := 0, 0
					for _, y := range l {
						if idx(x, "networkCardIndex") == idx(y, "networkCardIndex") {
							if idx(x, "deviceIndex") == idx(y, "deviceIndex") {
								same++
							}
							if y.(map[string]any)["interfaceType"] == "efa-only" {
								efa++
							}
						}
					}
					return same == 1 && (x.(map[string]any)["interfaceType"] != "efa-only" || efa == 1)
				})
			}),
	},
}

// restrictedTags are the spec.tags rules (spec.properties.tags.
// x-kubernetes-validations).
var restrictedTags = []schema.Rule{
	tagRule(`self.all(k, k != '')`, "empty tag keys aren't supported", func(k string) bool { return k != "" }),
	tagRule(`self.all(k, k !='eks:eks-cluster-name')`, "tag contains a restricted tag matching eks:eks-cluster-name", func(k string) bool { return k != "eks:eks-cluster-name" }),
	tagRule(`self.all(k, !k.startsWith('kubernetes.io/cluster') )`, "tag contains a restricted tag matching kubernetes.io/cluster/", func(k string) bool { return !strings.HasPrefix(k, "kubernetes.io/cluster") }),
	tagRule(`self.all(k, k != 'karpenter.sh/nodepool')`, "tag contains a restricted tag matching karpenter.sh/nodepool", func(k string) bool { return k != "karpenter.sh/nodepool" }),
	tagRule(`self.all(k, k !='karpenter.sh/nodeclaim')`, "tag contains a restricted tag matching karpenter.sh/nodeclaim", func(k string) bool { return k != "karpenter.sh/nodeclaim" }),
	tagRule(`self.all(k, k !='karpenter.k8s.aws/ec2nodeclass')`, "tag contains a restricted tag matching karpenter.k8s.aws/ec2nodeclass", func(k string) bool { return k != "karpenter.k8s.aws/ec2nodeclass" }),
}

func tagRule(cel, message string, holds func(string) bool) schema.Rule {
	return schema.Rule{CEL: cel, Message: message, Fix: "Karpenter sets that tag itself; drop it", Holds: func(v any) bool {
		return all(toAny(keys(v)), func(k any) bool { return holds(k.(string)) })
	}}
}

var specSchema = &schema.Schema{
	Type:     schema.Object,
	Required: []string{"amiSelectorTerms", "securityGroupSelectorTerms", "subnetSelectorTerms"},
	Properties: map[string]*schema.Schema{
		"amiFamily":                enum("AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"),
		"amiSelectorTerms":         amiSelectorTerms,
		"associatePublicIPAddress": {Type: schema.Boolean},
		"blockDeviceMappings":      blockDeviceMappings,
		"capacityReservationSelectorTerms": selectorTerms(map[string]*schema.Schema{
			"id":                    pattern(reservationID, "write a capacity reservation ID such as cr-0123456789abcdef0"),
			"instanceMatchCriteria": enum("open", "targeted"),
			"ownerID":               pattern(accountID, "write a 12-digit account ID"),
			"tags":                  tagsSchema(),
		},
			termsRule(`self.all(x, has(x.tags) || has(x.id) || has(x.instanceMatchCriteria))`, "expected at least one, got none, ['tags', 'id', 'instanceMatchCriteria']", "",
				func(l []any) bool {
					return all(l, func(x any) bool { return hasAny(x, "tags", "id", "instanceMatchCriteria") })
				}),
			termsRule(`!self.all(x, has(x.id) && (has(x.tags) || has(x.ownerID) || has(x.instanceMatchCriteria)))`,
				"'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term", "", notAll("id", "tags", "ownerID", "instanceMatchCriteria"))),
		"connectionTracking": {Type: schema.Object, Properties: map[string]*schema.Schema{
			"tcpEstablishedTimeout": integer("int32", schema.Int(60), schema.Int(432000)),
			"udpStreamTimeout":      integer("int32", schema.Int(60), schema.Int(180)),
			"udpTimeout":            integer("int32", schema.Int(30), schema.Int(60)),
		}, Rules: []schema.Rule{{CEL: `has(self.tcpEstablishedTimeout) || has(self.udpStreamTimeout) || has(self.udpTimeout)`,
			Message: "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set",
			Holds:   func(v any) bool { return hasAny(v, "tcpEstablishedTimeout", "udpStreamTimeout", "udpTimeout") }}}},
		"context":            str(""),
		"cpuOptions":         {Type: schema.Object, Properties: map[string]*schema.Schema{"nestedVirtualization": enum("enabled", "disabled")}},
		"detailedMonitoring": {Type: schema.Boolean},
		"instanceProfile": {Type: schema.String, Rules: []schema.Rule{{CEL: `self != ''`, Message: "instanceProfile cannot be empty",
			Holds: func(v any) bool { return v != "" }}}},
		"instanceStorePolicy": enum("RAID0"),
		"ipPrefixCount":       integer("int32", schema.Int(0), nil),
		"kubelet":             kubeletSchema,
		"metadataOptions": {
			Type:    schema.Object,
			Default: map[string]any{"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": int64(1), "httpTokens": "required"},
			Properties: map[string]*schema.Schema{
				"httpEndpoint":            {Type: schema.String, Default: "enabled", Enum: []string{"enabled", "disabled"}},
				"httpProtocolIPv6":        {Type: schema.String, Default: "disabled", Enum: []string{"enabled", "disabled"}},
				"httpPutResponseHopLimit": {Type: schema.Integer, Format: "int64", Default: int64(1), Minimum: schema.Int(1), Maximum: schema.Int(64)},
				"httpTokens":              {Type: schema.String, Default: "required", Enum: []string{"required", "optional"}},
			},
		},
		"networkInterfaces": networkInterfaces,
		"placementGroupSelector": {Type: schema.Object, Properties: map[string]*schema.Schema{
			"id":   pattern(placementID, "write a placement group ID such as pg-0123456789abcdef0"),
			"name": {Type: schema.String, MinLength: 1},
		}, Rules: []schema.Rule{
			{CEL: `has(self.name) || has(self.id)`, Message: "expected at least one, got none, ['name', 'id']", Holds: func(v any) bool { return hasAny(v, "name", "id") }},
			{CEL: `!(has(self.name) && has(self.id))`, Message: "'name' and 'id' are mutually exclusive", Holds: func(v any) bool { return !has(v, "name") || !has(v, "id") }},
		}},
		"role": {Type: schema.String, Rules: []schema.Rule{{CEL: `self != ''`, Message: "role cannot be empty", Holds: func(v any) bool { return v != "" }}}},
		"securityGroupSelectorTerms": selectorTerms(map[string]*schema.Schema{
			"id": pattern(securityGroupID, "write a security group ID such as sg-0123456789abcdef0"), "name": str(""), "tags": tagsSchema(),
		},
			nonEmptyList("securityGroupSelectorTerms"),
			termsRule(`self.all(x, has(x.tags) || has(x.id) || has(x.name))`, "expected at least one, got none, ['tags', 'id', 'name']", "",
				func(l []any) bool { return all(l, func(x any) bool { return hasAny(x, "tags", "id", "name") }) }),
			termsRule(`!self.all(x, has(x.id) && (has(x.tags) || has(x.name)))`, "'id' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term", "", notAll("id", "tags", "name")),
			termsRule(`!self.all(x, has(x.name) && (has(x.tags) || has(x.id)))`, "'name' is mutually exclusive, cannot be set with a combination of other fields in a security group selector term", "", notAll("name", "tags", "id"))),
		"subnetSelectorTerms": selectorTerms(map[string]*schema.Schema{
			"id": pattern(subnetID, "write a subnet ID such as subnet-0123456789abcdef0"), "tags": tagsSchema(),
		},
			nonEmptyList("subnetSelectorTerms"),
			termsRule(`self.all(x, has(x.tags) || has(x.id))`, "expected at least one, got none, ['tags', 'id']", "",
				func(l []any) bool { return all(l, func(x any) bool { return hasAny(x, "tags", "id") }) }),
			termsRule(`!self.all(x, has(x.id) && has(x.tags))`, "'id' is mutually exclusive, cannot be set with a combination of other fields in a subnet selector term", "", notAll("id", "tags"))),
		"tags":     {Type: schema.Object, Additional: &schema.Schema{Type: schema.String}, Rules: restrictedTags},
		"userData": str(""),
	},
	// spec.x-kubernetes-validations
	Rules: append([]schema.Rule{
		{CEL: `(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && has(self.instanceProfile))`,
			Message: "must specify exactly one of ['role', 'instanceProfile']", Fix: "set spec.role (Karpenter makes the instance profile) or spec.instanceProfile, not both",
			Holds: func(v any) bool { return has(v, "role") != has(v, "instanceProfile") }},
		{CEL: `self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)`,
			Message: "must specify amiFamily if amiSelectorTerms does not contain an alias", Fix: "set spec.amiFamily (AL2023, Bottlerocket, Custom...) or select by an alias",
			Holds: func(v any) bool {
				terms, _ := v.(map[string]any)["amiSelectorTerms"].([]any)
				return has(v, "amiFamily") || slices.ContainsFunc(terms, func(x any) bool { return has(x, "alias") })
			}},
	}, aliasFamilyRules()...),
}

// aliasFamilyRules are the six rules that tie amiFamily to an alias's
// family: if set, amiFamily is the alias's family or Custom.
func aliasFamilyRules() []schema.Rule {
	var rules []schema.Rule
	for _, f := range []struct{ alias, family string }{
		{"al2", "AL2"}, {"al2023", "AL2023"}, {"bottlerocket", "Bottlerocket"},
		{"windows2019", "Windows2019"}, {"windows2022", "Windows2022"}, {"windows2025", "Windows2025"},
	} {
		rules = append(rules, schema.Rule{
			CEL:     `!has(self.amiFamily) || (self.amiSelectorTerms.exists(x, has(x.alias) && x.alias.find('^[^@]+') == '` + f.alias + `') ? (self.amiFamily == 'Custom' || self.amiFamily == '` + f.family + `') : true)`,
			Message: "if set, amiFamily must be '" + f.family + "' or 'Custom' when using an " + f.family + " alias",
			Fix:     "drop spec.amiFamily (the alias sets it), or set it to Custom to pass spec.userData through as it is",
			Holds: func(v any) bool {
				m := v.(map[string]any)
				family, ok := m["amiFamily"]
				if !ok {
					return true
				}
				terms, _ := m["amiSelectorTerms"].([]any)
				uses := slices.ContainsFunc(terms, func(x any) bool {
					a, ok := x.(map[string]any)["alias"].(string)
					return ok && aliasFamily.FindString(a) == f.alias
				})
				return !uses || family == "Custom" || family == f.family
			},
		})
	}
	return rules
}

// statusSchema is the shape of status, which Karpenter writes; only
// pruning reads it, since the API server drops status on create.
var statusSchema = &schema.Schema{Type: schema.Object, Properties: map[string]*schema.Schema{
	"amis": objects(map[string]*schema.Schema{
		"deprecated": {Type: schema.Boolean}, "id": str(""), "name": str(""),
		"requirements": objects(map[string]*schema.Schema{"key": str(""), "operator": str(""), "values": {Type: schema.Array, Items: str("")}}),
	}),
	"capacityReservations": objects(map[string]*schema.Schema{
		"availabilityZone": str(""), "endTime": str(""), "id": str(""), "instanceMatchCriteria": str(""), "instanceType": str(""),
		"interruptible": {Type: schema.Boolean}, "ownerID": str(""), "reservationType": str(""), "state": str(""),
	}),
	"conditions": objects(map[string]*schema.Schema{
		"lastTransitionTime": str(""), "message": str(""), "observedGeneration": {Type: schema.Integer},
		"reason": str(""), "status": str(""), "type": str(""),
	}),
	"instanceProfile": str(""),
	"securityGroups":  objects(map[string]*schema.Schema{"id": str(""), "name": str("")}),
	"subnets":         objects(map[string]*schema.Schema{"id": str(""), "zone": str(""), "zoneID": str("")}),
}}

func objects(fields map[string]*schema.Schema) *schema.Schema {
	return &schema.Schema{Type: schema.Array, Items: &schema.Schema{Type: schema.Object, Properties: fields}}
}
