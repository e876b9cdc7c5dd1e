package userdata

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nasty"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"
	"github.com/ec2select/ec2select/userdata/internal/powershell"
)

// genHostileConfig draws a valid config and replaces up to two of its
// strings with arbitrary or hostile ones, so that Render sees both input it
// must refuse and odd input it may accept.
func genHostileConfig(f compat.AMIFamily) *rapid.Generator[Config] {
	return rapid.Custom(func(t *rapid.T) Config {
		cfg := genConfig(f).Draw(t, "base")
		if len(cfg.Taints) == 0 {
			cfg.Taints = []Taint{{Key: "k", Value: "v", Effect: NoSchedule}}
		}
		if len(cfg.Labels) == 0 {
			cfg.Labels = map[string]string{"l": "v"}
		}
		setters := []func(string){
			func(s string) { cfg.ClusterName = s },
			func(s string) { cfg.APIServerEndpoint = s },
			func(s string) { cfg.CABundle = s },
			func(s string) { cfg.ClusterCIDR = s },
			func(s string) { cfg.Kubelet.ClusterDNS = []string{s} },
			func(s string) { cfg.Taints[0].Key = s },
			func(s string) { cfg.Taints[0].Value = s },
			func(s string) { cfg.Taints[0].Effect = Effect(s) },
			func(s string) { cfg.Labels = map[string]string{s: "v"} },
			func(s string) { cfg.Labels = map[string]string{"l": s} },
			func(s string) { cfg.CustomUserData = []byte(s) },
			func(s string) {
				prefix := rapid.SampledFrom([]string{"#!/bin/bash\n", "#cloud-config\n", "[settings]\n", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n", "Write-Host "}).Draw(t, "prefix")
				cfg.CustomUserData = []byte(prefix + s)
			},
		}
		for range rapid.IntRange(0, 2).Draw(t, "corrupt") {
			i := rapid.IntRange(0, len(setters)-1).Draw(t, "field")
			setters[i](nasty.String().Draw(t, "s"))
		}
		return cfg
	})
}

// TestRenderInjection: whatever the strings in a Config, Render either
// refuses them or produces userData whose structure is exactly the
// intended one: the same commands with the same arguments, and TOML or
// YAML that decodes back to the input.
func TestRenderInjection(t *testing.T) {
	t.Parallel()
	for _, f := range families[:4] {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(t *rapid.T) {
				cfg := genHostileConfig(f).Draw(t, "cfg")
				out, err := Render(f, cfg)
				if err != nil {
					if !strings.HasPrefix(err.Error(), "userdata: ") {
						t.Fatalf("error without the package prefix: %v", err)
					}
					return
				}
				checkStructure(t, f, cfg, out)
				checkRoundTrip(t, f, cfg, out)
			})
		})
	}
}

// FuzzRenderInjection is the same property driven by the fuzzer.
func FuzzRenderInjection(f *testing.F) {
	f.Add(uint8(0), "my-cluster", "https://x.example.com", "team", "a", "example.com/x", "y", "#!/bin/bash\necho hi\n")
	f.Add(uint8(1), "c", "https://x.example.com", "k", "", "l", "", "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n")
	f.Add(uint8(2), "c", "https://x.example.com", "k", "v", "l", "v", "[settings.kubernetes]\nmax-pods = 3\n")
	f.Add(uint8(3), "c", "https://x.example.com", "k", "v", "l", "v", "Write-Host 'a''b'\n")
	f.Add(uint8(0), "c'; reboot; '", "https://x/'$(id)'", "k\n", "v'", "l=", "v,", "--//\n")
	f.Fuzz(func(t *testing.T, fam uint8, cluster, endpoint, key, value, labelKey, labelValue, custom string) {
		family := families[int(fam)%4]
		cfg := baseConfig()
		cfg.ClusterName, cfg.APIServerEndpoint = cluster, endpoint
		cfg.Taints = []Taint{{Key: key, Value: value, Effect: NoSchedule}}
		cfg.Labels = map[string]string{labelKey: labelValue}
		cfg.Kubelet.ClusterDNS = []string{"10.100.0.10"}
		cfg.CustomUserData = []byte(custom)
		out, err := Render(family, cfg)
		if err != nil {
			return
		}
		checkStructure(t, family, cfg, out)
		checkRoundTrip(t, family, cfg, out)
	})
}

