package shell

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
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
			r, err := Walk([]byte(tt.script), bootstrapOptions)
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
		{"bash -c with a string only known at boot", "bash -c \"$JOIN\"\n", "-c", 1},
		{"sudo sh -c of a string that does not parse", "sudo sh -c 'bootstrap.sh c )'\n", "-c", 1},
		{"curl into bash", "curl -s https://example.com/x | bash\n", "input", 1},
		{"python", "python3 -c 'import subprocess'\n", "Python", 1},
		{"a script written then run", "cat > /tmp/j.sh <<EOF\nbootstrap.sh c\nEOF\nchmod +x /tmp/j.sh\n/tmp/j.sh\n", "/tmp/j.sh", 5},
		{"bash running a file", "bash ./join.sh\n", "./join.sh", 1},
		{"unknown command name", "$JOIN c\n", "only known at boot", 1},
		{"trap running the join", "trap 'bootstrap.sh c' EXIT\n", "trap", 1},
		{"errexit maybe", "if [ -f x ]; then set -e; fi\nfalse\n", "set -e", 2},
		{"exit in a branch", "[ -f /var/lib/done ] && exit 0\nbootstrap.sh c\n", "exit", 1},
		{"failing command in a branch under set -e", "set -e\nif [ -f /x ]; then\n  false\nfi\nbootstrap.sh c\n", "set -e", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Walk([]byte(tt.script), bootstrapOptions)
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
		r, err := Walk([]byte(script), bootstrapOptions)
		if err != nil || len(r.Opaque) > 0 {
			t.Errorf("%q: opaque %+v, %v; want none", script, r.Opaque, err)
		}
	}
}

