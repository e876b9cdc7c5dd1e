package karpenter_test

import (
	"context"
	"encoding/base64"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/amiselect"
	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/examples/karpenter"
	"github.com/ec2select/ec2select/userdata"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
	"github.com/aws/karpenter-provider-aws/pkg/providers/launchtemplate"
)

// resolverClaim is a NodeClaim whose labels include ones the node
// restriction admission plugin refuses (Karpenter drops them,
// resolver.go:356-381) and whose startup taints already hold
// karpenter.sh/unregistered (Karpenter does not add it twice,
// resolver.go:292-296).
func resolverClaim() *karpv1.NodeClaim {
	return &karpv1.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "default-abcde", Labels: map[string]string{
			karpv1.NodePoolLabelKey: "default", "team": "ml", "example.com/pool": "general",
			corev1.LabelArchStable: "amd64", corev1.LabelTopologyZone: "test-zone-1a",
			"node-restriction.kubernetes.io/owner": "ops", "example.k8s.io/tier": "a",
			karpv1.CapacityTypeLabelKey: "spot",
		}},
		Spec: karpv1.NodeClaimSpec{
			Taints: []corev1.Taint{{Key: "example.com/dedicated", Value: "ml", Effect: corev1.TaintEffectNoSchedule}},
			StartupTaints: []corev1.Taint{
				{Key: "example.com/agent-not-ready", Effect: corev1.TaintEffectNoExecute},
				{Key: karpv1.UnregisteredTaintKey, Effect: corev1.TaintEffectNoExecute},
			},
		},
	}
}

// createAMIOptionsLabels is what launchtemplate.CreateAMIOptions gives the
// resolver as labels (launchtemplate.go:149-152, 213-214, 560-570): the
// NodeClaim's, capacity-type set, do-not-sync-taints for every family but
// Custom. The launchtemplate package is not in this module's graph (it
// needs modules Karpenter's other providers bring), so this is written
// out; the resolver's own RejectForbiddenLabels then runs as Karpenter's.
func createAMIOptionsLabels(family string, claim *karpv1.NodeClaim, capacityType string) map[string]string {
	labels := maps.Clone(claim.Labels)
	labels[karpv1.CapacityTypeLabelKey] = capacityType
	if family != v1.AMIFamilyCustom {
		labels[karpv1.NodeDoNotSyncTaintsLabelKey] = "true"
	}
	return labels
}

// lintFacts are what a node boots with, as Lint reads a userData: the
// taints and labels the kubelet registers, its maxPods and clusterDNS.
type lintFacts struct {
	Verdict    string
	Taints     []string
	Labels     map[string]string
	MaxPods    int32
	ClusterDNS []string
}

