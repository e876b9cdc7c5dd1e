package shell

import (
	"bytes"
	"testing"
)

// FuzzWalk checks that walking any script never panics, is deterministic,
// and that every recorded call, kubelet start and file change is on a line
// of the script.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{
		"#!/bin/bash\nset -e\nARGS=(--kubelet-extra-args '--register-with-taints=k:NoSchedule')\n/etc/eks/bootstrap.sh c \"${ARGS[@]}\"\n",
		"X=1; if [ $X ]; then /etc/eks/bootstrap.sh a; else sudo -E bootstrap.sh b; fi\n",
		"export KUBELET_EXTRA_ARGS=--v=2\nenv -u KUBELET_EXTRA_ARGS bootstrap.sh c $(cat f) ${Y:-z}\n",
		"f() { bootstrap.sh c; }\neval \"$CMD\"\nbash -c 'bootstrap.sh c'\n",
		"sed -i '/^KUBELET_EXTRA_ARGS=/a KUBELET_EXTRA_ARGS+=\" --register-with-taints=a:NoSchedule\"' /etc/eks/bootstrap.sh\n",
		"echo \"$(jq '.a=1' /etc/kubernetes/kubelet/kubelet-config.json)\" > /etc/kubernetes/kubelet/kubelet-config.json\n",
		"cat <<EOF | tee /etc/systemd/system/kubelet.service.d/x.conf\n[Service]\nEOF\nsh -c 'systemctl restart kubelet'\n",
		"E=a\n[ -f /x ] && E=\"$E b\"\ncase $Z in y) E=c ;; *) ;; esac\nbootstrap.sh \"$E\"\n",
	} {
		f.Add([]byte(s))
	}
	o := Options{Target: "bootstrap.sh", EnvName: "KUBELET_EXTRA_ARGS",
		Watch: []string{"/etc/eks", "/etc/kubernetes", "/etc/systemd/system/kubelet.service.d"}}
	f.Fuzz(func(t *testing.T, script []byte) {
		r1, err := Walk(script, o)
		r2, err2 := Walk(script, o)
		if (err == nil) != (err2 == nil) || len(r1.Calls) != len(r2.Calls) || len(r1.Files) != len(r2.Files) || len(r1.Starts) != len(r2.Starts) {
			t.Fatalf("Walk is not deterministic")
		}
		lines := bytes.Count(script, []byte("\n")) + 1
		check := func(what string, line int) {
			if line < 1 || line > lines {
				t.Fatalf("%s on line %d of a %d-line script", what, line, lines)
			}
		}
		for _, c := range r1.Calls {
			check("call", c.Line)
		}
		for _, c := range r1.Starts {
			check("kubelet start", c.Line)
		}
		for _, op := range r1.Files {
			check("file change", op.Line)
		}
	})
}
