package userdata

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/internal/golden"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/nodeadm"

	"github.com/google/go-cmp/cmp"
	"github.com/pelletier/go-toml/v2"
	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/compat"
)

func goldenConfig(f compat.AMIFamily) Config {
	cfg := baseConfig()
	cfg.Kubelet.ClusterDNS = []string{"10.100.0.10"}
	cfg.Taints = []Taint{{Key: "example.com/dedicated", Value: "gpu", Effect: NoSchedule}}
	cfg.StartupTaints = []Taint{{Key: "example.com/agent-not-ready", Effect: NoExecute}}
	cfg.Labels = map[string]string{"karpenter.sh/nodepool": "default", "node.kubernetes.io/lifecycle": "spot", "example.com/team": "ml"}
	cfg.Kubelet.MaxPods = ptr[int32](110)
	switch f {
	case compat.AL2:
		cfg.CustomUserData = []byte("#!/bin/bash\necho 'custom step' > /var/log/custom.log\n")
	case compat.AL2023:
		cfg.CustomUserData = []byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      imageGCHighThresholdPercent: 85\n")
	case compat.Bottlerocket:
		cfg.CustomUserData = []byte("[settings.host-containers.admin]\nenabled = true\n\n[settings.kubernetes.node-labels]\n'example.com/rack' = 'r1'\n\n[settings.kubernetes.node-taints]\n'example.com/dropped' = ['x:NoSchedule']\n")
	case compat.Windows2019, compat.Windows2022, compat.Windows2025:
		cfg.CustomUserData = []byte("Write-Host 'custom step'\n")
	case compat.Custom:
		cfg.CustomUserData = []byte("#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args '--register-with-taints=example.com/dedicated=gpu:NoSchedule,example.com/agent-not-ready:NoExecute,karpenter.sh/unregistered:NoExecute'\n")
	}
	return cfg
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022, compat.Custom} {
		cfg := goldenConfig(f)
		out, err := Render(f, cfg)
		if err != nil {
			t.Fatalf("Render(%v): %v", f, err)
		}
		golden.Check(t, filepath.Join("testdata", strings.ToLower(f.String())+".golden"), out, *update)
		again, err := Render(f, cfg)
		if err != nil || !bytes.Equal(out, again) {
			t.Errorf("Render(%v) is not deterministic", f)
		}
		r := mustLint(t, f, out, cfg.Required())
		if len(r.Problems) > 0 {
			t.Errorf("Lint(%v, Render(%v)) found problems:\n%s", f, f, r)
		}
		want := []Taint{{Key: "example.com/agent-not-ready", Effect: NoExecute}, {Key: "example.com/dedicated", Value: "gpu", Effect: NoSchedule}, UnregisteredTaint()}
		family := f
		if f == compat.Custom {
			family = detectFamily(out)
		}
		if diff := cmp.Diff(wantRegistered(family, want, cfg.Required()), r.Taints); diff != "" {
			t.Errorf("Lint(%v, Render(%v)).Taints (-want +got):\n%s", f, f, diff)
		}
	}
}

func TestRenderValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		family  compat.AMIFamily
		mutate  func(*Config)
		wantErr string
	}{
		{"no cluster name", compat.AL2, func(c *Config) { c.ClusterName = "" }, "Config.ClusterName is empty"},
		{"cluster name with a quote", compat.AL2, func(c *Config) { c.ClusterName = "a'b" }, "Config.ClusterName"},
		{"cluster name too long", compat.AL2, func(c *Config) { c.ClusterName = strings.Repeat("a", 101) }, "Config.ClusterName"},
		{"http endpoint", compat.AL2, func(c *Config) { c.APIServerEndpoint = "http://x.example.com" }, "Config.APIServerEndpoint"},
		{"endpoint with comma", compat.AL2, func(c *Config) { c.APIServerEndpoint = "https://x.example.com/a,b" }, `","`},
		{"endpoint with query", compat.AL2, func(c *Config) { c.APIServerEndpoint = "https://x.example.com/?a=b" }, "Config.APIServerEndpoint"},
		{"endpoint with user", compat.AL2, func(c *Config) { c.APIServerEndpoint = "https://u@x.example.com" }, "Config.APIServerEndpoint"},
		{"CA not base64", compat.AL2, func(c *Config) { c.CABundle = "not base64!" }, "Config.CABundle"},
		{"CA with newline", compat.AL2, func(c *Config) { c.CABundle = testCA()[:8] + "\n" + testCA()[8:] }, "one line"},
		{"CA not PEM", compat.AL2, func(c *Config) { c.CABundle = "aGVsbG8=" }, "PEM"},
		{"CA empty", compat.Windows2022, func(c *Config) { c.CABundle = "" }, "Config.CABundle is empty"},
		{"CIDR", compat.AL2, func(c *Config) { c.ClusterCIDR = "10.100.0.0" }, "Config.ClusterCIDR"},
		{"CIDR not canonical", compat.AL2, func(c *Config) { c.ClusterCIDR = "10.100.0.1/16" }, `"10.100.0.0/16"`},
		{"AL2023 needs CIDR", compat.AL2023, func(c *Config) { c.ClusterCIDR = "" }, "nodeadm"},
		{"DNS", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.100.0.300"} }, "Config.Kubelet.ClusterDNS[0]"},
		{"DNS with zone", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"fe80::1%eth0"} }, "Config.Kubelet.ClusterDNS[0]"},
		{"DNS not canonical", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"fd00:0::a"} }, `"fd00::a"`},
		{"DNS mixed", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.0.0.10", "fd00::a"} }, "mixes"},
		{"DNS vs CIDR", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"fd00::a"} }, "different IP families"},
		{"Windows one DNS", compat.Windows2022, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.0.0.10", "10.0.0.11"} }, "-DNSClusterIP"},
		{"AL2 one DNS", compat.AL2, func(c *Config) { c.Kubelet.ClusterDNS = []string{"10.0.0.10", "10.0.0.11"} }, "--dns-cluster-ip"},
		{"max pods", compat.AL2, func(c *Config) { c.Kubelet.MaxPods = ptr[int32](-1) }, "Config.Kubelet.MaxPods"},
		{"bad taint", compat.AL2, func(c *Config) { c.Taints = []Taint{{Key: "a", Value: "b c", Effect: NoSchedule}} }, "Config.Taints[0]"},
		{"bad effect", compat.Bottlerocket, func(c *Config) { c.StartupTaints = []Taint{{Key: "a", Effect: "NoExec"}} }, "Config.StartupTaints[0]"},
		{"conflicting taints", compat.AL2, func(c *Config) {
			c.Taints = []Taint{{Key: "a", Value: "1", Effect: NoSchedule}}
			c.StartupTaints = []Taint{{Key: "a", Value: "2", Effect: NoSchedule}}
		}, "conflicts"},
		{"bad required", compat.AL2, func(c *Config) { c.RequiredTaints = []Taint{{Key: "x"}} }, "Config.RequiredTaints[0]"},
		{"forbidden label", compat.AL2, func(c *Config) { c.Labels = map[string]string{"node-restriction.kubernetes.io/a": "b"} }, "Config.Labels"},
		{"bad label value", compat.AL2023, func(c *Config) { c.Labels = map[string]string{"a": "b,c=d"} }, "Config.Labels"},
		{"custom not UTF-8", compat.AL2, func(c *Config) { c.CustomUserData = []byte{0xff, 0xfe} }, "UTF-8"},
		{"custom NUL", compat.AL2, func(c *Config) { c.CustomUserData = []byte("#!/bin/sh\x00") }, "NUL"},
		{"zero family", compat.AMIFamily(""), func(c *Config) {}, "AMIFamily()"},
	}
	for _, tt := range tests {
		cfg := baseConfig()
		tt.mutate(&cfg)
		out, err := Render(tt.family, cfg)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "userdata: ") {
			t.Errorf("%s: Render error = %v; want one containing %q", tt.name, err, tt.wantErr)
		}
		if out != nil {
			t.Errorf("%s: Render returned output with an error", tt.name)
		}
	}
}

