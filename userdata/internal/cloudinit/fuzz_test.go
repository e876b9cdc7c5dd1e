package cloudinit

import "testing"

// FuzzPlan checks that Plan never panics and returns scripts in stage
// order, and scripts and writes with lines that are not negative.
func FuzzPlan(f *testing.F) {
	f.Add([]byte("#!/bin/bash\necho hi\n"))
	f.Add([]byte("#cloud-config\nruncmd:\n  - [a, b]\nbootcmd: [x]\n"))
	f.Add([]byte(multipart("Content-Type: text/x-shellscript\n\n#cloud-config\nruncmd: [x]", "Content-Type: text/cloud-boothook\n\n#cloud-boothook\n#!/bin/sh\n")))
	f.Add([]byte("#cloud-config\nwrite_files:\n  - path: /etc/x\n    content: eQ==\n    encoding: b64\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Plan(data)
		scripts := r.Scripts
		if err != nil {
			return
		}
		for i, s := range scripts {
			if s.Line < 0 || (i > 0 && scripts[i-1].Stage > s.Stage) {
				t.Fatalf("script %d %+v out of order or with a negative line", i, s)
			}
		}
		for _, w := range r.Writes {
			if w.Line < 0 || w.Path == "" {
				t.Fatalf("write %+v without a path or with a negative line", w)
			}
		}
	})
}