// Wrappers without their operands must not panic (a "bash -o" once did).
func TestWalkWrappersWithoutOperands(t *testing.T) {
	t.Parallel()
	for _, script := range []string{"bash -o\n", "sh +o\n", "sudo\n", "timeout\n", "env -u\n", "cloud-init-per once\n", "nice -n\n"} {
		if _, err := Walk([]byte(script), bootstrapOptions); err != nil {
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
		r, err := Walk([]byte(tt.script), bootstrapOptions)
		if err != nil {
			t.Fatal(err)
		}
		if got := Exhaustive(r.Calls); got != tt.want {
			t.Errorf("%q: Exhaustive = %v; want %v", tt.script, got, tt.want)
		}
	}
}

// summary writes what Walk found, one line per call, construct and stop:
// a call's arguments ("?" for one only known at boot) and what is known
// about how it runs.
func summary(r Result) []string {
	var out []string
	for _, c := range r.Calls {
		s := fmt.Sprintf("call L%d", c.Line)
		if c.UnknownName {
			s += " (name unknown)"
		}
		for _, a := range c.Args {
			if a.Known {
				s += " " + a.Value
			} else {
				s += " ?"
			}
		}
		switch {
		case !c.Env.Known:
			s += " env=?"
		case c.Env.Set:
			s += " env=" + c.Env.Value
		}
		for _, f := range []struct {
			on   bool
			name string
		}{{c.Cond, "cond"}, {c.Errexit, "errexit"}, {c.ErrexitMaybe, "errexit?"}, {c.Choice > 0, fmt.Sprintf("choice L%d", c.Choice)}} {
			if f.on {
				s += " [" + f.name + "]"
			}
		}
		out = append(out, s)
	}
	for _, o := range r.Opaque {
		out = append(out, fmt.Sprintf("opaque L%d: %s", o.Line, o.What))
	}
	for _, o := range r.Starts {
		out = append(out, fmt.Sprintf("start L%d: %s", o.Line, o.What))
	}
	for _, f := range r.Files {
		s := fmt.Sprintf("file L%d %s %s", f.Line, [...]string{"unknown", "write", "append", "filter", "remove"}[f.Kind], f.Path)
		switch f.Kind {
		case OpUnknown:
			s += " (" + f.What + ")"
		case OpFilter:
			s += " " + f.Tool + " " + f.Text + strings.Join(f.Args, " ")
		case OpWrite, OpAppend:
			s += " " + fmt.Sprintf("%q", f.Text)
		}
		if f.Cond {
			s += " [cond]"
		}
		out = append(out, s)
	}
	if r.StopLine > 0 {
		out = append(out, fmt.Sprintf("stop L%d: %s (skips target %v)", r.StopLine, r.StopWhy, r.SkipsTarget))
	}
	return out
}

// TestWalkSemantics pins how the walker follows each bash construct it
// models, as bash runs it (bash(1): SHELL GRAMMAR, EXPANSION, SHELL
// BUILTIN COMMANDS), and what it gives up on.
func TestWalkSemantics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
	}{
		// Conditions decided statically: only the arm that runs is walked.
		{"if true runs its arm only", "if true; then bootstrap.sh a; else bootstrap.sh b; fi\n",
			[]string{"call L1 a"}},
		{"if false skips to else", "if [ 1 -gt 2 ]; then bootstrap.sh a; else bootstrap.sh b; fi\n",
			[]string{"call L1 b"}},
		{"an unknown condition makes both arms conditional", "if [ -f /x ]; then bootstrap.sh a; else bootstrap.sh b; fi\n",
			[]string{"call L1 a [cond]", "call L1 b [cond]"}},
		{"elif after an unknown arm", "if [ -f /x ]; then :; elif true; then bootstrap.sh a; fi\n",
			[]string{"call L1 a [cond]"}},

		// Compound commands.
		{"a brace group runs", "{ bootstrap.sh a; }\n", []string{"call L1 a"}},
		{"exit in a group stops the script", "{ exit 0; bootstrap.sh a; }\nbootstrap.sh b\n",
			[]string{"stop L1: exit (skips target true)"}},
		{"a subshell's variables do not come back", "X=1\n(X=2; bootstrap.sh $X)\nbootstrap.sh $X\n",
			[]string{"call L2 2", "call L3 1"}},
		{"a background job may not have run", "bootstrap.sh a &\n", []string{"call L1 a [cond]"}},
		{"a function body is conditional", "f() { bootstrap.sh a; }\n", []string{"call L1 a [cond]"}},
		{"time runs its command", "time bootstrap.sh a\n", []string{"call L1 a"}},
		{"coproc", "coproc bootstrap.sh a\n", []string{"call L1 a [cond]"}},
		{"a for loop variable is unknown", "for x in a b; do bootstrap.sh $x; done\n",
			[]string{"call L1 ? [cond]"}},
		{"while", "while true; do bootstrap.sh a; break; done\n", []string{"call L1 a [cond]"}},
		{"case", "case $H in a) bootstrap.sh a ;; esac\n", []string{"call L1 a [cond]"}},
		{"a pipeline's sides run", "echo x | bootstrap.sh a\n", []string{"call L1 a"}},
		{"&& makes the right side conditional", "true && bootstrap.sh a\n", []string{"call L1 a [cond]"}},
		{"a statement that is only a redirection", ">/tmp/x\nbootstrap.sh a\n", []string{"call L2 a"}},

		// Arithmetic assigns values the walker does not compute.
		{"(( ++ ))", "X=1\n((X++))\nbootstrap.sh $X\n", []string{"call L3 ?"}},
		// Every assignment operator changes X. mvdan.cc/sh v3.12.0 numbers
		// Assgn after ShrAssgn (syntax/tokens.go: assgn follows shrAssgn in
		// the token list), so a range test from Assgn to ShrAssgn matches
		// none of them and X kept its old, known value.
		{"let X=", "X=1\nlet X=2\nbootstrap.sh $X\n", []string{"call L3 ?"}},
		{"(( += ))", "X=1\n((X+=2))\nbootstrap.sh $X\n", []string{"call L3 ?"}},
		{"let >>=", "X=8\nlet 'X>>=1'\nbootstrap.sh $X\n", []string{"call L3 ?"}},
		// Bash evaluates a variable's value used in arithmetic as an
		// expression (Y='X=3'; ((Y)) assigns X), and let's quoted words.
		{"a variable whose value assigns", "Y='X=3'\nX=1\n((Y))\nbootstrap.sh $X\n", []string{"call L4 ?"}},
		{"let with a string only known at boot", "X=1\nlet \"$(cat /tmp/e)\"\nbootstrap.sh $X\n", []string{"call L3 ?"}},
		{"an arithmetic comparison assigns nothing", "X=1\n((X == 2))\nbootstrap.sh $X\n", []string{"call L3 1"}},

		// Assignments.
		{"append to a known string", "X=a\nX+=b\nbootstrap.sh $X\n", []string{"call L3 ab"}},
		{"append to an unknown string", "X=$(date)\nX+=b\nbootstrap.sh \"$X\"\n", []string{"call L3 ?"}},
		{"an indexed element assignment", "A[1]=x\nbootstrap.sh \"$A\"\n", []string{"call L2 ?"}},
		{"an array with an explicit index", "A=([1]=x)\nbootstrap.sh \"${A[@]}\"\n", []string{"call L2 ?"}},
		{"array append to a scalar", "A=x\nA+=(y)\nbootstrap.sh \"${A[@]}\"\n", []string{"call L3 ?"}},
		// Each arm is walked on its own copy of the variables: a value the
		// arms leave different is one of their values, and a call using
		// it is one call per value, exactly one of which runs.
		{"a conditional assignment that may differ", "X=a\nif [ -f /x ]; then X=b; fi\nbootstrap.sh $X\n",
			[]string{"call L3 b [cond] [choice L2]", "call L3 a [cond] [choice L2]"}},
		{"if/else assigning in both arms", "if [ -f /x ]; then T=a; else T=b; fi\nbootstrap.sh $T\n",
			[]string{"call L2 a [cond] [choice L1]", "call L2 b [cond] [choice L1]"}},
		{"an arm that appends", "E=--x\nif [ -f /s ]; then\n  E=\"$E --y\"\nfi\nbootstrap.sh \"$E\"\n",
			[]string{"call L5 --x --y [cond] [choice L2]", "call L5 --x [cond] [choice L2]"}},
		{"&& assigns or not", "E=a\n[ -f /s ] && E=b\nbootstrap.sh $E\n",
			[]string{"call L3 b [cond] [choice L2]", "call L3 a [cond] [choice L2]"}},
		{"an if without else over a variable the script never set", "if [ -f /x ]; then T=a; fi\nbootstrap.sh $T\n",
			[]string{"call L2 ?"}},
		{"a loop's assignment stays unknown", "E=a\nfor i in 1 2; do E=\"$E b\"; done\nbootstrap.sh $E\n",
			[]string{"call L3 ?"}},
		// Arms that assign nothing are walked in place ([Walker.fork]); each
		// of these first arms assigns without NAME=value, as the Bash
		// Reference Manual (bash 5.2) says: read and declare (§4.2 Bash
		// Builtin Commands), ${X:=word} (§3.5.3 Shell Parameter Expansion),
		// $((X=2)) (§6.5 Shell Arithmetic), for (§3.2.5.1), unset (§4.1);
		// the else arm must still see the value from before the if.
		{"an arm that reads", "X=a\nif [ -f /s ]; then read X; else bootstrap.sh $X; fi\n", []string{"call L2 a [cond]"}},
		{"an arm that assigns by ${X:=}", "X=\nif [ -f /s ]; then : ${X:=b}; else bootstrap.sh a$X; fi\n",
			[]string{"call L2 a [cond]"}},
		{"an arm whose redirection assigns", "X=\nif [ -f /s ]; then echo >>\"/tmp/${X:=b}\"; else bootstrap.sh a$X; fi\n",
			[]string{"call L2 a [cond]"}},
		{"an arm that computes", "X=a\nif [ -f /s ]; then : $((X=2)); else bootstrap.sh $X; fi\n", []string{"call L2 a [cond]"}},
		{"an arm that loops", "X=a\nif [ -f /s ]; then for X in b; do :; done; else bootstrap.sh $X; fi\n",
			[]string{"call L2 a [cond]"}},
		{"an arm whose command name is a variable", "X=a\nR=read\nif [ -f /s ]; then $R X; else bootstrap.sh $X; fi\n",
			[]string{"call L3 a [cond]"}},
		{"an arm whose array index computes", "X=a\nif [ -f /s ]; then : ${A[X=2]}; else bootstrap.sh $X; fi\n",
			[]string{"call L2 a [cond]"}},
		// bash evaluates an indexed array's subscript as arithmetic, so
		// ${A[i++]} increments i (bash 5.2 manual, "Arrays").
		{"an array index assigns", "i=0\nA=(a b)\n: ${A[i++]}\nbootstrap.sh $i\n", []string{"call L4 ?"}},
		// mvdan.cc/sh v3.12.0 panics on ${X@P} and the other transformations
		// it does not compute (expand/param.go:332-334).
		{"${X@P} is not computed", "X=a\nbootstrap.sh ${X@P} ${X@U}\n", []string{"call L2 ? ?"}},
		{"an arm that declares", "X=a\nif [ -f /s ]; then declare X=b; fi\nbootstrap.sh $X\n",
			[]string{"call L3 b [cond] [choice L2]", "call L3 a [cond] [choice L2]"}},
		{"an arm that unsets", "X=a\nif [ -f /s ]; then unset X; fi\nbootstrap.sh $X\n",
			[]string{"call L3 [cond] [choice L2]", "call L3 a [cond] [choice L2]"}},
		{"too many combinations", "A=0; B=0; C=0; D=0; F=0\n" + strings.Repeat("", 0) +
			"[ -f /a ] && A=1\n[ -f /b ] && B=1\n[ -f /c ] && C=1\n[ -f /d ] && D=1\n[ -f /f ] && F=1\nbootstrap.sh $A$B$C$D$F\n",
			[]string{"call L7 ?"}},
		{"a conditional assignment that agrees", "X=a\nif [ -f /x ]; then X=a; fi\nbootstrap.sh $X\n", []string{"call L3 a"}},
		{"unset", "X=a\nunset -v X\nbootstrap.sh \"$X\"\n", []string{"call L3 "}},
		{"read", "read X\nbootstrap.sh $X\n", []string{"call L2 ?"}},
		{"printf -v", "printf -v X %s a\nbootstrap.sh $X\n", []string{"call L2 ?"}},

		// declare, export and their options.
		{"declare -x exports", "declare -x KUBELET_EXTRA_ARGS=v\nbootstrap.sh a\n", []string{"call L2 a env=v"}},
		{"export then export -n", "export KUBELET_EXTRA_ARGS=v\nexport -n KUBELET_EXTRA_ARGS\nbootstrap.sh a\n", []string{"call L3 a"}},
		{"declare +x", "export KUBELET_EXTRA_ARGS=v\ndeclare +x KUBELET_EXTRA_ARGS\nbootstrap.sh a\n", []string{"call L3 a"}},
		{"export a name assigned before", "KUBELET_EXTRA_ARGS=v\nexport KUBELET_EXTRA_ARGS\nbootstrap.sh a\n", []string{"call L3 a env=v"}},
		{"declare -a", "declare -a A=(x)\nbootstrap.sh \"${A[@]}\"\n", []string{"call L2 ?"}},
		{"declare with an option only known at boot", "declare $OPT X=1\nbootstrap.sh $X\n", []string{"call L2 ?"}},
		{"readonly", "readonly X=1\nbootstrap.sh $X\n", []string{"call L2 1"}},
		{"nameref", "X=1\nnameref X=Y\nbootstrap.sh $X\n", []string{"call L3 ?"}},

		// set: allexport and errexit.
		{"set -a exports later assignments", "set -a\nKUBELET_EXTRA_ARGS=v\nbootstrap.sh a\n", []string{"call L3 a env=v"}},
		{"set -o allexport then +o", "set -o allexport\nset +o allexport\nKUBELET_EXTRA_ARGS=v\nbootstrap.sh a\n", []string{"call L4 a"}},
		{"set +a", "set -a\nset +a\nKUBELET_EXTRA_ARGS=v\nbootstrap.sh a\n", []string{"call L4 a"}},
		{"set -o errexit", "set -o errexit\nbootstrap.sh a\n", []string{"call L2 a [errexit]"}},
		{"set +o errexit", "set -e\nset +o errexit\nbootstrap.sh a\n", []string{"call L3 a"}},
		{"errexit set in a branch", "if [ -f /x ]; then set -e; fi\nbootstrap.sh a\n", []string{"call L2 a [errexit?]"}},
		{"#! without -e", "#!/bin/bash -x\nfalse\nbootstrap.sh a\n", []string{"call L3 a"}},

		// The environment variable the target reads.
		{"a prefix assignment", "KUBELET_EXTRA_ARGS=v bootstrap.sh a\n", []string{"call L1 a env=v"}},
		{"env NAME=value", "env KUBELET_EXTRA_ARGS=v bootstrap.sh a\n", []string{"call L1 a env=v"}},
		{"env -u clears it", "export KUBELET_EXTRA_ARGS=v\nenv -u KUBELET_EXTRA_ARGS bootstrap.sh a\n", []string{"call L2 a"}},
		{"env -u of a name only known at boot", "export KUBELET_EXTRA_ARGS=v\nenv -u $N bootstrap.sh a\n", []string{"call L2 a env=?"}},
		{"env -i clears it", "export KUBELET_EXTRA_ARGS=v\nenv -i bootstrap.sh a\n", []string{"call L2 a"}},
		{"sudo clears it", "export KUBELET_EXTRA_ARGS=v\nsudo bootstrap.sh a\n", []string{"call L2 a"}},
		{"sudo -E keeps it", "export KUBELET_EXTRA_ARGS=v\nsudo -E bootstrap.sh a\n", []string{"call L2 a env=v"}},
		{"an unexported variable is not passed", "KUBELET_EXTRA_ARGS=v\nbootstrap.sh a\n", []string{"call L2 a"}},

		// Wrappers.
		{"nice -n", "nice -n 5 bootstrap.sh a\n", []string{"call L1 a"}},
		{"exec --", "exec -- bootstrap.sh a\n", []string{"call L1 a"}},
		{"timeout", "timeout -s KILL 60 bootstrap.sh a\n", []string{"call L1 a"}},
		{"cloud-init-per", "cloud-init-per once join bootstrap.sh a\n", []string{"call L1 a"}},
		{"bash running the target", "bash -o errexit /etc/eks/bootstrap.sh a\n", []string{"call L1 a"}},
		{"a wrapper of a command only known at boot", "sudo $CMD a\n", []string{"opaque L1: a command whose name is only known at boot (sudo)"}},
		{"a path whose directory is only known at boot", "$DIR/bootstrap.sh a\n", []string{"call L1 (name unknown) env=?"}},
		{"a quoted command name", "'bootstrap.sh' a\n", []string{"call L1 a"}},
		{"a command word that expands to nothing", "$EMPTY\nbootstrap.sh a\n", []string{"call L2 a", "opaque L1: a command whose name is only known at boot ($EMPTY)"}},

		// Words.
		{"a tilde is not expanded", "bootstrap.sh ~/x\n", []string{"call L1 ?"}},
		{"indirection", "X=a\nbootstrap.sh ${!X}\n", []string{"call L2 ?"}},
		{"a slice", "X=abc\nbootstrap.sh ${X:1}\n", []string{"call L2 ?"}},
		{"a default value of a known variable", "X=a\nbootstrap.sh ${X:-b}\n", []string{"call L2 a"}},
		{"word splitting of a known value", "X='a  b'\nbootstrap.sh $X \"$X\"\n", []string{"call L2 a b a  b"}},

		// Exits.
		{"exit in a function is not followed", "f() { exit 1; }\nbootstrap.sh a\n", []string{"call L2 a"}},
		{"exit in a branch", "if [ -f /x ]; then exit 0; fi\nbootstrap.sh a\n", []string{"call L2 a", "opaque L1: exit in a branch that may or may not run"}},
		{"exit at the top level", "bootstrap.sh a\nexit 0\n", []string{"call L1 a", "stop L2: exit (skips target false)"}},

		// Shells and interpreters.
		{"a bare shell reads its input", "curl -s https://x | sudo bash\n", []string{"opaque L1: a shell reading commands from its input"}},
		// sh -c with a static string is a shell running that script: its
		// calls are reported on the line of the sh -c.
		{"sh -c through a wrapper", "nohup sh -c 'bootstrap.sh a'\n", []string{"call L1 a"}},
		{"sh -c sees exported variables only", "export A=x\nB=y\nsh -c 'bootstrap.sh \"$A\" \"$B\"'\n", []string{"call L3 x ?"}},
		{"sh -c's exit ends only that shell", "sh -c 'exit 1'\nbootstrap.sh a\n", []string{"call L2 a"}},
		{"sh -c running eval", "sudo sh -xc 'eval \"$X\"'\n", []string{"opaque L1: sh -c: eval, source or '.': runs text the walker cannot read"}},
		{"sh -c under set -e may end the script", "set -e\nsh -c 'bootstrap.sh a'\n", []string{"call L2 a [errexit?]"}},
		{"service acting on the kubelet", "service kubelet start\n", []string{"start L1: service acting on the kubelet unit"}},
		{"systemctl starts the kubelet", "systemctl daemon-reload\nsystemctl restart kubelet\n", []string{"start L2: systemctl acting on the kubelet unit"}},
		{"the kubelet run directly", "/usr/bin/kubelet --config x\n", []string{"start L1: the kubelet binary, run directly"}},
		{"cfn-signal is a known program", "/opt/aws/bin/cfn-signal --exit-code $? --stack s --resource r\n", nil},
		{"an unknown program by its path", "/opt/tools/setup\n", []string{"opaque L1: a script the walker has not read (/opt/tools/setup)"}},

		// Side effects of expansions.
		{"a call inside a command substitution runs", "X=$(bootstrap.sh a)\n", []string{"call L1 a"}},
		{"arithmetic expansion assigns", "X=1\necho $((X+=1))\nbootstrap.sh $X\n", []string{"call L3 ?"}},
		{"${X:=word} assigns an unset X", "echo ${X:=a}\nbootstrap.sh $X\n", []string{"call L2 ?"}},
		{"systemctl on another unit", "systemctl restart containerd\nbootstrap.sh a\n", []string{"call L2 a"}},
		{"nodeadm run directly", "nodeadm init\n", []string{"start L1: the nodeadm binary, run directly"}},
		{"xargs", "echo a | xargs bootstrap.sh\n", []string{"opaque L1: xargs, which builds commands from its input"}},
		{"an installed program by its path", "/usr/bin/env bootstrap.sh a\n", []string{"call L1 a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Walk([]byte(tt.script), bootstrapOptions)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(r)); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.script, diff)
			}
		})
	}
}

