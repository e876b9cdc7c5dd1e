package userdata

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/ec2select/ec2select/compat"
)

// registers is what a node registers as Migrate compares it.
type registers struct {
	Taints  []Taint
	Labels  map[string]string
	Kubelet KubeletConfig
}

// fatalHelper is what nodeRegisters needs of *testing.T and *rapid.T.
type fatalHelper interface {
	Helper()
	Fatalf(format string, args ...any)
}

func nodeRegisters(t fatalHelper, f compat.AMIFamily, data []byte, required []Taint) registers {
	t.Helper()
	r, err := Lint(f, data, required)
	if err != nil {
		t.Fatalf("Lint(%v): %v", f, err)
	}
	if r.Verdict != Joins || r.HasErrors() {
		t.Fatalf("Lint(%v) = %v, errors %v: %s\n%s", f, r.Verdict, r.HasErrors(), r.Reason, data)
	}
	return registers{registeredByUserData(r), r.Labels, r.UserKubelet()}
}

// genMigratable draws a Config that renders for AL2 and the target: the
// settings a Karpenter EC2NodeClass and NodePool give every family.
func genMigratable(target compat.AMIFamily) *rapid.Generator[Config] {
	return rapid.Custom(func(t *rapid.T) Config {
		cfg := baseConfig()
		cfg.ClusterName = rapid.StringMatching(`[a-zA-Z0-9][a-zA-Z0-9_-]{0,20}`).Draw(t, "cluster")
		cfg.Kubelet = genKubelet(target).Draw(t, "kubelet")
		if rapid.Bool().Draw(t, "dns") {
			cfg.Kubelet.ClusterDNS = []string{"10.100.0.10"}
		}
		cfg.Taints = genTaints(4).Draw(t, "taints")
		if rapid.Bool().Draw(t, "uninitialized") {
			cfg.RequiredTaints = []Taint{{Key: "karpenter.sh/uninitialized", Effect: NoExecute}}
		}
		cfg.Labels = genLabels(4).Draw(t, "labels")
		if rapid.Bool().Draw(t, "raid0") {
			cfg.InstanceStorePolicy = RAID0
		}
		return cfg
	})
}

// TestMigrateRenderedAL2 (issue 39): for random configurations,
// Migrate(Render(AL2, cfg), target) registers what Render(target, cfg)
// registers — taints, labels and kubelet configuration — on AL2023, and on
// Bottlerocket wherever Render writes the configuration there.
func TestMigrateRenderedAL2(t *testing.T) {
	t.Parallel()
	for _, target := range []compat.AMIFamily{compat.AL2023, compat.Bottlerocket} {
		t.Run(target.String(), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(t *rapid.T) {
				cfg := genMigratable(target).Draw(t, "cfg")
				al2, err := Render(compat.AL2, cfg)
				if err != nil {
					t.Skip("not renderable for AL2: ", err)
				}
				native, err := Render(target, cfg)
				if err != nil {
					t.Skip("not expressible on the target: ", err)
				}
				required, _ := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
				m, err := Migrate(al2, target, MigrateOptions{Required: required, ClusterCIDR: cfg.ClusterCIDR})
				if err != nil {
					t.Fatalf("Migrate: %v\nAL2:\n%s", err, al2)
				}
				if diff := cmp.Diff(nodeRegisters(t, target, native, required), nodeRegisters(t, target, m.UserData, required)); diff != "" {
					t.Fatalf("registered (-Render(%v) +Migrate):\n%s\nmigrated:\n%s", target, diff, m.UserData)
				}
			})
		})
	}
}

const migrateCA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJzekNDQVZtZ0F3SUJBZ0lVRWMybE1BPT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="

// al2Script is a whole AL2 userData: a script that joins with extra.
func al2Script(before, extra string) string {
	return "#!/bin/bash\nset -ex\n" + before + "/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint https://x.gr7.us-west-2.eks.amazonaws.com --b64-cluster-ca " + migrateCA +
		" --dns-cluster-ip 10.100.0.10 --use-max-pods false --kubelet-extra-args '" + extra + "'\n"
}

