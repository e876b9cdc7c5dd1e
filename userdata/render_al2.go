package userdata

import (
	"fmt"
	"strings"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata/internal/mimedoc"
	"github.com/ec2select/ec2select/userdata/internal/shell"
)

// renderAL2 writes a MIME multipart document: the custom parts, then a
// script calling bootstrap.sh with every argument single-quoted and every
// option and value as separate words.
func (p *plan) renderAL2() ([]byte, error) {
	flags, err := p.kubeletFlags()
	if err != nil {
		return nil, err
	}
	lines := [][]string{{"/etc/eks/bootstrap.sh", p.cfg.ClusterName},
		{"--apiserver-endpoint", p.cfg.APIServerEndpoint},
		{"--b64-cluster-ca", p.cfg.CABundle}}
	if p.ipv6 {
		lines = append(lines, []string{"--ip-family", "ipv6"})
	}
	switch {
	case len(p.cfg.Kubelet.ClusterDNS) > 0:
		// bootstrap.sh splits the value on ',' into clusterDNS (L488).
		lines = append(lines, []string{"--dns-cluster-ip", strings.Join(p.cfg.Kubelet.ClusterDNS, ",")})
	case p.cidr.IsValid() && p.cidr.Addr().Is6():
		lines = append(lines, []string{"--service-ipv6-cidr", p.cfg.ClusterCIDR})
	}
	if p.cfg.Kubelet.MaxPods != nil {
		// Without it bootstrap.sh computes max-pods from the ENI table and
		// writes it into the config file, where the flag would fight it.
		lines = append(lines, []string{"--use-max-pods", "false"})
	}
	if len(flags) > 0 {
		// bootstrap.sh copies the value into Environment='KUBELET_EXTRA_ARGS=…'
		// of a systemd drop-in, where "%%" is the one spelling of '%' that
		// every systemd release reads as '%' (a lone '%' starts a specifier).
		extra := strings.ReplaceAll(strings.Join(flags, " "), "%", "%%")
		lines = append(lines, []string{"--kubelet-extra-args", extra})
	}
	if p.cfg.InstanceStorePolicy == RAID0 {
		lines = append(lines, []string{"--local-disks", "raid0"})
	}
	var script strings.Builder
	size := 200
	for _, words := range lines {
		for _, w := range words {
			size += len(w) + 8
		}
	}
	script.Grow(size)
	script.WriteString("#!/bin/bash -xe\n")
	script.WriteString("exec > >(tee /var/log/user-data.log | logger -t user-data -s 2>/dev/console) 2>&1\n")
	for i, words := range lines {
		if i > 0 {
			script.WriteString(" \\\n  ")
		}
		for j, w := range words {
			if i := nonASCII(w); i >= 0 {
				// cloud-init's Python 3 builds make a MIME part's text bytes
				// through raw-unicode-escape and cannot write a script that
				// then holds a lone byte (pyemail.Message.Payload).
				return nil, fmt.Errorf("userdata: bootstrap.sh argument %q holds the character %q, which is not ASCII; cloud-init cannot write a MIME script part holding it, so use ASCII", w, []rune(w[i:])[0])
			}
			q, err := shell.Quote(w)
			if err != nil {
				return nil, fmt.Errorf("userdata: bootstrap.sh argument %s", err)
			}
			if j > 0 {
				script.WriteByte(' ')
			}
			script.WriteString(q)
		}
	}
	script.WriteByte('\n')
	parts, err := p.cloudInitCustomParts(compat.AL2)
	if err != nil {
		return nil, err
	}
	parts = append(parts, append([]byte("Content-Type: text/x-shellscript; charset=\"us-ascii\"\n\n"), script.String()...))
	return mimedoc.Write(parts)
}

// nonASCII is the offset of the first byte of s that is not ASCII, or -1.
func nonASCII(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return -1
}