func lintOf(t *testing.T, family compat.AMIFamily, data []byte) lintFacts {
	t.Helper()
	r, err := userdata.Lint(family, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := lintFacts{Verdict: r.Verdict.String(), Labels: r.Labels, ClusterDNS: r.Kubelet.ClusterDNS}
	for _, rt := range r.Taints {
		f.Taints = append(f.Taints, rt.Taint.String())
	}
	slices.Sort(f.Taints)
	if r.Kubelet.MaxPods != nil {
		f.MaxPods = *r.Kubelet.MaxPods
	}
	return f
}

// TestUserDataAsKarpenterResolver: for AL2, AL2023, Bottlerocket and
// Windows Server 2022,
// Karpenter's own amifamily.DefaultResolver.Resolve (resolver.go:147-213)
// builds the launch templates of a NodeClaim over the instance types of
// its fake EC2 API, and the adapter builds the same groups (LaunchGroups)
// and the fork's (ResolverUserData, whose Script renders it); Lint reads
// both userData alike:
// the same image and instance types per launch template, and the same
// registered taints, labels, maxPods and clusterDNS. The text differs by
// design (README "From Karpenter").
func TestUserDataAsKarpenterResolver(t *testing.T) {
	t.Parallel()
	infos := awsFakeInfos(t)
	for _, family := range []string{"al2", "al2023", "bottlerocket", "windows2022"} {
		t.Run(family, func(t *testing.T) {
			f, err := compat.ParseAMIFamily(family)
			if err != nil {
				t.Fatal(err)
			}
			status := karpenterStatus(t, family)
			nc := nodeClassWith(v1.AMISelectorTerm{Alias: family + "@latest"})
			nc.Spec.Kubelet = &v1.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "5%"}}
			if f == compat.AL2 {
				// See TestAL2PercentEviction.
				nc.Spec.Kubelet.EvictionHard["memory.available"] = "500Mi"
			}
			nc.Status.AMIs = status
			claim := resolverClaim()
			offered := karpenterTypes(infos, string(f), *nc.Spec.Kubelet)
			opts := &amifamily.Options{
				ClusterName: "test-cluster", ClusterEndpoint: "https://test-cluster", ClusterCIDR: ptr("10.100.0.0/16"),
				CABundle: ptr(brCA), KubeDNSIP: net.ParseIP("10.0.100.10"), NodeClassName: nc.Name,
				AMISelectorTerms: nc.Spec.AMISelectorTerms, AMIs: status,
				Labels: createAMIOptionsLabels(string(f), claim, karpv1.CapacityTypeOnDemand),
			}
			templates, err := amifamily.NewDefaultResolver("us-west-2").Resolve(nc, claim, offered, karpv1.CapacityTypeOnDemand, "default", opts, "", 0)
			if err != nil {
				t.Fatal(err)
			}

			amis, err := karpenter.AMIsFromStatus(f, status)
			if err != nil {
				t.Fatal(err)
			}
			types, err := karpenter.InstanceTypesFromKarpenter(offered)
			if err != nil {
				t.Fatal(err)
			}
			groups := karpenter.LaunchGroups(amiselect.Map(types, amis), offered)
			if len(groups) != len(templates) {
				t.Errorf("%d launch groups, Karpenter resolved %d launch templates", len(groups), len(templates))
			}
			cluster := karpenter.Cluster{Name: "test-cluster", Endpoint: "https://test-cluster", CABundle: brCA, CIDR: "10.100.0.0/16", DNSIP: "10.0.100.10"}
			for _, lt := range templates {
				var names []string
				for _, it := range lt.InstanceTypes {
					names = append(names, it.Name)
				}
				slices.Sort(names)
				maxPods := int32(lt.InstanceTypes[0].Capacity.Pods().Value())
				i := slices.IndexFunc(groups, func(g karpenter.LaunchGroup) bool { return g.ImageID == lt.AMIID && g.MaxPods == maxPods })
				if i < 0 {
					t.Errorf("no launch group for %s with maxPods %d (%v)", lt.AMIID, maxPods, names)
					continue
				}
				var ours []string
				for _, it := range groups[i].InstanceTypes {
					ours = append(ours, it.Name)
				}
				slices.Sort(ours)
				if diff := cmp.Diff(names, ours); diff != "" {
					t.Errorf("%s maxPods %d: instance types (-Karpenter +LaunchGroups):\n%s", lt.AMIID, maxPods, diff)
				}
				script, err := lt.UserData.Script(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := base64.StdEncoding.DecodeString(script)
				if err != nil {
					t.Fatal(err)
				}
				// The fork's resolver has the image ID, maxPods and
				// types of the template, not the launch group.
				ud := karpenter.ResolverUserData(nc, claim, karpv1.CapacityTypeOnDemand, cluster, lt.AMIID, int(maxPods), lt.InstanceTypes)
				ourScript, err := ud.Script(context.Background())
				if err != nil {
					t.Fatalf("Script: %v", err)
				}
				rendered, err := base64.StdEncoding.DecodeString(ourScript)
				if err != nil {
					t.Fatal(err)
				}
				want, got := lintOf(t, f, theirs), lintOf(t, f, rendered)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s maxPods %d: what the node boots with (-Karpenter +Render):\n%s\nKarpenter's userData:\n%s", lt.AMIID, maxPods, diff, theirs)
				}
				if want.Verdict != "joins" || len(want.Taints) < 3 || want.Labels["team"] != "ml" || strings.Contains(strings.Join(slices.Collect(maps.Keys(want.Labels)), ","), "kubernetes.io") {
					t.Errorf("Karpenter's userData boots with %+v; the fixture tests less than it should", want)
				}
			}
		})
	}
}

