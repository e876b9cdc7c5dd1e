package userdata_test

import (
	"fmt"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// The userData from the bug report: the '=' form is dropped by
// bootstrap.sh, so the node joins with only the taint the kubelet adds
// itself (bootstrap.sh runs it with --cloud-provider=external).
func ExampleLint() {
	userData := []byte(`#!/bin/bash
/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args='--register-with-taints="karpenter.sh/uninitialized:NoExecute"'
`)
	required := []userdata.Taint{{Key: "karpenter.sh/uninitialized", Effect: userdata.NoExecute}}
	report, err := userdata.Lint(compat.AL2, userData, required)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report)
	// Output:
	// verdict: joins
	// taints: node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule (added by the kubelet)
	// line 2: error equals-form-ignored: --kubelet-extra-args= is ignored by bootstrap.sh: it matches options exactly, so "--kubelet-extra-args=--register-with-taints=\"karpenter.sh/uninitialized:NoExecute\"" is an extra positional argument and is silently dropped
	//     fix: /etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints="karpenter.sh/uninitialized:NoExecute"'
	// line 2: error required-taint-missing: required taint karpenter.sh/uninitialized:NoExecute missing: the kubelet will register the node without it
	//     fix: put --register-with-taints=karpenter.sh/uninitialized:NoExecute in --kubelet-extra-args '...' (one flag, space after --kubelet-extra-args)
}

func ExampleRender() {
	cfg := userdata.Config{
		ClusterName:       "my-cluster",
		APIServerEndpoint: "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
		CABundle:          "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
		Taints:            []userdata.Taint{{Key: "example.com/gpu", Value: "true", Effect: userdata.NoSchedule}},
		Labels:            map[string]string{"example.com/team": "ml"},
		CustomUserData:    []byte("[settings.host-containers.admin]\nenabled = true\n"),
	}
	out, err := userdata.Render(compat.Bottlerocket, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))

	report, _ := userdata.Lint(compat.Bottlerocket, out, nil)
	fmt.Println(report)
	// Output:
	// [settings]
	// [settings.host-containers]
	// [settings.host-containers.admin]
	// enabled = true
	//
	// [settings.kubernetes]
	// api-server = 'https://ABCDEF.gr7.us-west-2.eks.amazonaws.com'
	// cluster-certificate = 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo='
	// cluster-name = 'my-cluster'
	//
	// [settings.kubernetes.node-labels]
	// 'example.com/team' = 'ml'
	//
	// [settings.kubernetes.node-taints]
	// 'example.com/gpu' = ['true:NoSchedule']
	// 'karpenter.sh/unregistered' = [':NoExecute']
	// verdict: joins
	// taints: example.com/gpu=true:NoSchedule, karpenter.sh/unregistered:NoExecute, node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule (added by the kubelet)
	// labels: example.com/team=ml
	// problems: none
}

func ExampleParseTaints() {
	taints, err := userdata.ParseTaints("team=ml:NoSchedule,karpenter.sh/unregistered:NoExecute")
	fmt.Println(taints, err)
	_, err = userdata.ParseTaints("env=prod:NoSchedule,env=staging:NoSchedule")
	fmt.Println(err)
	// Output:
	// [team=ml:NoSchedule karpenter.sh/unregistered:NoExecute] <nil>
	// userdata: taint list "env=prod:NoSchedule,env=staging:NoSchedule" has "env=prod:NoSchedule" and "env=staging:NoSchedule", which share key and effect; the kubelet refuses to start with both, so keep one
}

// What the linter cannot follow is Unresolved, with the line: here the
// join's arguments come from eval.
func ExampleLint_unresolved() {
	userData := []byte(`#!/bin/bash
set -e
eval "$(aws ssm get-parameter --name /eks/join --query Parameter.Value --output text)"
`)
	report, err := userdata.Lint(compat.AL2, userData, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Verdict, report.Line)
	fmt.Println(report.Reason)
	// Output:
	// unresolved 3
	// eval, source or '.': runs text the walker cannot read: the linter cannot follow it, and it may call bootstrap.sh or start the kubelet
}

