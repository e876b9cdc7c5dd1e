package userdata

import (
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/google/go-cmp/cmp"
)

func TestLintBottlerocket(t *testing.T) {
	t.Parallel()
	base := "[settings.kubernetes]\ncluster-name = 'c'\napi-server = 'https://x'\n"
	tests := []struct {
		name   string
		doc    string
		want   []Code
		taints []Taint
	}{
		{name: "list form", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\nteam = ['a:NoSchedule', 'a:NoExecute']\n",
			taints: []Taint{UnregisteredTaint(), {Key: "team", Value: "a", Effect: NoExecute}, {Key: "team", Value: "a", Effect: NoSchedule}}},
		{name: "string form", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = ':NoExecute'\n", taints: []Taint{UnregisteredTaint()}},
		{name: "missing", doc: base, want: []Code{CodeRequiredTaintMissing}, taints: []Taint{}},
		{name: "bad effect", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExec']\n", want: []Code{CodeInvalidTaint}},
		{name: "no colon", doc: base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = ['NoExecute']\n", want: []Code{CodeInvalidTaint}},
		{name: "no cluster", doc: "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n", want: []Code{CodeIncompleteConfig}},
		{name: "bad toml", doc: "[settings.kubernetes\n", want: []Code{CodeSyntax}},
		// The settings model denies unknown fields
		// (bottlerocket-settings-sdk@5ba2c487
		// bottlerocket-settings-models/model-derive/src/lib.rs L107-L120),
		// the settings API refuses the PATCH and early-boot-config fails.
		{name: "unknown setting", doc: base + "node-taint = 'x'\n", want: []Code{CodeRefusedSetting}},
		// Bootstrap commands run before the kubelet (apiclient set can
		// change node-taints); ephemeral-storage setup cannot.
		{name: "bootstrap command", doc: "[settings.bootstrap-commands.x]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=:NoSchedule']]\nmode = 'once'\n" + base, want: []Code{CodeUnresolved}},
		{name: "ephemeral-storage bootstrap command", doc: "[settings.bootstrap-commands.raid]\ncommands = [['apiclient', 'ephemeral-storage', 'init']]\n" + base + "[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n",
			taints: []Taint{UnregisteredTaint()}},
		{name: "forbidden label", doc: base + "[settings.kubernetes.node-labels]\n'kubernetes.io/role' = 'x'\n[settings.kubernetes.node-taints]\n'karpenter.sh/unregistered' = [':NoExecute']\n", want: []Code{CodeForbiddenLabel}},
	}
	for _, tt := range tests {
		got := mustLint(t, compat.Bottlerocket, []byte(tt.doc), nil)
		if diff := cmp.Diff(tt.want, codes(got)); diff != "" {
			t.Errorf("%s: codes mismatch (-want +got):\n%s\n%s", tt.name, diff, got)
		}
		if len(tt.taints) == 0 {
			tt.taints = nil
		}
		if diff := cmp.Diff(tt.taints, configuredTaints(got)); diff != "" {
			t.Errorf("%s: taints (-want +got):\n%s", tt.name, diff)
		}
	}
}
