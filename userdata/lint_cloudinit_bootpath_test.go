package userdata_test

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/ec2select/ec2select/compat"
	"github.com/ec2select/ec2select/userdata"
)

// boot-path.md §1: which parts cloud-init runs, and in what order. Every
// "ran:" note below is what Debian 12's cloud-init 22.4.2 did when its own
// UserDataProcessor, handlers.walk, ShellScriptPartHandler and subp.runparts
// were run on that shape of userData (see /work/notes/i11-corpus.md).
func TestBootPathCloudInit(t *testing.T) {
	untainted := "#!/bin/bash\nset -ex\n" + join("--node-labels=team=web") + "\n"
	tainted := "#!/bin/bash\nset -ex\n" + join(withRequired) + "\n"
	runRows(t, []row{
		{
			// cloudinit/user_data.py@22.4.2 _process_before_attach names an
			// unnamed part part-%03d by its 1-based position (L192 at 19.3);
			// cloudinit/subp.py runparts runs `sorted(os.listdir(dirp))`.
			// ran: parts [zz-join.sh, part-002, part-003] executed in the
			// order part-002, part-003, zz-join.sh. So the untainted call in
			// the third part starts the kubelet first.
			name:   "file-name order: a part named zz-join.sh runs after the unnamed third part",
			family: compat.AL2,
			userData: mime(
				shellPart("zz-join.sh", tainted),
				shellPart("", "#!/bin/bash\nyum install -y htop\n"),
				shellPart("", untainted),
			),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint}},
			orUnresolved: true,
		},
		{
			// The mirror image: a named part sorting before part-NNN
			// ("00-join.sh" < "part-001") is the one that starts the kubelet.
			name:   "file-name order: 00-join.sh runs before the unnamed parts",
			family: compat.AL2,
			userData: mime(
				shellPart("", untainted),
				shellPart("00-join.sh", tainted),
			),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
			orUnresolved: true,
		},
		{
			// cloudinit/util.py@22.4.2 clean_filename (L363): "/" becomes
			// "_" and characters outside FN_ALLOWED are dropped. ran: a part
			// named "../etc/my join.sh" was written as ".._etc_myjoin.sh",
			// which sorts before "part-001" ('.' < 'p') and ran first.
			name:   "file-name order: a cleaned file name (../etc/my join.sh) sorts first",
			family: compat.AL2,
			userData: mime(
				shellPart("", untainted),
				shellPart("../etc/my join.sh", tainted),
			),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
			orUnresolved: true,
		},
		{
			// Two parts with one file name: ShellScriptPartHandler writes
			// both to scripts/<name>, the later overwriting the earlier
			// (cloudinit/handlers/shell_script.py@22.4.2 handle_part,
			// util.write_file). ran: only the second part's body was on disk
			// and executed.
			name:   "two parts with the same file name: only the later one runs",
			family: compat.AL2,
			userData: mime(
				shellPart("join.sh", tainted),
				shellPart("join.sh", untainted),
			),
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint}},
		},
		{
			// cloudinit/util.py@22.4.2 dos2unix (L1130-1135) is applied by
			// ShellScriptPartHandler (shell_script.py L38 at 19.3 too): a
			// script whose first line ends in CRLF has every CRLF turned into
			// LF. ran: the written file had no \r and bootstrap saw
			// [my-cluster] [--kubelet-extra-args] [--register-with-taints=...].
			name:     "CRLF script: cloud-init converts it and it runs",
			family:   compat.AL2,
			userData: strings.ReplaceAll(tainted, "\n", "\r\n"),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// A whole MIME document with CRLF line ends (Windows editors):
			// ran: the email parser kept CRLF in the payload and dos2unix then
			// converted the script, which ran.
			name:     "CRLF multipart: parts are converted like single scripts",
			family:   compat.AL2,
			userData: strings.ReplaceAll(mime(shellPart("", tainted)), "\n", "\r\n"),
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// dos2unix only looks at the first line end (L1133: `if pos <= 0
			// or contents[pos - 1] != "\r": return contents`). ran: with an
			// LF first line and a CRLF bootstrap line, bootstrap's last word
			// was "...:NoExecute\r". What systemd and the kubelet then do with
			// the \r is not certain: unresolved at that line.
			name:     "mixed line ends: only a CRLF first line triggers conversion",
			family:   compat.AL2,
			userData: "#!/bin/bash\n" + join(withRequired) + "\r\n",
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "/etc/eks/bootstrap.sh",
		},
		{
			// cloudinit/user_data.py@22.4.2 convert_string (L382, L356 at
			// 19.3): userData is parsed as MIME only when "mime-version:"
			// occurs in its first 4096 bytes. ran: a multipart document
			// starting at Content-Type: was one text/x-not-multipart part
			// whose start matched no handler prefix, so nothing ran.
			name:     "multipart without MIME-Version: cloud-init runs nothing",
			family:   compat.AL2,
			userData: strings.TrimPrefix(mime(shellPart("", tainted)), "MIME-Version: 1.0\n"),
			want:     outcome{Verdict: userdata.NeverJoins},
			anyPlace: true,
		},
		{
			// user_data.py _process_msg walks base_msg.walk(), which descends
			// into nested multipart/* containers (is_skippable skips only the
			// container itself). ran: the inner part was named part-002 and
			// ran.
			name:   "nested multipart: cloud-init walks into it",
			family: compat.AL2,
			userData: mime(
				shellPart("", "#!/bin/bash\nyum install -y amazon-ssm-agent\n"),
				"Content-Type: multipart/mixed; boundary=\"inner\"\n\n--inner\n"+shellPart("", tainted)+"\n--inner--\n",
			),
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// user_data.py L131 (TYPE_NEEDED = text/plain,
			// text/x-not-multipart) re-types a text/plain part by its first
			// line (handlers/__init__.py type_from_starts_with, "#!" ->
			// text/x-shellscript), in 19.3 (L121) and 22.4.2 alike. ran: the
			// text/plain part was written and executed.
			name:   "text/plain part starting #! is a shell script",
			family: compat.AL2,
			userData: mime(
				"Content-Type: text/plain; charset=\"us-ascii\"\n\n" + tainted,
			),
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// A text/x-shellscript part whose body is #cloud-config: 22.4.2
			// re-types it (user_data.py L131 includes text/x-shellscript; ran:
			// it became text/cloud-config and was not written as a script),
			// 19.3 (AL2's cloud-init) does not (L121 only TYPE_NEEDED), so it
			// is written as a script without #! and fails to exec. Version
			// dependent: unresolved.
			name:   "x-shellscript part holding #cloud-config: depends on cloud-init version",
			family: compat.AL2,
			userData: mime(
				shellPart("", "#cloud-config\nruncmd:\n  - "+join(withRequired)+"\n"),
			),
			want:   outcome{Verdict: userdata.Unresolved, Part: "part-001"},
			lineAt: "#cloud-config",
		},
		{
			// config/cc_runcmd.py@22.4.2 L88 writes runcmd to
			// scripts/runcmd, which scripts-user runs through the same
			// runparts: a one-time shell script like a part.
			name:     "#cloud-config runcmd calling bootstrap.sh joins",
			family:   compat.AL2,
			userData: "#cloud-config\npackages:\n  - htop\nruncmd:\n  - " + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
			// runcmd items are shell lines (util.shellify); modelling them
			// is asked for, but Unresolved is not wrong.
			orUnresolved: true,
		},
		{
			// cc_bootcmd.py@22.4.2: frequency PER_ALWAYS, runs in the init
			// stage (cloud.cfg cloud_init_modules), every boot, long before
			// scripts-user. Whether bootstrap.sh succeeds that early, and
			// what a second boot does, is not known offline.
			name:     "#cloud-config bootcmd calling bootstrap.sh is unresolved",
			family:   compat.AL2,
			userData: "#cloud-config\nbootcmd:\n  - " + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "bootcmd:",
		},
		{
			// handlers/boot_hook.py@22.4.2: prefix #cloud-boothook,
			// PER_ALWAYS, executed at once by subp (L51), in the init stage.
			name:   "boothook calling bootstrap.sh is unresolved",
			family: compat.AL2,
			userData: mime(
				"Content-Type: text/cloud-boothook; charset=\"us-ascii\"\n\n#cloud-boothook\n#!/bin/bash\n" + join(withRequired) + "\n",
			),
			want:   outcome{Verdict: userdata.Unresolved, Part: "part-001"},
			lineAt: "#cloud-boothook",
		},
		{
			// handlers/__init__.py INCLUSION_TYPES_MAP: "## template: jinja"
			// -> text/jinja2; handlers/jinja_template.py renders it with
			// instance data, then hands it on as the type it renders to.
			name:   "jinja part is unresolved",
			family: compat.AL2,
			userData: mime(
				"Content-Type: text/jinja2; charset=\"us-ascii\"\n\n## template: jinja\n#!/bin/bash\n/etc/eks/bootstrap.sh {{ v1.local_hostname }} --kubelet-extra-args '" + withRequired + "'\n",
			),
			want:   outcome{Verdict: userdata.Unresolved, Part: "part-001"},
			lineAt: "## template: jinja",
		},
		{
			// A #! part is run by its interpreter (subp.runparts executes the
			// file). ran: a #!/usr/bin/python3 part was written as part-004
			// like any script. A shell linter cannot follow subprocess.
			name:   "python part calling bootstrap.sh through subprocess is unresolved",
			family: compat.AL2,
			userData: mime(
				shellPart("", "#!/usr/bin/python3\nimport subprocess\nsubprocess.run([\"/etc/eks/bootstrap.sh\", \"my-cluster\"], check=True)\n"),
			),
			want:   outcome{Verdict: userdata.Unresolved, Part: "part-001"},
			lineAt: "#!/usr/bin/python3",
		},
		{
			// handlers/__init__.py: "#include" -> text/x-include-url;
			// user_data.py _do_include fetches each URL at boot.
			name:     "#include is unresolved",
			family:   compat.AL2,
			userData: "#include\nhttps://example.com/eks/join.sh\n",
			want:     outcome{Verdict: userdata.Unresolved},
			lineAt:   "#include",
		},
		{
			// text/x-shellscript-per-boot is handled by
			// handlers/shell_script_by_frequency.py, present in 22.4.2 but
			// absent in 19.3 (cloudinit/handlers/ has no such file), and run
			// by scripts-per-boot before scripts-user (cloud.cfg
			// cloud_final_modules order). AL2 runs 19.3 (boot-path.md):
			// version dependent, unresolved.
			name:   "per-boot script part is unresolved on AL2",
			family: compat.AL2,
			userData: mime(
				"Content-Type: text/x-shellscript-per-boot; charset=\"us-ascii\"\n\n" + tainted,
			),
			want:   outcome{Verdict: userdata.Unresolved, Part: "part-001"},
			lineAt: "#!/bin/bash",
		},
		{
			// The same handler (shell_script_by_frequency.py path_map:
			// per-boot, per-instance, per-once), run by
			// scripts-per-instance, also before scripts-user; absent in 19.3.
			name:   "per-instance script part is unresolved on AL2",
			family: compat.AL2,
			userData: mime(
				shellPart("", "#!/bin/bash\nyum install -y htop\n"),
				"Content-Type: text/x-shellscript-per-instance; charset=\"us-ascii\"\n\n"+tainted,
			),
			want:   outcome{Verdict: userdata.Unresolved, Part: "part-002"},
			lineAt: "#!/bin/bash\nset -ex",
		},
		{
			// user_data.py@22.4.2 convert_string L381 runs util.decomp_gzip
			// on the raw userData before anything else (terraform's
			// cloudinit_config gzip = true). ran: the gzip of a script came
			// out as part-001, a text/x-shellscript.
			name:         "gzip-compressed userData is decompressed",
			family:       compat.AL2,
			userData:     gzipped(tainted),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
			orUnresolved: true,
		},
		{
			// user_data.py _process_msg L100 and handlers.walk take
			// util.fully_decoded_payload, which undoes the part's
			// Content-Transfer-Encoding. ran: a base64 part was written
			// decoded and ran.
			name:   "base64 Content-Transfer-Encoding part is decoded",
			family: compat.AL2,
			userData: mime("Content-Type: text/x-shellscript; charset=\"us-ascii\"\nContent-Transfer-Encoding: base64\n\n" +
				base64.StdEncoding.EncodeToString([]byte(tainted)) + "\n"),
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			name:     "#!/usr/bin/env bash script",
			family:   compat.AL2,
			userData: "#!/usr/bin/env bash\n" + join(withRequired) + "\n",
			want:     outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// Karpenter's own AL2 script (reference/userdata.md §1,
			// eksbootstrap.go): #!/bin/bash -xe, then output redirected
			// through a process substitution, then the call.
			name:   "Karpenter's AL2 script shape",
			family: compat.AL2,
			userData: "#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n" +
				"/etc/eks/bootstrap.sh 'my-cluster' --apiserver-endpoint '" + endpoint + "' --b64-cluster-ca '" + ca + "' \\\n" +
				"--kubelet-extra-args '--node-labels=\"karpenter.sh/nodepool=default\" --register-with-taints=\"karpenter.sh/unregistered:NoExecute\"'\n",
			want: outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
		},
		{
			// cc_runcmd.py@22.4.2 L88 writes scripts/runcmd, run by the same
			// sorted runparts: "runcmd" sorts after "part-001", so the
			// unnamed shell part's call starts the kubelet first.
			name:   "runcmd runs after unnamed parts",
			family: compat.AL2,
			userData: mime(
				"Content-Type: text/cloud-config; charset=\"us-ascii\"\n\n#cloud-config\nruncmd:\n  - "+join("--node-labels=team=web")+"\n",
				shellPart("", tainted),
			),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint, unregistered}},
			orUnresolved: true,
		},
		{
			// ... and before a part named "zz-join.sh" ("r" < "z").
			name:   "runcmd runs before a part named zz-join.sh",
			family: compat.AL2,
			userData: mime(
				"Content-Type: text/cloud-config; charset=\"us-ascii\"\n\n#cloud-config\nruncmd:\n  - "+join("--node-labels=team=web")+"\n",
				shellPart("zz-join.sh", tainted),
			),
			want:         outcome{Verdict: userdata.Joins, Taints: []string{kubeletTaint}},
			orUnresolved: true,
		},
	})
}

func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}
