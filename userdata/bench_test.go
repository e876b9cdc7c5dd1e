package userdata

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
)

func benchConfig(n int) Config {
	cfg := baseConfig()
	cfg.Kubelet.ClusterDNS = []string{"10.100.0.10"}
	cfg.Kubelet.MaxPods = ptr[int32](110)
	cfg.Labels = map[string]string{}
	for i := range n {
		cfg.Taints = append(cfg.Taints, Taint{Key: fmt.Sprintf("example.com/taint-%02d", i), Value: "v", Effect: NoSchedule})
		cfg.Labels[fmt.Sprintf("example.com/label-%02d", i)] = fmt.Sprintf("value-%02d", i)
	}
	return cfg
}

func BenchmarkRender(b *testing.B) {
	for _, f := range []compat.AMIFamily{compat.AL2, compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		cfg := benchConfig(20)
		b.Run(f.String()+"/20taints-20labels", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Render(f, cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// lintScript is an AL2 script of about size bytes: ordinary setup
// commands, then the bootstrap call.
func lintScript(size int) []byte {
	var s strings.Builder
	s.WriteString("#!/bin/bash\nset -euo pipefail\nCLUSTER=my-cluster\nTAINTS=karpenter.sh/unregistered:NoExecute\n")
	for i := 0; s.Len() < size-300; i++ {
		fmt.Fprintf(&s, "if [ -d /opt/step%d ]; then echo \"step %d: $CLUSTER\" >> /var/log/custom.log; fi\nsysctl -w net.core.somaxconn=%d\n", i, i, 1024+i)
	}
	s.WriteString("/etc/eks/bootstrap.sh \"$CLUSTER\" --kubelet-extra-args \"--node-labels=example.com/a=b --register-with-taints=$TAINTS\"\n")
	return []byte(s.String())
}

func BenchmarkLint(b *testing.B) {
	for _, size := range []int{1 << 10, 16 << 10} {
		script := lintScript(size)
		b.Run(fmt.Sprintf("AL2/%dKB", size>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(script)))
			for b.Loop() {
				r, err := Lint(compat.AL2, script, nil)
				if err != nil || len(r.Problems) > 0 {
					b.Fatalf("%v\n%s", err, r)
				}
			}
		})
	}
	for _, f := range []compat.AMIFamily{compat.AL2023, compat.Bottlerocket, compat.Windows2022} {
		out, err := Render(f, benchConfig(20))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(f.String()+"/rendered", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Lint(f, out, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
