package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// argv is a recorded call's known arguments, "?" for an unknown one.
func argv(c Call) []string {
	var out []string
	for _, a := range c.Args {
		if !a.Known {
			out = append(out, "?")
			continue
		}
		out = append(out, a.Value)
	}
	return out
}

func TestWalkCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         [][]string // each call's arguments
	}{
		{
			// bash: "${ARR[@]}" expands to one word per element.
			name:   "array",
			script: "ARGS=(--kubelet-extra-args '--register-with-taints=k:NoSchedule')\nbootstrap.sh c \"${ARGS[@]}\"\n",
			want:   [][]string{{"c", "--kubelet-extra-args", "--register-with-taints=k:NoSchedule"}},
		},
		{
			name:   "array append",
			script: "A=(c)\nA+=(--apiserver-endpoint 'https://x')\nbootstrap.sh \"${A[@]}\"\n",
			want:   [][]string{{"c", "--apiserver-endpoint", "https://x"}},
		},
		{
			name:   "array element with an unknown expansion",
			script: "A=(c \"$(hostname)\")\nbootstrap.sh \"${A[@]}\"\n",
			want:   [][]string{{"?"}},
		},
		{
			// set -e: bash exits at the failing command.
			name:   "errexit stops before the call",
			script: "set -e\nfalse\nbootstrap.sh c\n",
			want:   nil,
		},
		{
			name:   "errexit from the shebang",
			script: "#!/bin/bash -xe\nfalse\nbootstrap.sh c\n",
			want:   nil,
		},
		{
			name:   "a failing command in a condition does not exit",
			script: "set -e\nif false; then :; fi\nfalse || true\nbootstrap.sh c\n",
			want:   [][]string{{"c"}},
		},
		{
			name:   "set +e turns it off",
			script: "set -e\nset +e\nfalse\nbootstrap.sh c\n",
			want:   [][]string{{"c"}},
		},
		{
			name:   "false without errexit",
			script: "false\nbootstrap.sh c\n",
			want:   [][]string{{"c"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Walk([]byte(tt.script), "bootstrap.sh", "KUBELET_EXTRA_ARGS")
			if err != nil || len(r.Opaque) > 0 {
				t.Fatalf("Walk: %v, opaque %v", err, r.Opaque)
			}
			var got [][]string
			for _, c := range r.Calls {
				got = append(got, argv(c))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWalkOpaque(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, what string
		line               int
	}{
		{"eval", "X='bootstrap.sh c'\neval \"$X\"\n", "eval", 2},
		{"source", "source /tmp/env.sh\n", "eval, source", 1},
		{"bash -c", "bash -c '/etc/eks/bootstrap.sh c'\n", "-c", 1},
		{"sudo sh -c", "sudo sh -c 'bootstrap.sh c'\n", "-c", 1},
		{"curl into bash", "curl -s https://example.com/x | bash\n", "input", 1},
		{"python", "python3 -c 'import subprocess'\n", "Python", 1},
		{"a script written then run", "cat > /tmp/j.sh <<EOF\nbootstrap.sh c\nEOF\nchmod +x /tmp/j.sh\n/tmp/j.sh\n", "/tmp/j.sh", 5},
		{"bash running a file", "bash ./join.sh\n", "./join.sh", 1},
		{"unknown command name", "$JOIN c\n", "only known at boot", 1},
		{"systemctl starts the kubelet", "systemctl start kubelet\n", "kubelet unit", 1},
		{"kubelet run directly", "/usr/bin/kubelet --config x\n", "kubelet binary", 1},
		{"trap running the join", "trap 'bootstrap.sh c' EXIT\n", "trap", 1},
		{"errexit maybe", "if [ -f x ]; then set -e; fi\nfalse\n", "set -e", 2},
		{"exit in a branch", "[ -f /var/lib/done ] && exit 0\nbootstrap.sh c\n", "exit", 1},
		{"failing command in a branch under set -e", "set -e\nif [ -f /x ]; then\n  false\nfi\nbootstrap.sh c\n", "set -e", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Walk([]byte(tt.script), "bootstrap.sh", "KUBELET_EXTRA_ARGS")
			if err != nil {
				t.Fatal(err)
			}
			opaque := r.Opaque
			if len(opaque) == 0 || opaque[0].Line != tt.line || !strings.Contains(opaque[0].What, tt.what) {
				t.Errorf("opaque = %+v; want line %d naming %q", opaque, tt.line, tt.what)
			}
		})
	}
}

func TestWalkFollowable(t *testing.T) {
	t.Parallel()
	for _, script := range []string{
		"yum install -y jq\nsystemctl restart containerd\n/usr/bin/echo hi\ntrap 'echo failed' ERR\n",
		"set -o pipefail\nexport X=1\n/etc/eks/bootstrap.sh c\n",
		"set -e\ndie() { echo \"$1\"; false; exit 1; }\n/etc/eks/bootstrap.sh c\n", // a helper that is defined, not followed
	} {
		r, err := Walk([]byte(script), "bootstrap.sh", "KUBELET_EXTRA_ARGS")
		if err != nil || len(r.Opaque) > 0 {
			t.Errorf("%q: opaque %+v, %v; want none", script, r.Opaque, err)
		}
	}
}

// Wrappers without their operands must not panic (a "bash -o" once did).
func TestWalkWrappersWithoutOperands(t *testing.T) {
	t.Parallel()
	for _, script := range []string{"bash -o\n", "sh +o\n", "sudo\n", "timeout\n", "env -u\n", "cloud-init-per once\n", "nice -n\n"} {
		if _, err := Walk([]byte(script), "bootstrap.sh", "KUBELET_EXTRA_ARGS"); err != nil {
			t.Errorf("%q: %v", script, err)
		}
	}
}

func TestExhaustive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   bool
	}{
		{"if [ -f x ]; then bootstrap.sh a; else bootstrap.sh b; fi\n", true},
		{"if [ -f x ]; then bootstrap.sh a; elif [ -f y ]; then bootstrap.sh b; else bootstrap.sh c; fi\n", true},
		{"if [ -f x ]; then bootstrap.sh a; fi\n", false},
		{"if [ -f x ]; then bootstrap.sh a; elif [ -f y ]; then bootstrap.sh b; fi\n", false},
		{"case $H in a) bootstrap.sh a ;; *) bootstrap.sh b ;; esac\n", true},
		{"case $H in a) bootstrap.sh a ;; b) bootstrap.sh b ;; esac\n", false},
		{"for i in 1; do if [ -f x ]; then bootstrap.sh a; else bootstrap.sh b; fi; done\n", false},
		{"if [ -f x ]; then [ -f z ] && bootstrap.sh a; else bootstrap.sh b; fi\n", false},
	}
	for _, tt := range tests {
		r, err := Walk([]byte(tt.script), "bootstrap.sh", "KUBELET_EXTRA_ARGS")
		if err != nil {
			t.Fatal(err)
		}
		if got := Exhaustive(r.Calls); got != tt.want {
			t.Errorf("%q: Exhaustive = %v; want %v", tt.script, got, tt.want)
		}
	}
}