// TestWalkSyntaxError: bash runs the complete commands before a syntax
// error, so the calls before it are returned with the error and its line.
func TestWalkSyntaxError(t *testing.T) {
	t.Parallel()
	r, err := Walk([]byte("bootstrap.sh a\nif then\n"), bootstrapOptions)
	se, ok := err.(*SyntaxError)
	if !ok || se.Line != 2 || se.Error() == "" {
		t.Fatalf("err = %v; want a *SyntaxError on line 2", err)
	}
	if diff := cmp.Diff([]string{"call L1 a"}, summary(r)); diff != "" {
		t.Errorf("calls before the error (-want +got):\n%s", diff)
	}
}

// TestWalkErrorsAfterTheStop: an unclosed here-document is a syntax error
// on its line, and one after an exit is never read, as bash reads the
// script. mvdan.cc/sh v3.14's Stmts panicked on the first (parseStmts).
func TestWalkErrorsAfterTheStop(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		script string
		line   int // of the SyntaxError; 0: none
		calls  []string
	}{
		{"<<EOF &\n", 1, nil},
		{"bootstrap.sh a\ncat <<EOF\n", 2, []string{"call L1 a"}},
		{"bootstrap.sh a\nexit 0\ncat <<EOF\n", 0, []string{"call L1 a", "stop L2: exit (skips target false)"}},
		{"bootstrap.sh a\nexit 0\nif then\n", 0, []string{"call L1 a", "stop L2: exit (skips target false)"}},
	} {
		r, err := Walk([]byte(tt.script), bootstrapOptions)
		line := 0
		if se, ok := err.(*SyntaxError); ok {
			line = se.Line
		} else if err != nil {
			t.Errorf("%q: %v, not a *SyntaxError", tt.script, err)
		}
		if line != tt.line {
			t.Errorf("%q: syntax error on line %d, want %d (%v)", tt.script, line, tt.line, err)
		}
		if diff := cmp.Diff(tt.calls, summary(r)); diff != "" {
			t.Errorf("%q: calls (-want +got):\n%s", tt.script, diff)
		}
	}
}