// TestMigrate pins what moves where, and what is refused with which
// reason.
func TestMigrate(t *testing.T) {
	t.Parallel()
	opts := MigrateOptions{Required: []Taint{UnregisteredTaint()}, ClusterCIDR: "10.100.0.0/16"}
	flags := "--node-labels=team=web --register-with-taints=karpenter.sh/unregistered:NoExecute --max-pods=58 --cpu-manager-policy=static"
	tests := []struct {
		name    string
		target  compat.AMIFamily
		data    string
		opts    MigrateOptions
		moved   []string // "line → field"
		refused []string // what, by a word of it
	}{
		{name: "a join, to AL2023", target: compat.AL2023, data: al2Script("", flags), opts: opts,
			moved: []string{"3 → spec.cluster.name", "3 → spec.cluster.apiServerEndpoint", "3 → spec.cluster.certificateAuthority",
				"3 → spec.kubelet.config.clusterDNS", "3 → spec.kubelet.flags --node-labels", "3 → spec.kubelet.config.registerWithTaints",
				"3 → spec.kubelet.config.maxPods", "3 → spec.kubelet.flags"}},
		{name: "a join, to Bottlerocket: a flag it has no setting for", target: compat.Bottlerocket, data: al2Script("", flags), opts: opts,
			refused: []string{"--cpu-manager-policy=static"}},
		{name: "yum and amazon-linux-extras on AL2023", target: compat.AL2023, data: al2Script("yum install -y htop\namazon-linux-extras install -y epel\n", "--register-with-taints=karpenter.sh/unregistered:NoExecute"), opts: opts,
			refused: []string{"yum", "amazon-linux-extras"}},
		{name: "docker's daemon.json", target: compat.AL2023, data: al2Script("sed -i 's/10m/300m/' /etc/docker/daemon.json\n", "--register-with-taints=karpenter.sh/unregistered:NoExecute"), opts: opts,
			refused: []string{"sed on /etc/docker/daemon.json"}},
		{name: "a shell command on Bottlerocket; a sysctl moves", target: compat.Bottlerocket, data: al2Script("sysctl -w vm.max_map_count=262144\nmkdir -p /data\n", "--register-with-taints=karpenter.sh/unregistered:NoExecute"), opts: opts,
			refused: []string{"mkdir"}},
		{name: "a jq edit of kubelet-config.json moves to the config", target: compat.AL2023,
			data: al2Script("jq '.kubeAPIQPS = 50' /etc/kubernetes/kubelet/kubelet-config.json > /tmp/k && mv /tmp/k /etc/kubernetes/kubelet/kubelet-config.json\n", "--register-with-taints=karpenter.sh/unregistered:NoExecute"), opts: opts,
			moved: []string{"4 → spec.cluster.name", "4 → spec.cluster.apiServerEndpoint", "4 → spec.cluster.certificateAuthority",
				"4 → spec.kubelet.config.clusterDNS", "4 → spec.kubelet.config.registerWithTaints", "3 → spec.kubelet.config.kubeAPIQPS"}},
		{name: "no CIDR for nodeadm", target: compat.AL2023, data: al2Script("", "--register-with-taints=karpenter.sh/unregistered:NoExecute"), opts: MigrateOptions{Required: opts.Required},
			refused: []string{"service CIDR"}},
		{name: "a node that lacks its required taint", target: compat.AL2023, data: al2Script("", "--node-labels=a=b"), opts: opts,
			refused: []string{"the migrated userData"}},
		{name: "userData Lint cannot follow", target: compat.AL2023, data: al2Script("eval \"$X\"\n", "--node-labels=a=b"), opts: opts,
			refused: []string{"the AL2 userData"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Migrate([]byte(tc.data), tc.target, tc.opts)
			var me *MigrateError
			if len(tc.refused) == 0 {
				if err != nil {
					t.Fatalf("Migrate: %v", err)
				}
				var moved []string
				for _, mv := range m.Moved {
					moved = append(moved, fmt.Sprintf("%d → %s", mv.Line, mv.To))
				}
				if diff := cmp.Diff(tc.moved, moved); diff != "" {
					t.Errorf("moved (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.As(err, &me) {
				t.Fatalf("Migrate: %v; want a *MigrateError", err)
			}
			if m.UserData != nil {
				t.Errorf("a refused migration wrote userData")
			}
			for _, want := range tc.refused {
				found := false
				for _, u := range me.Migration.Refused {
					found = found || strings.Contains(u.What, want)
				}
				if !found {
					t.Errorf("refused %v; want one naming %q", me.Migration.Refused, want)
				}
			}
		})
	}
}

// TestMigrateSysctl: Bottlerocket's settings.kernel.sysctl takes a
// sysctl -w, and the node registers the same.
func TestMigrateSysctl(t *testing.T) {
	t.Parallel()
	data := al2Script("sysctl -w vm.max_map_count=262144\n", "--register-with-taints=karpenter.sh/unregistered:NoExecute")
	m, err := Migrate([]byte(data), compat.Bottlerocket, MigrateOptions{Required: []Taint{UnregisteredTaint()}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(m.UserData), "'vm.max_map_count' = '262144'") {
		t.Errorf("the sysctl did not move:\n%s", m.UserData)
	}
}

// TestMigrateMerged: an EC2NodeClass's AL2 spec.userData moves to AL2023
// custom userData that Karpenter merges the same way; its scripts stay, the
// kubelet settings its edits make move to a NodeConfig.
func TestMigrateMerged(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.Labels = map[string]string{"karpenter.sh/nodepool": "default"}
	cfg.Kubelet.MaxPods = ptr(int32(110))
	custom := "#!/bin/bash\necho hello\nsed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --image-gc-high-threshold=90\"' /etc/eks/bootstrap.sh\n"
	m, err := Migrate([]byte(custom), compat.AL2023, MigrateOptions{Merged: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"echo hello", "--image-gc-high-threshold=90", "kind: NodeConfig"} {
		if !strings.Contains(string(m.UserData), want) {
			t.Errorf("the migrated custom userData lacks %q:\n%s", want, m.UserData)
		}
	}
	if strings.Contains(string(m.UserData), "bootstrap.sh") || strings.Contains(string(m.UserData), "my-cluster") {
		t.Errorf("the migrated custom userData carries the join, which stays Karpenter's:\n%s", m.UserData)
	}
}

// FuzzMigrate: Migrate never panics, and what it writes Lint says joins.
func FuzzMigrate(f *testing.F) {
	f.Add([]byte(al2Script("", "--node-labels=a=b")), uint8(0))
	f.Add([]byte(al2Script("sysctl -w a.b=1\n", "--register-with-taints=a=b:NoSchedule")), uint8(1))
	f.Add([]byte("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/x-shellscript\n\n"+al2Script("yum install -y x\n", "")+"--b--\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		target := []compat.AMIFamily{compat.AL2023, compat.Bottlerocket}[which%2]
		m, err := Migrate(data, target, MigrateOptions{ClusterCIDR: "10.100.0.0/16"})
		if err != nil {
			return
		}
		if m.After.Verdict != Joins || m.UserData == nil {
			t.Fatalf("Migrate wrote userData Lint does not say joins: %v\n%s", m.After.Verdict, m.UserData)
		}
	})
}
