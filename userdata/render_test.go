package userdata

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/internal/golden"

	"github.com/google/go-cmp/cmp"

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

func TestRenderTooLarge(t *testing.T) {
	t.Parallel()
	cfg := baseConfig()
	cfg.CustomUserData = []byte("#!/bin/bash\n" + strings.Repeat("echo 0123456789abcdef\n", 800))
	_, err := Render(compat.AL2, cfg)
	if err == nil || !strings.Contains(err.Error(), "16384") {
		t.Errorf("Render error = %v; want the 16384-byte limit", err)
	}
}

// TestInstanceStorePolicy: RAID0 per family, from Karpenter v1.14.1's
// bootstrap (eksbootstrap.go "--local-disks raid0"; nodeadm.go
// LocalStorageRAID0; bottlerocket.go "000-mount-instance-storage" with the
// bind directories before Bottlerocket 1.46.0, version.go
// SupportsDefaultBind); Windows has no option.
func TestInstanceStorePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		family  compat.AMIFamily
		release string
		want    string
		err     string
	}{
		{compat.AL2, "", "'--local-disks' 'raid0'", ""},
		{compat.AL2023, "", "strategy: RAID0", ""},
		{compat.Bottlerocket, "v1.46.0", "commands = [['apiclient', 'ephemeral-storage', 'init'], ['apiclient', 'ephemeral-storage', 'bind']]", ""},
		{compat.Bottlerocket, "v1.45.2", "'--dirs', '/var/lib/containerd', '/var/lib/kubelet', '/var/log/pods'", ""},
		{compat.Bottlerocket, "", "'--dirs', '/var/lib/containerd'", ""},
		{compat.Windows2022, "", "", "not available on Windows"},
	}
	for _, tt := range tests {
		t.Run(tt.family.String()+tt.release, func(t *testing.T) {
			cfg := baseConfig()
			cfg.InstanceStorePolicy, cfg.AMIRelease = RAID0, tt.release
			out, err := Render(tt.family, cfg)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Render error = %v; want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(out, []byte(tt.want)) {
				t.Errorf("output lacks %q:\n%s", tt.want, out)
			}
		})
	}
	cfg := baseConfig()
	cfg.InstanceStorePolicy = "raid0"
	if _, err := Render(compat.AL2, cfg); err == nil || !strings.Contains(err.Error(), `"raid0"`) {
		t.Errorf("Render accepted InstanceStorePolicy raid0: %v", err)
	}
}