// TestRenderMIMEWithGoParsers reads Render's multipart output with the
// parser nodeadm uses (net/mail and mime/multipart) and checks that the
// custom part comes back byte for byte, before Render's part.
func TestRenderMIMEWithGoParsers(t *testing.T) {
	t.Parallel()
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023} {
		cfg := goldenConfig(f)
		out, err := Render(f, cfg)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mail.ReadMessage(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/mixed" || params["boundary"] == "//" {
			t.Fatalf("%v: Content-Type %q, %v", f, msg.Header.Get("Content-Type"), err)
		}
		mr := multipart.NewReader(msg.Body, params["boundary"])
		var types []string
		var bodies [][]byte
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%v: %v", f, err)
			}
			b, _ := io.ReadAll(p)
			types = append(types, p.Header.Get("Content-Type"))
			bodies = append(bodies, b)
		}
		wantLast := `text/x-shellscript; charset="us-ascii"`
		if f == compat.AL2023 {
			wantLast = nodeadm.MediaType
		}
		if len(bodies) != 2 || types[1] != wantLast {
			t.Fatalf("%v: parts %q; want the custom part then %q", f, types, wantLast)
		}
		if !bytes.Equal(bodies[0], cfg.CustomUserData) {
			t.Errorf("%v: custom part = %q; want %q", f, bodies[0], cfg.CustomUserData)
		}
	}
}

