package shell

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestConstantCondition: the conditions decided without running anything,
// as bash's test builtin decides them (bash builtins/test.def: = and ==
// compare strings, -eq ... -ge integers; "[" needs a closing "]"); anything
// else is unknown.
func TestConstantCondition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want condition
	}{
		{"true", conditionTrue},
		{":", conditionTrue},
		{"false", conditionFalse},
		{"! false", conditionTrue},
		{"! true", conditionFalse},
		{"[ a = a ]", conditionTrue},
		{"[ a == b ]", conditionFalse},
		{"[ a != b ]", conditionTrue},
		{"[ 'a' = \"a\" ]", conditionTrue},
		{"[ \"\" = '' ]", conditionTrue},
		{"test 1 -eq 1", conditionTrue},
		{"test 1 -ne 1", conditionFalse},
		{"[ 1 -lt 2 ]", conditionTrue},
		{"[ 2 -le 1 ]", conditionFalse},
		{"[ 2 -gt 1 ]", conditionTrue},
		{"[ 1 -ge 2 ]", conditionFalse},
		{"[ 2 -lt 2 ]", conditionFalse},
		{"[ 2 -le 2 ]", conditionTrue},
		{"[ 2 -gt 2 ]", conditionFalse},
		{"[ 2 -ge 2 ]", conditionTrue},
		{"[ a -eq 1 ]", conditionUnknown},   // not an integer: bash reports an error, status 2
		{"[ 1 -nt 2 ]", conditionUnknown},   // a file test
		{"[ a = a", conditionUnknown},       // no closing bracket
		{"[ -f /etc/x ]", conditionUnknown}, // two words
		{"[ \"$X\" = a ]", conditionUnknown},
		{"[ $'a' = a ]", conditionUnknown},
		{"[ \"a$X\" = a ]", conditionUnknown},
		{"true > /dev/null", conditionUnknown}, // a redirection can fail
		{"X=1 true", conditionUnknown},
		{"true &", conditionUnknown},
		{"grep -q x /etc/y", conditionUnknown},
		{"{ true; }", conditionUnknown},
		{"false; true", conditionTrue}, // the list's status is its last command's
	}
	for _, tt := range tests {
		f, err := syntax.NewParser().Parse(strings.NewReader(tt.src), "")
		if err != nil {
			t.Fatalf("%q: %v", tt.src, err)
		}
		if got := constantCondition(f.Stmts); got != tt.want {
			t.Errorf("%q: constantCondition = %d; want %d", tt.src, got, tt.want)
		}
	}
	if got := constantCondition(nil); got != conditionUnknown {
		t.Errorf("empty list: %d; want unknown", got)
	}
}