// checkStructure parses Render's output with the boot agents' own kinds of
// parser and compares it with what the config asks for, computed here
// independently of the renderer.
func checkStructure(t rapidTB, f compat.AMIFamily, cfg Config, out []byte) {
	t.Helper()
	eff, err := effectiveTaints(cfg.Taints, cfg.StartupTaints, cfg.Required())
	if err != nil {
		t.Fatalf("Render accepted a config with invalid taints: %v", err)
	}
	custom := bytes.ReplaceAll(cfg.CustomUserData, []byte("\r"), nil)
	switch f {
	case compat.AL2, compat.AL2023:
		parts, err := mimedoc.Parse(out, 1)
		if err != nil || len(parts) == 0 {
			t.Fatalf("output is not MIME: %v", err)
		}
		ours := parts[len(parts)-1]
		if len(bytes.TrimSpace(custom)) > 0 && !mimedoc.LooksMIME(custom) && !mimedoc.StartsWithHeader(custom) {
			if len(parts) != 2 || !bytes.Equal(parts[0].Body, custom) {
				t.Fatalf("custom part changed: %d parts, first %q; want %q", len(parts), parts[0].Body, custom)
			}
		}
		if f == compat.AL2 {
			checkAL2Script(t, cfg, eff, ours.Body)
		} else {
			checkNodeConfig(t, cfg, eff, ours.Body)
		}
	case compat.Bottlerocket:
		var doc struct {
			Settings struct {
				Kubernetes struct {
					ClusterName string              `toml:"cluster-name"`
					APIServer   string              `toml:"api-server"`
					CA          string              `toml:"cluster-certificate"`
					Labels      map[string]string   `toml:"node-labels"`
					Taints      map[string][]string `toml:"node-taints"`
				} `toml:"kubernetes"`
			} `toml:"settings"`
		}
		if err := toml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("output is not TOML: %v", err)
		}
		k := doc.Settings.Kubernetes
		if k.ClusterName != cfg.ClusterName || k.APIServer != cfg.APIServerEndpoint || k.CA != cfg.CABundle {
			t.Fatalf("cluster settings %+v do not match the config", k)
		}
		want := map[string][]string{}
		for _, x := range eff {
			want[x.Key] = append(want[x.Key], x.Value+":"+string(x.Effect))
		}
		if len(want) == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, k.Taints); diff != "" {
			t.Fatalf("node-taints (-want +got):\n%s", diff)
		}
		for lk, lv := range cfg.Labels {
			if k.Labels[lk] != lv {
				t.Fatalf("label %q decodes as %q; want %q", lk, k.Labels[lk], lv)
			}
		}
	case compat.Windows2019, compat.Windows2022, compat.Windows2025:
		checkPowerShell(t, cfg, eff, out, custom)
	}
}

func kubeletFlagsFor(cfg Config, eff []Taint) []string {
	var flags []string
	if len(cfg.Labels) > 0 {
		flags = append(flags, "--node-labels="+formatLabels(cfg.Labels))
	}
	if len(eff) > 0 {
		flags = append(flags, "--register-with-taints="+FormatTaints(eff))
	}
	if cfg.Kubelet.MaxPods != nil {
		flags = append(flags, "--max-pods="+strconv.Itoa(int(*cfg.Kubelet.MaxPods)))
	}
	return flags
}

func checkAL2Script(t rapidTB, cfg Config, eff []Taint, script []byte) {
	t.Helper()
	f, err := syntax.NewParser().Parse(bytes.NewReader(script), "")
	if err != nil {
		t.Fatalf("Render's script does not parse: %v\n%s", err, script)
	}
	if len(f.Stmts) != 2 {
		t.Fatalf("Render's script has %d statements; want 2 (exec, bootstrap.sh)", len(f.Stmts))
	}
	if c, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); !ok || len(c.Args) != 1 || c.Args[0].Lit() != "exec" {
		t.Fatalf("first statement is not the logging exec")
	}
	call, ok := f.Stmts[1].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Assigns) > 0 || len(f.Stmts[1].Redirs) > 0 || f.Stmts[1].Background {
		t.Fatalf("second statement is not a plain command")
	}
	got, err := expand.Fields(&expand.Config{}, call.Args...)
	if err != nil {
		t.Fatalf("arguments do not expand statically: %v", err)
	}
	want := []string{"/etc/eks/bootstrap.sh", cfg.ClusterName, "--apiserver-endpoint", cfg.APIServerEndpoint, "--b64-cluster-ca", cfg.CABundle}
	// The service CIDR's family, when given, is the node's; else the first
	// DNS address's (an IPv4-mapped one is IPv4, as the kubelet reads it).
	ipv6 := strings.Contains(cfg.ClusterCIDR, ":")
	if cfg.ClusterCIDR == "" && len(cfg.Kubelet.ClusterDNS) > 0 {
		a, err := netip.ParseAddr(cfg.Kubelet.ClusterDNS[0])
		ipv6 = err == nil && a.Is6() && !a.Is4In6()
	}
	if ipv6 {
		want = append(want, "--ip-family", "ipv6")
	}
	if len(cfg.Kubelet.ClusterDNS) > 0 {
		want = append(want, "--dns-cluster-ip", cfg.Kubelet.ClusterDNS[0])
	} else if strings.Contains(cfg.ClusterCIDR, ":") {
		want = append(want, "--service-ipv6-cidr", cfg.ClusterCIDR)
	}
	if cfg.Kubelet.MaxPods != nil {
		want = append(want, "--use-max-pods", "false")
	}
	if flags := kubeletFlagsFor(cfg, eff); len(flags) > 0 {
		want = append(want, "--kubelet-extra-args", strings.Join(flags, " "))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("bootstrap.sh arguments (-want +got):\n%s", diff)
	}
}