// TestExclusive: two calls exclude each other only when they are in
// different arms of the same if or case clause.
func TestExclusive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   bool
	}{
		{"if [ -f x ]; then bootstrap.sh a; else bootstrap.sh b; fi\n", true},
		{"case $H in a) bootstrap.sh a ;; *) bootstrap.sh b ;; esac\n", true},
		{"if [ -f x ]; then bootstrap.sh a; bootstrap.sh b; fi\n", false},
		{"bootstrap.sh a\nbootstrap.sh b\n", false},
		{"if [ -f x ]; then bootstrap.sh a; fi\nif [ -f x ]; then :; else bootstrap.sh b; fi\n", false},
		{"if [ -f x ]; then if [ -f y ]; then bootstrap.sh a; else bootstrap.sh b; fi; fi\n", true},
	}
	for _, tt := range tests {
		r, err := Walk([]byte(tt.script), bootstrapOptions)
		if err != nil || len(r.Calls) != 2 {
			t.Fatalf("%q: %v, %d calls", tt.script, err, len(r.Calls))
		}
		if got := Exclusive(r.Calls[0], r.Calls[1]); got != tt.want {
			t.Errorf("%q: Exclusive = %v; want %v", tt.script, got, tt.want)
		}
	}
	if Exhaustive(nil) {
		t.Error("Exhaustive(nil) = true; no call certainly runs")
	}
	if n, complete := clauseArms(&syntax.WhileClause{}); n != 0 || complete {
		t.Errorf("clauseArms(while) = %d, %v; a loop has no arms", n, complete)
	}
}

