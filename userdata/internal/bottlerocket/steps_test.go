package bottlerocket

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSteps: bootstrap commands run before the kubelet, in name order,
// unless their mode is off or unset (BootstrapMode's default,
// bottlerocket-settings-sdk@5ba2c487 modeled-types/src/shared.rs
// L1042-L1048; bottlerocket-core-kit@a10182f9
// sources/bootstrap-commands/src/main.rs L74-L75, L119-L123); the
// settings API validates every command whatever its mode (ApiclientCommand,
// shared.rs L978-L990; BootstrapMode, L1024-L1040). Bootstrap containers
// run an image the user data does not hold (sources/api/bootstrap-containers
// /src/main.rs L276, L305).
func TestSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       []string
	}{
		{"set taint once", "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=:NoSchedule']]\nmode = 'once'\n",
			[]string{"settings.bootstrap-commands.a.commands.0 changes-node"}},
		{"set taint off", "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'kubernetes.node-taints.a=:NoSchedule']]\nmode = 'off'\n", nil},
		{"set taint, mode unset", "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'kubernetes.max-pods=1']]\n", nil},
		{"echo off", "[settings.bootstrap-commands.a]\ncommands = [['echo', 'hello']]\nmode = 'off'\n",
			[]string{"settings.bootstrap-commands.a.commands.0 refused"}},
		// Karpenter v1.14.1 launch-template suite_test.go L1478-L1482.
		{"echo always", "[settings.bootstrap-commands.111-say-hello]\ncommands = [['echo', 'hello']]\nmode = 'always'\nessential = true\n",
			[]string{"settings.bootstrap-commands.111-say-hello.commands.0 refused"}},
		{"ephemeral storage", "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'ephemeral-storage', 'init'], ['apiclient', 'ephemeral-storage', 'bind']]\nmode = 'always'\n", nil},
		{"motd", "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'motd=hi']]\nmode = 'always'\n", nil},
		{"empty", "[settings.bootstrap-commands.a]\ncommands = []\nmode = 'always'\n", nil},
		{"string command", "[settings.bootstrap-commands.a]\ncommands = ['apiclient ephemeral-storage init']\nmode = 'always'\n",
			[]string{"settings.bootstrap-commands.a.commands.0 refused"}},
		{"bad mode", "[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'get']]\nmode = 'sometimes'\n",
			[]string{"settings.bootstrap-commands.a refused"}},
		{"second command", "[settings.bootstrap-commands.b]\ncommands = [['apiclient', 'get'], ['apiclient', 'apply']]\nmode = 'always'\n",
			[]string{"settings.bootstrap-commands.b.commands.1 cannot-tell"}},
		{"order", "[settings.bootstrap-commands.b]\ncommands = [['apiclient', 'reboot']]\nmode = 'once'\n[settings.bootstrap-commands.a]\ncommands = [['apiclient', 'set', 'kubernetes.max-pods=1']]\nmode = 'once'\n",
			[]string{"settings.bootstrap-commands.a.commands.0 changes-node", "settings.bootstrap-commands.b.commands.0 cannot-tell"}},
		{"container", "[settings.bootstrap-containers.setup]\nsource = 'x'\nmode = 'always'\n", []string{"settings.bootstrap-containers.setup cannot-tell"}},
		{"container off", "[settings.bootstrap-containers.setup]\nsource = 'x'\nmode = 'off'\n", nil},
		{"container, mode unset", "[settings.bootstrap-containers.setup]\nsource = 'x'\n", nil},
		{"no steps", "[settings.kubernetes]\nmax-pods = 1\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			settings, err := ReadUserData([]byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, stepStrings(Steps(settings))); diff != "" {
				t.Errorf("Steps (-want +got):\n%s", diff)
			}
		})
	}
}