func TestRenderCustomMIMECopied(t *testing.T) {
	t.Parallel()
	custom := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n--//\nContent-Type: text/cloud-config\n\n#cloud-config\npackages: [jq]\n--//\nContent-Type: text/x-shellscript\n\n#!/bin/bash\necho --// not a delimiter here\n--//--\n"
	cfg := baseConfig()
	cfg.CustomUserData = []byte(custom)
	out, err := Render(compat.AL2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := mimedoc.Parse(out, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range parts {
		got = append(got, p.MediaType+"|"+string(p.Body))
	}
	want := []string{
		"text/cloud-config|#cloud-config\npackages: [jq]",
		"text/x-shellscript|#!/bin/bash\necho --// not a delimiter here",
		"text/x-shellscript|" + string(parts[2].Body),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if r := mustLint(t, compat.AL2, out, nil); len(r.Problems) > 0 {
		t.Errorf("problems:\n%s", r)
	}
}

func TestRenderCustomRejected(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		family  compat.AMIFamily
		custom  string
		wantErr string
	}{
		{"AL2 custom calls bootstrap.sh", compat.AL2, "#!/bin/bash\n/etc/eks/bootstrap.sh my-cluster\n", "line 2: it calls bootstrap.sh"},
		{"AL2 custom MIME part calls bootstrap.sh", compat.AL2, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/x-shellscript\n\n#!/bin/sh\nsudo /etc/eks/bootstrap.sh c\n--b--\n", "part part-001, line 8: it calls bootstrap.sh"},
		{"AL2 no shebang", compat.AL2, "echo hi\n", "neither"},
		{"AL2 MIME part without shebang", compat.AL2, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/x-shellscript\n\necho hi\n--b--\n", "Exec format error"},
		{"AL2 syntax error", compat.AL2, "#!/bin/bash\nif then\n", "syntax"},
		{"AL2 malformed MIME", compat.AL2, "MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nbody\n", "boundary"},
		{"AL2023 custom flag overrides taints", compat.AL2023, "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    flags: [\"--register-with-taints=a:NoSchedule\"]\n", "#7486"},
		{"AL2023 bad NodeConfig part", compat.AL2023, "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: application/node.eks.aws\n\nkind: Pod\n--b--\n", "does not decode as a NodeConfig"},
		{"Bottlerocket bad TOML", compat.Bottlerocket, "[settings\n", "TOML"},
		{"Bottlerocket settings not a table", compat.Bottlerocket, "settings = 1\n", `"settings" is not a table`},
		// The settings model denies unknown fields
		// (bottlerocket@468f205b^ sources/models/model-derive/src/lib.rs
		// L112-116), so the settings API refuses these.
		{"Bottlerocket unknown kubernetes setting", compat.Bottlerocket, "[settings.kubernetes]\nnode-taint = 'a'\n", "settings.kubernetes.node-taint"},
		{"Bottlerocket unknown settings table", compat.Bottlerocket, "[settings.kubelet]\nmax-pods = 10\n", "settings.kubelet"},
		{"Bottlerocket bootstrap command", compat.Bottlerocket, "[settings.bootstrap-commands.taint]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=:NoSchedule']]\nmode = 'once'\n", "settings.bootstrap-commands.taint"},
		{"Bottlerocket bad custom label", compat.Bottlerocket, "[settings.kubernetes.node-labels]\n'k8s.io/x' = 'y'\n", "node-labels"},
		{"Windows tags", compat.Windows2022, "<powershell>Write-Host hi</powershell>", "<powershell> tag"},
		{"Windows unterminated string", compat.Windows2022, "Write-Host 'hi\n", "not complete PowerShell"},
		{"Windows open brace", compat.Windows2022, "if ($true) {\n", "not complete PowerShell"},
		{"Windows here-string", compat.Windows2022, "$x = @'\nabc\n", "not complete PowerShell"},
		{"Windows continuation", compat.Windows2022, "Write-Host hi `", "not complete PowerShell"},
		{"Windows Invoke-Expression", compat.Windows2022, "Write-Host hi\nInvoke-Expression $cmd\n", "line 2: Invoke-Expression"},
		{"Windows starts the kubelet service", compat.Windows2022, "Start-Service -Name kubelet\n", "kubelet service"},
		{"Windows exit", compat.Windows2022, "Write-Host hi\nexit 0\n", "stops the script on line 2"},
		{"Windows bootstrap", compat.Windows2022, "& 'C:\\Program Files\\Amazon\\EKS\\Start-EKSBootstrap.ps1' -EKSClusterName c\n", "calls Start-EKSBootstrap.ps1"},
	}
	for _, tt := range tests {
		cfg := baseConfig()
		cfg.CustomUserData = []byte(tt.custom)
		_, err := Render(tt.family, cfg)
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: Render error = %v; want one containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestRenderBottlerocketMerge(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.Bottlerocket)
	cfg.Labels = map[string]string{"example.com/rack": "ours"}
	out, err := Render(compat.Bottlerocket, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Settings struct {
			HostContainers map[string]map[string]any `toml:"host-containers"`
			Kubernetes     struct {
				ClusterName string              `toml:"cluster-name"`
				NodeLabels  map[string]string   `toml:"node-labels"`
				NodeTaints  map[string][]string `toml:"node-taints"`
			} `toml:"kubernetes"`
		} `toml:"settings"`
	}
	if err := toml.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Settings.HostContainers["admin"]["enabled"] != true {
		t.Errorf("custom settings lost: %v", doc.Settings.HostContainers)
	}
	if diff := cmp.Diff(map[string]string{"example.com/rack": "ours"}, doc.Settings.Kubernetes.NodeLabels); diff != "" {
		t.Errorf("labels: Render's must win (-want +got):\n%s", diff)
	}
	wantTaints := map[string][]string{
		"example.com/dedicated":       {"gpu:NoSchedule"},
		"example.com/agent-not-ready": {":NoExecute"},
		"karpenter.sh/unregistered":   {":NoExecute"},
	}
	if diff := cmp.Diff(wantTaints, doc.Settings.Kubernetes.NodeTaints); diff != "" {
		t.Errorf("node-taints must be replaced (-want +got):\n%s", diff)
	}
}

// With no effective taints at all, the custom node-taints must still go:
// Render replaces the table, it does not merge into it.
func TestRenderBottlerocketNoTaintsDropsCustom(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.Bottlerocket)
	cfg.Taints, cfg.StartupTaints, cfg.NoRequiredTaints = nil, nil, true
	out, err := Render(compat.Bottlerocket, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte("node-taints")) || bytes.Contains(out, []byte("example.com/dropped")) {
		t.Errorf("custom node-taints survived:\n%s", out)
	}
	if r := mustLint(t, compat.Bottlerocket, out, []Taint{}); len(configuredTaints(r)) != 0 || len(r.Problems) > 0 {
		t.Errorf("Lint = %v", r)
	}
}

// With no taints at all, Render still writes registerWithTaints: [],
// which replaces a custom NodeConfig's list when nodeadm merges the
// documents in order: mergo.WithOverride sets a map key to the later
// document's value even when that value is empty
// (awslabs/amazon-eks-ami@81fec2e8 nodeadm/internal/api/merge.go
// mergeInlineDocument, nodeadm/internal/util/merge.go Merge).
func TestRenderAL2023ClearsCustomTaints(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.NoRequiredTaints = true
	cfg.CustomUserData = []byte("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      registerWithTaints: [{key: a, effect: NoSchedule}]\n")
	out, err := Render(compat.AL2023, cfg)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	r := mustLint(t, compat.AL2023, out, []Taint{})
	if diff := cmp.Diff(Report{Verdict: Joins, Taints: wantRegistered(compat.AL2023, nil, nil)}, r); diff != "" {
		t.Errorf("Lint(Render) (-want +got):\n%s", diff)
	}
}

func TestRenderAL2023Decodes(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.AL2023)
	cfg.CustomUserData = nil
	out, err := Render(compat.AL2023, cfg)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := mimedoc.Parse(out, 1)
	if err != nil || len(parts) != 1 {
		t.Fatalf("parts %v, %v", parts, err)
	}
	var nc nodeadm.NodeConfig
	if err := yaml.UnmarshalStrict(parts[0].Body, &nc); err != nil {
		t.Fatal(err)
	}
	if nc.Spec.Cluster != (nodeadm.Cluster{Name: cfg.ClusterName, APIServerEndpoint: cfg.APIServerEndpoint, CertificateAuthority: cfg.CABundle, CIDR: cfg.ClusterCIDR}) {
		t.Errorf("cluster = %+v", nc.Spec.Cluster)
	}
	if diff := cmp.Diff([]string{"--node-labels=example.com/team=ml,karpenter.sh/nodepool=default,node.kubernetes.io/lifecycle=spot"}, nc.Spec.Kubelet.Flags); diff != "" {
		t.Errorf("labels must be the only flag (-want +got):\n%s", diff)
	}
}

func TestRenderCustomFamily(t *testing.T) {
	t.Parallel()
	cfg := goldenConfig(compat.Custom)
	out, err := Render(compat.Custom, cfg)
	if err != nil || !bytes.Equal(out, cfg.CustomUserData) {
		t.Fatalf("Render(Custom) = %q, %v; want the custom data unchanged", out, err)
	}
	cfg.Taints = append(cfg.Taints, Taint{Key: "example.com/missing", Effect: NoSchedule})
	_, err = Render(compat.Custom, cfg)
	var le *LintError
	if !errors.As(err, &le) {
		t.Fatalf("Render(Custom) with a missing taint: error %v; want a *LintError", err)
	}
	if diff := cmp.Diff([]Code{CodeRequiredTaintMissing}, codes(le.Report)); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	cfg.CustomUserData = []byte(userScript)
	cfg.Taints, cfg.StartupTaints = nil, nil
	cfg.RequiredTaints = uninitialized
	if _, err := Render(compat.Custom, cfg); !errors.As(err, &le) || !strings.Contains(err.Error(), "equals-form-ignored") {
		t.Errorf("Render(Custom) of the issue's script: %v; want a lint error naming equals-form-ignored", err)
	}
	if _, err := Render(compat.Custom, Config{}); err == nil {
		t.Error("Render(Custom) accepted empty user data")
	}
}

func TestRenderTooLarge(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.CustomUserData = []byte("#!/bin/bash\n" + strings.Repeat("echo 0123456789abcdef\n", 800))
	_, err := Render(compat.AL2, cfg)
	if err == nil || !strings.Contains(err.Error(), "16384") {
		t.Errorf("Render error = %v; want the 16384-byte limit", err)
	}
}

// RequiredTaints: nil and empty mean the same (Karpenter v1's taint); no
// required taint is the explicit NoRequiredTaints, and asking for both is
// an error.
func TestRequiredTaintsChoice(t *testing.T) {
	t.Parallel()
	nilCfg, emptyCfg := baseConfig(), baseConfig()
	nilCfg.RequiredTaints, emptyCfg.RequiredTaints = nil, []Taint{}
	a, errA := Render(compat.AL2023, nilCfg)
	b, errB := Render(compat.AL2023, emptyCfg)
	if errA != nil || errB != nil || !bytes.Equal(a, b) {
		t.Fatalf("nil and empty RequiredTaints render differently (%v, %v)", errA, errB)
	}
	if diff := cmp.Diff([]Taint{UnregisteredTaint()}, emptyCfg.Required()); diff != "" {
		t.Errorf("Required() of an empty list (-want +got):\n%s", diff)
	}
	none := baseConfig()
	none.NoRequiredTaints = true
	out, err := Render(compat.AL2023, none)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(out, []byte(UnregisteredTaintKey)) || none.Required() != nil {
		t.Errorf("NoRequiredTaints still requires a taint:\n%s", out)
	}
	both := baseConfig()
	both.NoRequiredTaints, both.RequiredTaints = true, []Taint{UnregisteredTaint()}
	if _, err := Render(compat.AL2023, both); err == nil || !strings.Contains(err.Error(), "Config.NoRequiredTaints") {
		t.Errorf("Render with both = %v; want an error naming both fields", err)
	}
}