func checkNodeConfig(t rapidTB, cfg Config, eff []Taint, doc []byte) {
	t.Helper()
	var nc struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Spec       struct {
			Cluster nodeadm.Cluster `json:"cluster"`
			Kubelet struct {
				Config struct {
					RegisterWithTaints []nodeadm.Taint `json:"registerWithTaints"`
					ClusterDNS         []string        `json:"clusterDNS"`
					MaxPods            *int32          `json:"maxPods"`
				} `json:"config"`
				Flags []string `json:"flags"`
			} `json:"kubelet"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(doc, &nc); err != nil {
		t.Fatalf("NodeConfig does not decode: %v\n%s", err, doc)
	}
	wantCluster := nodeadm.Cluster{Name: cfg.ClusterName, APIServerEndpoint: cfg.APIServerEndpoint, CertificateAuthority: cfg.CABundle, CIDR: cfg.ClusterCIDR}
	if nc.APIVersion != "node.eks.aws/v1alpha1" || nc.Kind != "NodeConfig" || nc.Spec.Cluster != wantCluster {
		t.Fatalf("NodeConfig header/cluster = %s %s %+v; want %+v", nc.APIVersion, nc.Kind, nc.Spec.Cluster, wantCluster)
	}
	var wantTaints []nodeadm.Taint
	for _, x := range eff {
		wantTaints = append(wantTaints, nodeadm.Taint{Key: x.Key, Value: x.Value, Effect: string(x.Effect)})
	}
	if diff := cmp.Diff(wantTaints, nc.Spec.Kubelet.Config.RegisterWithTaints); diff != "" {
		t.Fatalf("registerWithTaints (-want +got):\n%s", diff)
	}
	var wantFlags []string
	if len(cfg.Labels) > 0 {
		wantFlags = []string{"--node-labels=" + formatLabels(cfg.Labels)}
	}
	if diff := cmp.Diff(wantFlags, nc.Spec.Kubelet.Flags); diff != "" {
		t.Fatalf("flags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cfg.Kubelet.ClusterDNS, nc.Spec.Kubelet.Config.ClusterDNS); diff != "" {
		t.Fatalf("clusterDNS (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cfg.Kubelet.MaxPods, nc.Spec.Kubelet.Config.MaxPods); diff != "" {
		t.Fatalf("maxPods (-want +got):\n%s", diff)
	}
}

func checkPowerShell(t rapidTB, cfg Config, eff []Taint, out, custom []byte) {
	t.Helper()
	block, _, ok := powershellBlock(out)
	if !ok || !bytes.HasPrefix(out, []byte("<powershell>\n")) || !bytes.HasSuffix(out, []byte("\n</powershell>\n")) {
		t.Fatalf("output is not one <powershell> block")
	}
	if len(bytes.TrimSpace(custom)) == 0 {
		custom = nil // blank custom data is no custom data
	}
	if !strings.HasPrefix(block, "\n"+string(custom)) {
		t.Fatalf("custom PowerShell is not spliced in first, unchanged")
	}
	st, err := powershell.Statements(block)
	if err != nil {
		t.Fatalf("output does not lex: %v", err)
	}
	if len(st) < 2 {
		t.Fatalf("%d statements", len(st))
	}
	assign, call := st[len(st)-2], st[len(st)-1]
	if len(assign) != 4 || !assign[0].IsType() || assign[1].Raw() != "$EKSBootstrapScriptFile" || assign[3].Raw() != `"$env:ProgramFiles\Amazon\EKS\Start-EKSBootstrap.ps1"` {
		t.Fatalf("the script path assignment changed: %+v", assign)
	}
	var got []string
	for _, tok := range call {
		value, known, _ := tok.Literal()
		if tok.IsString() && !known {
			t.Fatalf("argument %s is not a literal", tok.Raw())
		}
		if !tok.IsString() {
			value = tok.Raw()
		}
		got = append(got, value)
	}
	want := []string{"&", "$EKSBootstrapScriptFile", "-EKSClusterName", cfg.ClusterName, "-APIServerEndpoint", cfg.APIServerEndpoint, "-Base64ClusterCA", cfg.CABundle}
	if flags := kubeletFlagsFor(cfg, eff); len(flags) > 0 {
		want = append(want, "-KubeletExtraArgs", strings.Join(flags, " "))
	}
	if len(cfg.Kubelet.ClusterDNS) > 0 {
		want = append(want, "-DNSClusterIP", cfg.Kubelet.ClusterDNS[0])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the bootstrap call (-want +got):\n%s", diff)
	}
}
