package cloudinit

import (
	"encoding/base64"
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
			// Which files the join reads is the AMI family's business: the
			// plan returns the write (TestPlanWrites); only cloud-init's own
			// files are opaque here.
			name:     "write_files into cloud-init's configuration is opaque",
			userData: "#cloud-config\nwrite_files:\n  - path: /etc/cloud/cloud.cfg.d/99.cfg\n    content: x\n",
			opaque:   []string{"/etc/cloud"},
		},
		{
			// handlers/shell_script_by_frequency.py: the per-frequency
			// directories run in cloud_final_modules order (scripts_per_once,
			// scripts_per_boot, scripts_per_instance) before scripts_user.
			name: "per-frequency parts",
			userData: multipart("Content-Type: text/x-shellscript-per-boot\n\n#!/bin/bash\necho 1",
				"Content-Type: text/x-shellscript-per-instance\n\n#!/bin/sh\necho 2",
				"Content-Type: text/x-shellscript-per-once\n\n#!/bin/sh\necho 3"),
			want: []string{"per-once part-003 part-003 17 /bin/sh", "per-boot part-001 part-001 7 /bin/bash", "per-instance part-002 part-002 12 /bin/sh"},
		},
		{
			// A text/x-shellscript part that starts like another type: 22.x
			// re-detects it (user_data.py _process_msg).
			name:     "shell script part that is cloud-config",
			userData: multipart("Content-Type: text/x-shellscript\n\n#cloud-config\nruncmd:\n  - echo hi"),
			want:     []string{"user runcmd part-001 8 /bin/sh"},
		},
		{
			name:     "shell script part that is an include",
			userData: multipart("Content-Type: text/x-shellscript\n\n#include\nhttps://example.com/x"),
			opaque:   []string{"22.x handles this text/x-shellscript part as text/x-include-url"},
		},
		{
			// cloud-init merges a second cloud-config by merge_how.
			name: "two cloud-config parts",
			userData: multipart("Content-Type: text/cloud-config\n\n#cloud-config\nruncmd:\n  - echo 1",
				"Content-Type: text/cloud-config\n\n#cloud-config\nruncmd:\n  - echo 2"),
			want:   []string{"user runcmd part-001 8 /bin/sh"},
			opaque: []string{"second cloud-config"},
		},
		{"runcmd not a list", "#cloud-config\nruncmd: echo hi\n", nil, []string{"not a list"}},
		{"runcmd entry neither string nor list", "#cloud-config\nruncmd:\n  - {a: b}\n", nil, []string{"neither a string nor a list"}},
		{"write_files not a list", "#cloud-config\nwrite_files: x\n", nil, []string{"write_files is not a list"}},
		{"write_files elsewhere", "#cloud-config\nwrite_files:\n  - path: /etc/sysctl.d/90.conf\n    content: x\nruncmd:\n  - sysctl --system\n",
			[]string{"user runcmd part-001 5 /bin/sh"}, nil},
		{"cloud-config that is not YAML", "#cloud-config\nruncmd: [\n", nil, []string{"does not parse as YAML"}},
		{"bootcmd", "#cloud-config\nbootcmd:\n  - echo hi\n", []string{"bootcmd bootcmd part-001 2 /bin/sh"}, nil},
		{"#!/usr/bin/env names the interpreter", "#!/usr/bin/env bash\necho\n", []string{"user part-001 part-001 1 bash"}, nil},
		{"#! alone names none", "#!\necho\n", []string{"user part-001 part-001 1 "}, nil},
		// cloud-init logs "Unhandled non-multipart userdata" and runs it not.
		{"text without a type", "echo hi\n", []string{"user part-001 part-001 1 "}, nil},
		{"text/plain without a known first line", multipart("Content-Type: text/plain\n\nhello"), nil, nil},
		{"gzip part", multipart("Content-Type: application/x-gzip\n\nxxx"), nil, []string{"gzip"}},
		{
			// Message.get_filename falls back to the Content-Type name
			// parameter; util.clean_filename turns '/' into '_'.
			name:     "name parameter",
			userData: multipart("Content-Type: text/x-shellscript; name=\"x/y.sh\"\n\n#!/bin/sh\necho"),
			want:     []string{"user x_y.sh x_y.sh 7 /bin/sh"},
		},
		{
			// Parts written to the same file name: the later replaces the
			// earlier in the scripts directory.
			name: "same file name",
			userData: multipart("Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"a.sh\"\n\n#!/bin/sh\necho 1",
				"Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"a.sh\"\n\n#!/bin/bash\necho 2"),
			want: []string{"user a.sh a.sh 14 /bin/bash"},
		},
		{
			// A transfer-encoded part has no line of its own.
			name: "base64 cloud-config",
			userData: multipart("Content-Type: text/cloud-config\nContent-Transfer-Encoding: base64\n\n" +
				base64.StdEncoding.EncodeToString([]byte("#cloud-config\nruncmd:\n  - echo hi\n"))),
			want: []string{"user runcmd part-001 0 /bin/sh"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Plan([]byte(tt.userData))
			if err != nil {
				t.Fatal(err)
			}
			scripts, opaque := r.Scripts, r.Opaque
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
	r, err := Plan([]byte("#cloud-config\nruncmd:\n  - echo hi\n  - [ /etc/eks/bootstrap.sh, my cluster ]\n"))
	scripts := r.Scripts
	if err != nil || len(scripts) != 1 {
		t.Fatalf("Plan: %v, %d scripts", err, len(scripts))
	}
	want := "#!/bin/sh\necho hi\n'/etc/eks/bootstrap.sh' 'my cluster'\n"
	if diff := cmp.Diff(want, string(scripts[0].Body)); diff != "" {
		t.Errorf("runcmd script (-want +got):\n%s", diff)
	}
}

// TestPlanMayNotRun: the scripts whose running depends on cloud-init's
// version say so (per-frequency parts: 19.3 has no handler for them).
func TestPlanMayNotRun(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		multipart("Content-Type: text/x-shellscript-per-boot\n\n#!/bin/bash\necho 1"),
		multipart("Content-Type: text/x-shellscript\n\n#cloud-config\nruncmd:\n  - echo hi"),
	} {
		r, err := Plan([]byte(doc))
		scripts := r.Scripts
		if err != nil || len(scripts) != 1 || scripts[0].MayNotRun == "" {
			t.Errorf("Plan(%q) = %+v, %v; want one script that may not run", doc, scripts, err)
		}
	}
}