// A feature gate the kubelet of Kubernetes 1.33 and later no longer
// knows: Lint judges it for the release it is told, and cannot tell
// without one.
func ExampleKubernetesVersion() {
	userData := []byte(`apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: my-cluster
    apiServerEndpoint: https://ABCDEF.gr7.us-west-2.eks.amazonaws.com
    certificateAuthority: Y2E=
    cidr: 10.100.0.0/16
  kubelet:
    config:
      featureGates:
        DisableKubeletCloudCredentialProviders: true
`)
	for _, version := range []string{"1.31", "1.35", ""} {
		report, err := userdata.Lint(compat.AL2023, userData, nil, userdata.KubernetesVersion(version))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q: %v\n", version, report.Verdict)
		if report.Reason != "" {
			fmt.Printf("  %s\n", report.Reason)
		}
	}
	// Output:
	// "1.31": joins
	// "1.35": never-joins
	//   spec.kubelet.config.featureGates sets the feature gates of the kubelet, and in Kubernetes 1.35 the kubelet has no feature gate DisableKubeletCloudCredentialProviders ("unrecognized feature gate"), so the kubelet exits
	// "": unresolved
	//   spec.kubelet.config.featureGates sets the feature gates of the kubelet: in Kubernetes 1.33–1.36 the kubelet has no feature gate DisableKubeletCloudCredentialProviders ("unrecognized feature gate"), so that kubelet exits; the other releases the AMI may run (1.28–1.32) start
}

// A Bottlerocket setting only the NVIDIA variants have: Lint warns, scoped
// to the other variants, until it is told the AMI.
func ExampleAMI() {
	userData := []byte(`[settings.kubernetes]
cluster-name = 'my-cluster'
api-server = 'https://ABCDEF.gr7.us-west-2.eks.amazonaws.com'
[settings.kubernetes.node-taints]
'karpenter.sh/unregistered' = [':NoExecute']
[settings.kubelet-device-plugins.nvidia]
device-sharing-strategy = 'time-slicing'
`)
	for _, variant := range []string{"", "nvidia", "standard"} {
		report, err := userdata.Lint(compat.Bottlerocket, userData, nil, userdata.AMI(variant, "v1.50.0"))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%q: %v\n", variant, report.Verdict)
		for _, p := range report.Problems {
			fmt.Printf("  %s %s (scoped: %v)\n", p.Severity, p.Code, p.AMIs.Scoped())
		}
	}
	// Output:
	// "": joins
	//   warning variant-setting (scoped: true)
	// "nvidia": joins
	// "standard": never-joins
	//   error refused-setting (scoped: false)
}

// Report.Kubelet is what the kubelet gets, nodeadm's own entries
// included; UserKubelet is what the userData sets.
func ExampleReport_UserKubelet() {
	userData := []byte(`apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: my-cluster
    apiServerEndpoint: https://ABCDEF.gr7.us-west-2.eks.amazonaws.com
    certificateAuthority: Y2E=
    cidr: 10.100.0.0/16
  kubelet:
    config:
      evictionHard:
        memory.available: 200Mi
`)
	report, err := userdata.Lint(compat.AL2023, userData, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(report.Verdict)
	fmt.Println("kubelet:", report.Kubelet.EvictionHard, report.Kubelet.ClusterDNS)
	user := report.UserKubelet()
	fmt.Println("userData:", user.EvictionHard, user.ClusterDNS)
	// Output:
	// joins
	// kubelet: map[memory.available:200Mi nodefs.available:10% nodefs.inodesFree:5%] [10.100.0.10]
	// userData: map[memory.available:200Mi] []
}

// Migrate moves AL2 userData to Bottlerocket: each bootstrap.sh option
// and kubelet flag to a setting, a sysctl to settings.kernel.sysctl, and
// proves it: Lint of both registers the same taints, labels and kubelet
// configuration.
func ExampleMigrate() {
	al2 := []byte(`#!/bin/bash
set -ex
sysctl -w vm.max_map_count=262144
/etc/eks/bootstrap.sh my-cluster \
  --apiserver-endpoint https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com \
  --b64-cluster-ca LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo= \
  --kubelet-extra-args '--register-with-taints=karpenter.sh/unregistered:NoExecute --max-pods=58'
`)
	m, err := userdata.Migrate(al2, compat.Bottlerocket, userdata.MigrateOptions{Required: []userdata.Taint{userdata.UnregisteredTaint()}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, mv := range m.Moved {
		fmt.Printf("line %d: %s → %s\n", mv.Line, mv.From, mv.To)
	}
	fmt.Println(m.Before.Verdict, "→", m.After.Verdict, m.After.Taints[0])
	// Output:
	// line 4: bootstrap.sh my-cluster → settings.kubernetes.cluster-name
	// line 5: bootstrap.sh --apiserver-endpoint → settings.kubernetes.api-server
	// line 6: bootstrap.sh --b64-cluster-ca → settings.kubernetes.cluster-certificate
	// line 7: --register-with-taints=karpenter.sh/unregistered:NoExecute → settings.kubernetes.node-taints
	// line 7: --max-pods=58 → settings.kubernetes.max-pods
	// line 3: sysctl vm.max_map_count=262144 → settings.kernel.sysctl."vm.max_map_count"
	// joins → joins karpenter.sh/unregistered:NoExecute
}
