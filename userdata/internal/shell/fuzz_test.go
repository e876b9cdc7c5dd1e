package shell

import (
	"bytes"
	"testing"
)

// FuzzWalk checks that walking any script never panics, is deterministic,
// and that every recorded call is on a line of the script.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{
		"#!/bin/bash\nset -e\nARGS=(--kubelet-extra-args '--register-with-taints=k:NoSchedule')\n/etc/eks/bootstrap.sh c \"${ARGS[@]}\"\n",
		"X=1; if [ $X ]; then /etc/eks/bootstrap.sh a; else sudo -E bootstrap.sh b; fi\n",
		"export KUBELET_EXTRA_ARGS=--v=2\nenv -u KUBELET_EXTRA_ARGS bootstrap.sh c $(cat f) ${Y:-z}\n",
		"f() { bootstrap.sh c; }\neval \"$CMD\"\nbash -c 'bootstrap.sh c'\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		r1, err := Walk(script, "bootstrap.sh", "KUBELET_EXTRA_ARGS")
		r2, err2 := Walk(script, "bootstrap.sh", "KUBELET_EXTRA_ARGS")
		if (err == nil) != (err2 == nil) || len(r1.Calls) != len(r2.Calls) {
			t.Fatalf("Walk is not deterministic")
		}
		lines := bytes.Count(script, []byte("\n")) + 1
		for _, c := range r1.Calls {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("call on line %d of a %d-line script", c.Line, lines)
			}
		}
	})
}