// TestAL2PercentEviction: with a percentage evictionHard, Karpenter's AL2
// userData passes "memory.available<5%" in --kubelet-extra-args
// (bootstrap/eksbootstrap.go, kubeletExtraArgs), which bootstrap.sh copies
// unescaped into a systemd drop-in's Environment= line, where '%' is a
// specifier; Lint does not call such a node joined. Render's AL2 userData
// for the same spec.kubelet joins. A fork's AL2 specs asserting
// --eviction-hard text with '%' are among those to rewrite.
func TestAL2PercentEviction(t *testing.T) {
	t.Parallel()
	status := karpenterStatus(t, "al2")
	nc := nodeClassWith(v1.AMISelectorTerm{Alias: "al2@latest"})
	nc.Spec.Kubelet = &v1.KubeletConfiguration{MaxPods: ptr[int32](29), EvictionHard: map[string]string{"memory.available": "5%"}}
	nc.Status.AMIs = status
	claim := resolverClaim()
	offered := karpenterTypes(awsFakeInfos(t)[:1], v1.AMIFamilyAL2, *nc.Spec.Kubelet)
	opts := &amifamily.Options{ClusterName: "test-cluster", ClusterEndpoint: "https://test-cluster", CABundle: ptr(brCA),
		Labels: createAMIOptionsLabels(v1.AMIFamilyAL2, claim, karpv1.CapacityTypeOnDemand)}
	templates, err := amifamily.NewDefaultResolver("us-west-2").Resolve(nc, claim, offered, karpv1.CapacityTypeOnDemand, "default", opts, "", 0)
	if err != nil || len(templates) != 1 {
		t.Fatalf("Resolve = %d templates, %v", len(templates), err)
	}
	script, err := templates[0].UserData.Script(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := base64.StdEncoding.DecodeString(script)
	if err != nil {
		t.Fatal(err)
	}
	if got := lintOf(t, compat.AL2, theirs).Verdict; got == "joins" {
		t.Errorf("Karpenter's AL2 userData with a %% evictionHard: Lint says %s", got)
	}
	cluster := karpenter.Cluster{Name: "test-cluster", Endpoint: "https://test-cluster", CABundle: brCA}
	fam, cfg, err := karpenter.UserDataConfig(nc, claim, karpv1.CapacityTypeOnDemand, cluster, karpenter.LaunchGroup{ImageID: templates[0].AMIID})
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := userdata.Render(fam, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := lintOf(t, compat.AL2, rendered); got.Verdict != "joins" {
		t.Errorf("Render's AL2 userData: Lint says %s", got.Verdict)
	}
}

// TestUserDataLaunchTemplateName: Karpenter names a launch template by a
// hashstructure hash of the amifamily.LaunchTemplate, userData included
// (launchtemplate.LaunchTemplateName, launchtemplate.go:209-211, v1.14.1),
// and reuses a template of the same name. UserData in the template's
// UserData field (a bootstrap.Bootstrapper, as Karpenter's own are) gives
// templates whose userData differs different names, and templates whose
// userData is the same one name: a Custom family's userData does not
// change with maxPods, so neither does its template (Karpenter's
// bootstrap.Custom hashes only the custom userData). Script is the text
// in base64.
func TestUserDataLaunchTemplateName(t *testing.T) {
	t.Parallel()
	base := userdata.Config{
		ClusterName: "test-cluster", APIServerEndpoint: "https://test-cluster", CABundle: brCA, ClusterCIDR: "10.100.0.0/16",
		Labels: map[string]string{karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeOnDemand},
	}
	name := func(family compat.AMIFamily, cfg userdata.Config) string {
		ud := karpenter.NewUserData(family, cfg)
		if _, err := ud.Script(context.Background()); err != nil {
			t.Fatal(err)
		}
		return launchtemplate.LaunchTemplateName(&amifamily.LaunchTemplate{Options: &amifamily.Options{}, UserData: ud})
	}
	variants := map[string]func(*userdata.Config){
		"capacity type": func(c *userdata.Config) {
			c.Labels = map[string]string{karpv1.CapacityTypeLabelKey: karpv1.CapacityTypeSpot}
		},
		"maxPods": func(c *userdata.Config) { c.Kubelet.MaxPods = ptr[int32](20) },
		"taint":   func(c *userdata.Config) { c.Taints = []userdata.Taint{{Key: "a", Effect: userdata.NoSchedule}} },
		"custom":  func(c *userdata.Config) { c.CustomUserData = []byte("#!/bin/bash\necho hi\n") },
	}
	seen := map[string]string{name(compat.AL2023, base): "base"}
	for what, change := range variants {
		cfg := base
		change(&cfg)
		n := name(compat.AL2023, cfg)
		if other, ok := seen[n]; ok {
			t.Errorf("%s: same launch template name as %s (%s)", what, other, n)
		}
		seen[n] = what
	}
	// Asked twice, the same userData gets the same name (rendering is
	// deterministic).
	if first, again := name(compat.AL2023, base), name(compat.AL2023, base); first != again {
		t.Error("the same userData got two names")
	}
	// LaunchTemplateName hashes slices as sets: the text must hash as a
	// whole, not as the set of its bytes.
	swapped := func(text string) string {
		return launchtemplate.LaunchTemplateName(&amifamily.LaunchTemplate{Options: &amifamily.Options{}, UserData: karpenter.UserData{Text: text}})
	}
	if swapped("10.100.0.0/16 a") == swapped("10.100.0.0/16 aaa") || swapped("ab") == swapped("ba") {
		t.Error("texts with the same bytes in another order, or one byte twice more, share a name")
	}
	// A Custom family without userData renders empty (the AMI joins by
	// itself), whatever the kubelet configuration.
	custom := userdata.Config{Labels: base.Labels}
	other := custom
	other.Kubelet.MaxPods = ptr[int32](20)
	if name(compat.Custom, custom) != name(compat.Custom, other) {
		t.Error("a Custom family's template changed name with maxPods, which its userData does not hold")
	}
	script, err := karpenter.NewUserData(compat.AL2023, base).Script(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err := userdata.Render(compat.AL2023, base)
	if err != nil {
		t.Fatal(err)
	}
	if script != base64.StdEncoding.EncodeToString(want) {
		t.Errorf("Script is not Render's userData in base64")
	}
	// Karpenter's resolver makes templates from whatever options it is
	// given (its AMIResolver specs give only a cluster name) and its
	// bootstrappers fail in Script; Render's refusal waits there too.
	ud := karpenter.NewUserData(compat.AL2023, userdata.Config{ClusterName: "test"})
	if _, err := ud.Script(context.Background()); err == nil || !strings.Contains(err.Error(), "APIServerEndpoint") {
		t.Errorf("Script of a Config without an endpoint = %v; want Render's refusal", err)
	}
	nc := nodeClassWith(v1.AMISelectorTerm{Alias: "al2023@latest"})
	if _, err := karpenter.ResolverUserData(nc, resolverClaim(), karpv1.CapacityTypeOnDemand, karpenter.Cluster{}, "ami-missing", 110, nil).Script(context.Background()); err == nil || !strings.Contains(err.Error(), "ami-missing") {
		t.Errorf("Script for an image status.amis does not list = %v; want ResolverGroup's error", err)
	}
}
