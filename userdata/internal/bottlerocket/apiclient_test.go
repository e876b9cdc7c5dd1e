package bottlerocket

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClassify follows apiclient's own argument parsing
// (bottlerocket-core-kit@a10182f9 sources/api/apiclient/src/main.rs:
// global options anywhere L302-L342, the subcommand L331-L356, set
// L516-L576, raw L361-L399) and the API server's handling of set's keys
// (sources/api/apiserver/src/server/mod.rs L754-L781: split at the first
// '=', a "settings." prefix added when missing).
func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv string
		want Effect
	}{
		// ApiclientCommand: the first word must be apiclient
		// (bottlerocket-settings-sdk@5ba2c487 modeled-types/src/shared.rs
		// L978-L990). Karpenter v1.14.1's launch-template suite writes
		// [['echo', 'hello']] (suite_test.go L1478-L1482).
		{"echo hello", Refused},
		{"/usr/bin/apiclient set motd=hi", Refused},
		{"", Refused},
		{"apiclient ephemeral-storage init", Harmless},
		{"apiclient ephemeral-storage bind --dirs /var/lib/containerd /var/lib/kubelet /var/log/pods", Harmless},
		{"apiclient set motd=hello", Harmless},
		{"apiclient set settings.kernel.sysctl.\"net.core.somaxconn\"=1024", Harmless},
		{"apiclient set kubernetes.node-taints.dedicated=gpu:NoSchedule", ChangesNode},
		{"apiclient set settings.kubernetes.max-pods=10", ChangesNode},
		{"apiclient set \"kubernetes\".node-labels.a=b", ChangesNode},
		{"apiclient -v set motd=hi kubernetes.cluster-name=x", ChangesNode},
		{"apiclient set --log-level debug kubernetes.max-pods=1", ChangesNode},
		{"apiclient set bootstrap-containers.x.mode=once", ChangesNode},
		{"apiclient set -j {\"kubernetes\":{\"max-pods\":10}}", ChangesNode},
		{"apiclient set --json {\"settings\":{\"kubernetes\":{\"max-pods\":10}}}", ChangesNode},
		{"apiclient set -j {\"settings\":{\"motd\":\"hi\"}}", Harmless},
		{"apiclient set -j [1]", Harmless},                      // usage: not an object
		{"apiclient set -j {} kubernetes.max-pods=1", Harmless}, // usage: both forms
		{"apiclient set kubernetes..max-pods=1", Harmless},      // the API server refuses the key
		{"apiclient set kubernetes", Harmless},                  // usage: no '='
		{"apiclient set", Harmless},                             // usage: nothing to set
		{"apiclient set -h kubernetes.max-pods=1", Harmless},    // usage
		{"apiclient --socket-path /tmp/s set kubernetes.max-pods=1", ChangesNode},
		{"apiclient set settings=x", CannotTell},
		{"apiclient apply", CannotTell},
		{"apiclient apply s3://bucket/settings.toml", CannotTell},
		{"apiclient exec admin sheltie", CannotTell},
		{"apiclient reboot", CannotTell},
		{"apiclient update apply --reboot", CannotTell},
		{"apiclient update check", Harmless},
		{"apiclient get settings.kubernetes", Harmless},
		{"apiclient report cis", Harmless},
		{"apiclient raw -u /settings", Harmless},
		{"apiclient -u /settings", Harmless},
		{"apiclient raw -u /settings -m PATCH -d {}", CannotTell},
		{"apiclient raw -X POST -u /tx/commit_and_apply", CannotTell},
		{"apiclient", Harmless}, // raw without --uri: usage
	}
	for _, tt := range tests {
		t.Run(tt.argv, func(t *testing.T) {
			got, why := Classify(strings.Fields(tt.argv))
			if got != tt.want || why == "" {
				t.Errorf("Classify(%q) = %v (%s); want %v", tt.argv, got, why, tt.want)
			}
		})
	}
}

// TestParseKey follows the datastore's key parsing
// (bottlerocket-core-kit@a10182f9 sources/api/datastore/src/key.rs
// L232-L319).
func TestParseKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{in: "kubernetes.max-pods", want: []string{"kubernetes", "max-pods"}},
		{in: `kubernetes.node-labels."my.label"`, want: []string{"kubernetes", "node-labels", "my.label"}},
		{in: `"kubernetes".node-taints.a/b`, want: []string{"kubernetes", "node-taints", "a/b"}},
		{in: `a"b.c"d`, want: []string{"ab.cd"}},
		{in: "", err: "empty"},
		{in: "a..b", err: "empty segment"},
		{in: "a.", err: "separator"},
		{in: `a."b`, err: "unbalanced"},
		{in: "a b", err: "invalid character"},
		{in: `"".a`, err: "empty segment"},
		{in: "é", err: "invalid character"},
	}
	for _, tt := range tests {
		got, err := ParseKey(tt.in)
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseKey(%q) error = %v; want %q", tt.in, err, tt.err)
		case tt.err == "" && err != nil:
			t.Errorf("ParseKey(%q) error = %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseKey(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
