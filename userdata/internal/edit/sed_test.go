package edit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         Sed
		err          bool
	}{
		// aws/containers-roadmap#864's workaround, GNU's one-line append.
		{"one-line append", `/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=" --register-with-taints=a=b:NoSchedule"`,
			Sed{{Address: "^KUBELET_EXTRA_ARGS=", Name: 'a', Text: `KUBELET_EXTRA_ARGS+=" --register-with-taints=a=b:NoSchedule"`}}, false},
		{"a\\ and the text on the next line", "/^X=/a\\\nY=1", Sed{{Address: "^X=", Name: 'a', Text: "Y=1"}}, false},
		{"multi-line text", "/^X=/i\\\nY=1\\\nZ=2", Sed{{Address: "^X=", Name: 'i', Text: "Y=1\nZ=2"}}, false},
		{"substitute with another delimiter and g", "s,--node-labels=,--x --node-labels=,g",
			Sed{{Name: 's', Pattern: "--node-labels=", Replacement: "--x --node-labels=", Flags: "g"}}, false},
		{"two commands", "s/a/b/;s/c/d/\n/x/a y", Sed{{Name: 's', Pattern: "a", Replacement: "b"}, {Name: 's', Pattern: "c", Replacement: "d"}, {Address: "x", Name: 'a', Text: "y"}}, false},
		{"an escaped delimiter", `s/a\/b/c/`, Sed{{Name: 's', Pattern: "a/b", Replacement: "c"}}, false},
		{"delete is not followed", "/x/d", nil, true},
		{"line addresses are not followed", "3i foo", nil, true},
		{"escapes in the text are not followed", `/x/a foo\tbar`, nil, true},
		// GNU sed keeps the spaces a backslash escapes in a one-line text
		// (the moneysmart kubelet-config.json edits in the corpus).
		{"escaped spaces in the text", `/"apiVersion*/a \ \ "imageGCHighThresholdPercent": 70,`,
			Sed{{Address: `"apiVersion*`, Name: 'a', Text: `  "imageGCHighThresholdPercent": 70,`}}, false},
		{"an s flag other than g", "s/a/b/w /tmp/x", nil, true},
		{"unterminated", "s/a/b", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSed(tt.script)
			if (err != nil) != tt.err {
				t.Fatalf("ParseSed(%q) error = %v; want error %v", tt.script, err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSedApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script, in, want string
		ok                     bool
	}{
		{"append after an anchored match", "/^B=/a C=3", "A=1\nB=2\n  B=4\n", "A=1\nB=2\nC=3\n  B=4\n", true},
		{"insert", "/B/i X", "A\nB\n", "A\nX\nB\n", true},
		{"change", "/B/c X", "A\nB\n", "A\nX\n", true},
		{"substitute the first", "s/a/b/", "aa\n", "ba\n", true},
		{"substitute all", "s/a/b/g", "aa\n", "bb\n", true},
		{"end anchor", "/=1$/a Z", "A=1\nA=12\n", "A=1\nZ\nA=12\n", true},
		{"a regular expression", "/^A.*=/a Z", "A=1\nB=2\n", "A=1\nZ\nB=2\n", true},
		{"a starred character", `/"apiVersion*/a X`, "{\n  \"apiVersio\": 1\n}\n", "{\n  \"apiVersio\": 1\nX\n}\n", true},
		{"substitute a regular expression", `s/"a":.*/"a": 5,/`, "  \"a\": 1,\n", "  \"a\": 5,\n", true},
		{"a group is not followed", `/\(a\)/a Z`, "a\n", "", false},
		{"& in the replacement", "s/a/[&]/", "a\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSed(tt.script)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := s.Apply(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Errorf("Apply(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}