// TestWalkerEnviron: the walker is the expand.Environ of its expansions:
// only variables it knows are set, in name order.
func TestWalkerEnviron(t *testing.T) {
	t.Parallel()
	w := NewWalker("bootstrap.sh", "KUBELET_EXTRA_ARGS")
	f, err := syntax.NewParser().Parse(strings.NewReader("B=2\nA=(x y)\nC=$(date)\nexport D=4\neval x\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range f.Stmts[:4] {
		w.stmt(st, false)
	}
	var names []string
	w.Each(func(name string, v expand.Variable) bool {
		names = append(names, name+"="+v.String())
		return name != "B"
	})
	if diff := cmp.Diff([]string{"A=x", "B=2"}, names); diff != "" {
		t.Errorf("Each stops when fn returns false (-want +got):\n%s", diff)
	}
	if v := w.Get("D"); !v.Exported || v.Str != "4" {
		t.Errorf("Get(D) = %+v; want exported 4", v)
	}
	if v := w.Get("C"); v.IsSet() {
		t.Errorf("Get(C) = %+v; an unknown value is not set", v)
	}
	w.stmt(f.Stmts[4], false)
	if got := w.Opaque(); len(got) != 1 || got[0].Line != 5 {
		t.Errorf("Opaque() = %+v; want eval on line 5", got)
	}
	if v := w.Get("B"); v.IsSet() {
		t.Errorf("after eval Get(B) = %+v; any variable may have changed", v)
	}
}

// bootstrapOptions walks for AL2's join and its environment variable.
var bootstrapOptions = Options{Target: "bootstrap.sh", EnvName: "KUBELET_EXTRA_ARGS"}

// TestWalkFiles pins what the walker records about changes to watched
// files (here AL2's join and the kubelet's files): the static edits people
// make before calling the join, followed; reads ignored; anything else
// that names a watched path is an unknown change.
func TestWalkFiles(t *testing.T) {
	t.Parallel()
	const (
		boot   = "/etc/eks/bootstrap.sh"
		config = "/etc/kubernetes/kubelet/kubelet-config.json"
		dropIn = "/etc/systemd/system/kubelet.service.d/20-x.conf"
	)
	o := Options{Target: "bootstrap.sh", EnvName: "KUBELET_EXTRA_ARGS",
		Watch: []string{"/etc/eks", "/etc/kubernetes", "/etc/systemd/system/kubelet.service.d"}}
	tests := []struct {
		name, script string
		want         []string
	}{
		// aws/containers-roadmap#864's workaround, as
		// terraform-aws-modules/terraform-aws-eks
		// modules/node_groups/templates/userdata.sh.tpl@18e0a047 writes it.
		{"sed -i appending to bootstrap.sh",
			"sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=a=b:NoSchedule\"' " + boot + "\n",
			[]string{"file L1 filter " + boot + " sed /^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=a=b:NoSchedule\""}},
		{"sed -e with a backup suffix", "sed -i.bak -e 's/a/b/' -e 's/c/d/' " + boot + "\n",
			[]string{"file L1 filter " + boot + " sed s/a/b/\ns/c/d/"}},
		// bootstrap.sh's own way of editing the config (L488).
		{"echo of jq over the file, written back",
			"echo \"$(jq '.maxPods=20' " + config + ")\" > " + config + "\n",
			[]string{"file L1 filter " + config + " jq .maxPods=20"}},
		{"jq to a temporary file, moved back",
			"CFG=" + config + "\njq --arg t x '.a=$t' \"$CFG\" > /tmp/k.json\nmv /tmp/k.json \"$CFG\"\n",
			[]string{"file L3 filter " + config + " jq .a=$t--arg t x"}},
		{"jq to a temporary file, moved back if jq succeeded",
			"jq '.a=1' " + config + " > /tmp/k && mv /tmp/k " + config + "\n",
			[]string{"file L1 filter " + config + " jq .a=1 [cond]"}},
		{"jq reading the file its redirection empties", "jq '.a=1' " + config + " > " + config + "\n",
			[]string{"file L1 write " + config + " \"\""}},
		{"a here-document", "mkdir -p /etc/systemd/system/kubelet.service.d\ncat > " + dropIn + " <<EOF\n[Service]\nEnvironment=\"A=$HOME\"\nEOF\n",
			[]string{"file L2 unknown " + dropIn + " (cat)"}},
		{"a quoted here-document", "cat <<'EOF' > " + dropIn + "\n[Service]\nEnvironment=\"A=$HOME\"\nEOF\n",
			[]string{"file L1 write " + dropIn + " \"[Service]\\nEnvironment=\\\"A=$HOME\\\"\\n\""}},
		// The EKS user guide's proxy drop-in, line by line.
		{"echo and echo >>", "echo '[Service]' > " + dropIn + "\necho 'Environment=\"HTTP_PROXY=http://p:3128\"' >> " + dropIn + "\n",
			[]string{"file L1 write " + dropIn + " \"[Service]\\n\"", "file L2 append " + dropIn + " \"Environment=\\\"HTTP_PROXY=http://p:3128\\\"\\n\""}},
		{"echo into sudo tee", "echo '[Service]' | sudo tee -a " + dropIn + "\n",
			[]string{"file L1 append " + dropIn + " \"[Service]\\n\""}},
		{"a file written then moved in", "printf '[Service]\\nKillMode=process\\n' > /tmp/d.conf\nmv /tmp/d.conf /etc/systemd/system/kubelet.service.d/\n",
			[]string{"file L2 write /etc/systemd/system/kubelet.service.d/d.conf \"[Service]\\nKillMode=process\\n\""}},
		{"reads", "cat " + config + "\ngrep -q x " + boot + " && echo y\n[ -f " + boot + " ]\nif [[ -x " + boot + " ]]; then :; fi\nls /etc/eks\n", nil},
		{"a download over the join", "curl -sfo " + boot + " https://example.com/b.sh\n",
			[]string{"file L1 unknown " + boot + " (curl -sfo " + boot + " https://example.com/b.sh)"}},
		{"a path only known at boot", "F=/etc/eks/$(ls /etc/eks | head -1)\nsed -i 's/a/b/' \"$F\"\n",
			[]string{"file L2 unknown /etc/eks (sed -i s/a/b/ \"$F\" (\"$F\" is only known at boot))"}},
		// Another part of the userData, edited in cloud-init's scripts
		// directory (diem/diem's terraform user data).
		{"sed -i on a file only known at boot", "sed -i 's,a,b,' \"$(dirname \"$0\")/part-002\"\n",
			[]string{"file L1 unknown  (sed -i s,a,b, \"$(dirname \"$0\")/part-002\" (\"$(dirname \"$0\")/part-002\" is only known at boot))"}},
		{"replacing a file only known at boot", "echo x > \"$OUT\"\necho y >> \"$LOG\"\nexec > >(tee /var/log/user-data.log | logger -t user-data -s 2>/dev/console) 2>&1\n",
			[]string{"file L1 unknown  (echo to a file only known at boot)"}},
		{"a branch", "if [ -f /x ]; then sed -i 's/a/b/' " + boot + "; fi\n",
			[]string{"file L1 filter " + boot + " sed s/a/b/ [cond]"}},
		{"sed -i in sh -c", "sh -c \"sed -i 's/a/b/' " + boot + "\"\n",
			[]string{"file L1 filter " + boot + " sed s/a/b/"}},
		{"rm", "rm -f " + dropIn + "\n", []string{"file L1 remove " + dropIn}},
		{"a command substitution", "X=$(sed -i 's/a/b/' " + boot + ")\n", []string{"file L1 filter " + boot + " sed s/a/b/"}},
		{"a redirection alone", "> " + config + "\n", []string{"file L1 write " + config + " \"\""}},
		{"the join reads its own file", "/etc/eks/bootstrap.sh c --containerd-config-file /etc/eks/containerd.toml\n",
			[]string{"call L1 c --containerd-config-file /etc/eks/containerd.toml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Walk([]byte(tt.script), o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summary(r)); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.script, diff)
			}
		})
	}
}

func TestEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   map[string]string
		ok     bool
	}{
		{`KUBELET_EXTRA_ARGS+=" --register-with-taints=a=b:NoSchedule"`, map[string]string{"KUBELET_EXTRA_ARGS": "--v=2 --register-with-taints=a=b:NoSchedule"}, true},
		{"KUBELET_EXTRA_ARGS=\"$KUBELET_EXTRA_ARGS --x\"\nY=1", map[string]string{"KUBELET_EXTRA_ARGS": "--v=2 --x", "Y": "1"}, true},
		{`KUBELET_EXTRA_ARGS+=" $CLUSTER_NAME"`, nil, false},
		{`echo hi`, nil, false},
		{`X=$(date)`, nil, false},
		{`X=1 >/tmp/x`, nil, false},
		{`X=(a b)`, nil, false},
		{`X=`, map[string]string{"KUBELET_EXTRA_ARGS": "--v=2", "X": ""}, true},
		{`if`, nil, false},
		// mvdan.cc/sh v3.12.0 panics computing ${X@P}, ${X@A}, ${X@a}
		// and ${X@U} (expand/param.go:332-334); bash computes them, the
		// walker does not: not followable, and no panic.
		{`Y=${KUBELET_EXTRA_ARGS@P}`, nil, false},
		{`Y=${KUBELET_EXTRA_ARGS@A}`, nil, false},
		{`Y="${KUBELET_EXTRA_ARGS@a}"`, nil, false},
		{`Y=${KUBELET_EXTRA_ARGS@U}`, nil, false},
		{`Y=${KUBELET_EXTRA_ARGS@Q}`, map[string]string{"KUBELET_EXTRA_ARGS": "--v=2", "Y": "'--v=2'"}, true},
	}
	for _, tt := range tests {
		got, ok := Eval(tt.script, map[string]string{"KUBELET_EXTRA_ARGS": "--v=2"})
		if ok != tt.ok || ok && !cmp.Equal(tt.want, got) {
			t.Errorf("Eval(%q) = %v, %v; want %v, %v", tt.script, got, ok, tt.want, tt.ok)
		}
	}
}
