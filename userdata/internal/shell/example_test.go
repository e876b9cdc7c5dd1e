package shell_test

import (
	"fmt"

	"github.com/ec2select/ec2select/userdata/internal/shell"
)

func ExampleWalk() {
	script := []byte(`#!/bin/bash
ARGS=(--kubelet-extra-args '--register-with-taints=k:NoSchedule')
/etc/eks/bootstrap.sh my-cluster "${ARGS[@]}"
eval "$EXTRA"
`)
	r, err := shell.Walk(script, shell.Options{Target: "bootstrap.sh", EnvName: "KUBELET_EXTRA_ARGS"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range r.Calls[0].Args {
		fmt.Println(a.Value)
	}
	fmt.Printf("line %d: %s\n", r.Opaque[0].Line, r.Opaque[0].What)
	// Output:
	// my-cluster
	// --kubelet-extra-args
	// --register-with-taints=k:NoSchedule
	// line 4: eval, source or '.': runs text the walker cannot read
}
