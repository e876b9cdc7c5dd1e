package cloudinit

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// brief is a script as "stage name part line interpreter".
func brief(s Script) string {
	return strings.Join([]string{stageNames[s.Stage], s.Name, s.Part, itoa(s.Line), s.Interpreter}, " ")
}

var stageNames = map[Stage]string{StageBoothook: "boothook", StageBootcmd: "bootcmd", StagePerOnce: "per-once",
	StagePerBoot: "per-boot", StagePerInstance: "per-instance", StageUser: "user"}

func itoa(n int) string { return strconv.Itoa(n) }

func multipart(parts ...string) string {
	return "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\n" + strings.Join(parts, "\n--b\n") + "\n--b--\n"
}

func TestPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, userData string
		want           []string
		opaque         []string // reasons, by a word they contain
	}{
		{
			// Not MIME: one text/x-not-multipart part, typed by its first line.
			name:     "single script",
			userData: "#!/bin/bash\necho hi\n",
			want:     []string{"user part-001 part-001 1 /bin/bash"},
		},
		{
			// cloudinit/util.py dos2unix: CRLF converted when the first line
			// ends in CRLF.
			name:     "CRLF script",
			userData: "#!/bin/bash\r\necho hi\r\n",
			want:     []string{"user part-001 part-001 1 /bin/bash"},
		},
		{
			// user_data.py _process_before_attach names unnamed parts
			// part-NNN (1-based); subp.runparts sorts by file name, so a
			// named part "a.sh" runs before part-002.
			name: "file-name order",
			userData: multipart("Content-Type: text/x-shellscript\n\n#!/bin/bash\necho 1",
				"Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"a.sh\"\n\n#!/bin/sh\necho 2"),
			want: []string{"user a.sh a.sh 13 /bin/sh", "user part-001 part-001 7 /bin/bash"},
		},
		{
			// Boothooks run first, in the init stage; runcmd is a script
			// named runcmd among the user scripts (cc_runcmd.py L88).
			name: "stages",
			userData: multipart("Content-Type: text/x-shellscript\n\n#!/bin/bash\necho user",
				"Content-Type: text/cloud-config\n\n#cloud-config\nruncmd:\n  - echo run",
				"Content-Type: text/cloud-boothook\n\n#cloud-boothook\n#!/bin/sh\necho hook"),
			want: []string{"boothook part-003 part-003 19 /bin/sh", "user part-001 part-001 7 /bin/bash", "user runcmd part-002 13 /bin/sh"},
		},
		{
			name:     "include is opaque",
			userData: "#include\nhttps://example.com/x\n",
			opaque:   []string{"#include"},
		},
		{
			name:     "jinja is opaque",
			userData: "## template: jinja\n#!/bin/bash\necho {{ v1.region }}\n",
			opaque:   []string{"jinja"},
		},
		{
			name:     "unmodelled cloud-config module is opaque",
			userData: "#cloud-config\nansible:\n  install_method: pip\n",
			opaque:   []string{"ansible"},
		},
		{
			name:     "write_files into the kubelet's directory is opaque",
			userData: "#cloud-config\nwrite_files:\n  - path: /etc/systemd/system/kubelet.service.d/90.conf\n    content: x\n",
			opaque:   []string{"/etc/systemd"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scripts, opaque, err := Plan([]byte(tt.userData))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range scripts {
				got = append(got, brief(s))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("scripts (-want +got):\n%s", diff)
			}
			if len(opaque) != len(tt.opaque) {
				t.Fatalf("opaque = %+v; want %d", opaque, len(tt.opaque))
			}
			for i, o := range opaque {
				if !strings.Contains(o.Reason, tt.opaque[i]) {
					t.Errorf("opaque[%d] = %q; want it to mention %q", i, o.Reason, tt.opaque[i])
				}
			}
		})
	}
}

// TestPlanRuncmd pins util.shellify: a string entry is written as is, a
// list entry's items single-quoted and joined.
func TestPlanRuncmd(t *testing.T) {
	t.Parallel()
	scripts, _, err := Plan([]byte("#cloud-config\nruncmd:\n  - echo hi\n  - [ /etc/eks/bootstrap.sh, my cluster ]\n"))
	if err != nil || len(scripts) != 1 {
		t.Fatalf("Plan: %v, %d scripts", err, len(scripts))
	}
	want := "#!/bin/sh\necho hi\n'/etc/eks/bootstrap.sh' 'my cluster'\n"
	if diff := cmp.Diff(want, string(scripts[0].Body)); diff != "" {
		t.Errorf("runcmd script (-want +got):\n%s", diff)
	}
}
