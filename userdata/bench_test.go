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

// migrateScript is an AL2 script of about size bytes that migrates:
// kernel parameters set with sysctl -w (Bottlerocket moves each to
// settings.kernel.sysctl; AL2023 keeps the script), then a join with the
// cluster's values.
func migrateScript(size int) []byte {
	var s strings.Builder
	s.WriteString("#!/bin/bash\nset -ex\n")
	join := "/etc/eks/bootstrap.sh my-cluster --apiserver-endpoint https://ABCDEF0123456789.gr7.us-west-2.eks.amazonaws.com --b64-cluster-ca " + testCA() +
		" --dns-cluster-ip 10.100.0.10 --use-max-pods false --kubelet-extra-args '--node-labels=example.com/a=b --register-with-taints=karpenter.sh/unregistered:NoExecute --max-pods=58'\n"
	for i := 0; s.Len() < size-len(join)-50; i++ {
		fmt.Fprintf(&s, "sysctl -w net.ipv4.conf.eth%d.rp_filter=%d\n", i, i%3)
	}
	s.WriteString(join)
	return []byte(s.String())
}

// BenchmarkMigrate: a 16 KB AL2 script moves to Bottlerocket (each sysctl
// to a setting) and a 15 KB one to AL2023 (the script kept: with the
// NodeConfig and MIME it stays under EC2's 16 KB), both proven by Lint.
func BenchmarkMigrate(b *testing.B) {
	opts := MigrateOptions{Required: []Taint{UnregisteredTaint()}, ClusterCIDR: "10.100.0.0/16"}
	for _, c := range []struct {
		target compat.AMIFamily
		size   int
	}{{compat.Bottlerocket, 16 << 10}, {compat.AL2023, 15 << 10}} {
		script := migrateScript(c.size)
		b.Run(fmt.Sprintf("%v/%dKB", c.target, c.size>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(script)))
			for b.Loop() {
				if _, err := Migrate(script, c.target, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
