package ec2nodeclass

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

// base is a valid EC2NodeClass, the shape of karpenter-provider-aws
// v1.14.1's examples/v1/general-purpose.yaml.
const base = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: default
spec:
  role: "KarpenterNodeRole-my-cluster"
  amiSelectorTerms:
    - alias: al2023@latest
  subnetSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
  securityGroupSelectorTerms:
    - tags:
        karpenter.sh/discovery: "my-cluster"
`

func with(old, new string) string { return strings.Replace(base, old, new, 1) }

func TestDecode(t *testing.T) {
	c, err := Decode([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "default" || c.Family() != compat.AL2023 || c.Alias() != "al2023@latest" || c.HasUserData || c.Role == "" {
		t.Errorf("Decode = %+v", c)
	}
	// amiFamily: Custom with an alias, as examples/v1/custom-family-with-
	// alias.yaml writes it: the CRD allows it, and Karpenter passes the
	// userData through unchanged (ec2nodeclass.go L666-675).
	custom, err := Decode([]byte(with("  amiSelectorTerms:", "  amiFamily: Custom\n  userData: |\n    #!/bin/bash\n    echo hi\n  amiSelectorTerms:")))
	if err != nil {
		t.Fatal(err)
	}
	if custom.Family() != compat.Custom || custom.UserData != "#!/bin/bash\necho hi\n" || !custom.HasUserData {
		t.Errorf("Custom with an alias = family %s, userData %q", custom.Family(), custom.UserData)
	}
	k, err := Decode([]byte(with("  amiSelectorTerms:", "  kubelet:\n    maxPods: 110\n    evictionSoft: {memory.available: 10%}\n    evictionSoftGracePeriod: {memory.available: 1m30s}\n  amiSelectorTerms:")))
	if err != nil {
		t.Fatal(err)
	}
	if !k.HasKubelet || *k.Kubelet.MaxPods != 110 || k.Kubelet.EvictionSoftGracePeriod["memory.available"] != 90*time.Second {
		t.Errorf("kubelet = %+v", k.Kubelet)
	}
	terms, err := Decode([]byte(with("    - alias: al2023@latest", "    - name: my-ami-*\n      owner: self\n    - tags: {team: web}\n  amiFamily: Bottlerocket")))
	if err != nil {
		t.Fatal(err)
	}
	want := []amiselect.Term{{Name: "my-ami-*", Owner: "self"}, {Tags: map[string]string{"team": "web"}}}
	if diff := cmp.Diff(want, terms.AMISelectorTerms); diff != "" || terms.Family() != compat.Bottlerocket {
		t.Errorf("terms (-want +got):\n%s; family %s", diff, terms.Family())
	}
}

// Every row breaks one rule of the v1.14.1 CRD (the path under
// spec.versions[0].schema.openAPIV3Schema is given), or one of Karpenter's
// that the CRD does not have.
func TestDecodeErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"no amiFamily without an alias", with("    - alias: al2023@latest", "    - name: x"), "must specify amiFamily if amiSelectorTerms does not contain an alias"},          // spec.x-kubernetes-validations
		{"amiFamily disagrees with the alias", with("  amiSelectorTerms:", "  amiFamily: Bottlerocket\n  amiSelectorTerms:"), "if set, amiFamily must be 'AL2023' or 'Custom'"}, // spec.x-kubernetes-validations
		{"alias with another term", with("    - alias: al2023@latest", "    - alias: al2023@latest\n    - name: x"), "'alias' is mutually exclusive, cannot be set with a combination of other amiSelectorTerms"},
		{"alias and id", with("    - alias: al2023@latest", "    - alias: al2023@latest\n      id: ami-1"), "'id' is mutually exclusive"},
		{"alias format", with("al2023@latest", "al2023"), "'alias' is improperly formatted"},
		{"alias family", with("al2023@latest", "ubuntu@latest"), "family is not supported"},
		{"windows version", with("al2023@latest", "windows2022@v1"), "windows families may only specify version 'latest'"},
		{"alias with two @", with("al2023@latest", "al2023@v1@x"), `"al2023@v1@x" has more than one '@'`},
		{"role and profile", with("  role:", "  instanceProfile: p\n  role:"), "must specify exactly one of ['role', 'instanceProfile']"},
		{"no subnets", with("  subnetSelectorTerms:\n    - tags:\n        karpenter.sh/discovery: \"my-cluster\"\n", ""), "spec.subnetSelectorTerms: is required and not set"},
		{"empty tag value", with(`karpenter.sh/discovery: "my-cluster"`, `karpenter.sh/discovery: ""`), "empty tag keys or values aren't supported"},
		{"subnet id", with("    - tags:\n        karpenter.sh/discovery: \"my-cluster\"\n  securityGroupSelectorTerms:", "    - id: sn-1\n  securityGroupSelectorTerms:"), "does not match the CRD's pattern subnet-[0-9a-z]+"},
		{"kubelet key", with("  amiSelectorTerms:", "  kubelet: {kubeReserved: {gpu: '1'}}\n  amiSelectorTerms:"), "valid keys for kubeReserved are"},
		{"grace period", with("  amiSelectorTerms:", "  kubelet: {evictionSoft: {memory.available: 10%}, evictionSoftGracePeriod: {memory.available: 1 minute}}\n  amiSelectorTerms:"), "cannot read it"},
		{"soft without grace", with("  amiSelectorTerms:", "  kubelet: {evictionSoft: {memory.available: 10%}}\n  amiSelectorTerms:"), "evictionSoft OwnerKey does not have a matching evictionSoftGracePeriod"},
		{"volume size", with("  amiSelectorTerms:", "  blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: 20GiB}}]\n  amiSelectorTerms:"), "blockDeviceMappings[0].ebs.volumeSize"},
		{"restricted tag", with("  amiSelectorTerms:", "  tags: {karpenter.sh/nodepool: x}\n  amiSelectorTerms:"), "tag contains a restricted tag matching karpenter.sh/nodepool"},
		{"unknown field", with("  amiSelectorTerms:", "  amiSelector: {}\n  amiSelectorTerms:"), "spec.amiSelector: is not a field of the CRD"},
		{"YAML 1.1", with(`role: "KarpenterNodeRole-my-cluster"`, "role: yes"), "spec.role: true is a boolean"},
		{"resourceVersion", with("  name: default", "  name: default\n  resourceVersion: '1'"), "metadata.resourceVersion: is set"},
		{"wrong kind", with("kind: EC2NodeClass", "kind: NodeClass"), `kind "NodeClass"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "ec2nodeclass: ") {
				t.Fatalf("Decode = %v; want an error containing %q", err, tt.want)
			}
			var e *Error
			if tt.name != "wrong kind" && !errors.As(err, &e) {
				t.Errorf("Decode error %T is not an *Error", err)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(base)
	f.Add(with("  amiSelectorTerms:", "  amiFamily: Custom\n  kubelet: {maxPods: 08}\n  amiSelectorTerms:"))
	f.Add("apiVersion: karpenter.k8s.aws/v1\nkind: EC2NodeClass\nspec: {amiSelectorTerms: [{alias: 'windows2022'}]}")
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := Decode([]byte(doc))
		if err == nil && c.Name == "" {
			t.Fatalf("Decode accepted an EC2NodeClass with no name:\n%s", doc)
		}
	})
}