// TestPartNames: the file names cloud-init writes parts to.
func TestPartNames(t *testing.T) {
	t.Parallel()
	names, err := PartNames([]byte(multipart("Content-Type: text/x-shellscript\nContent-Disposition: attachment; filename=\"a b.sh\"\n\n#!/bin/sh", "Content-Type: text/x-shellscript\n\n#!/bin/sh")))
	if diff := cmp.Diff([]string{"ab.sh", "part-002"}, names); diff != "" || err != nil {
		t.Errorf("PartNames (-want +got):\n%s%v", diff, err)
	}
	if names, err := PartNames([]byte("#!/bin/sh\n")); err != nil || !cmp.Equal(names, []string{"part-001"}) {
		t.Errorf("PartNames(script) = %v, %v; want part-001", names, err)
	}
	if _, err := PartNames([]byte("MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nbody\n")); err == nil {
		t.Error("PartNames of a multipart without a boundary: no error")
	}
	if _, err := Plan([]byte("MIME-Version: 1.0\nContent-Type: multipart/mixed\n\nbody\n")); err == nil {
		t.Error("Plan of a multipart without a boundary: no error")
	}
}

// TestPlanWrites pins cc_write_files: each entry's path, content (decoded
// from b64; gzip not followed), append flag and line.
func TestPlanWrites(t *testing.T) {
	t.Parallel()
	doc := "#cloud-config\nwrite_files:\n  - path: /etc/sysctl.d/90.conf\n    content: |\n      vm.max_map_count=262144\n" +
		"  - path: /etc/a\n    encoding: b64\n    content: aGk=\n    append: true\n" +
		"  - path: /etc/b\n    encoding: gzip\n    content: x\n  - path: /etc/c\n"
	r, err := Plan([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Write{
		{Part: "part-001", Line: 3, Path: "/etc/sysctl.d/90.conf", Content: "vm.max_map_count=262144\n", Known: true},
		{Part: "part-001", Line: 6, Path: "/etc/a", Content: "hi", Known: true, Append: true},
		{Part: "part-001", Line: 10, Path: "/etc/b"},
		{Part: "part-001", Line: 13, Path: "/etc/c", Known: true},
	}
	if diff := cmp.Diff(want, r.Writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if r, err := Plan([]byte("#cloud-config\nwrite_files:\n  - content: x\n")); err != nil || len(r.Opaque) != 1 {
		t.Errorf("an entry without a path: %+v, %v; want it opaque", r, err)
	}
}
