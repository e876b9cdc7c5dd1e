package cloudinit

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/ec2select/ec2select/userdata/internal/shell"
)

// inertKeys are cloud-config modules that run no command and write
// nothing the join reads.
var inertKeys = map[string]bool{
	"packages": true, "package_update": true, "package_upgrade": true, "package_reboot_if_required": true,
	"repo_update": true, "repo_upgrade": true, "yum_repos": true, "ssh_authorized_keys": true, "ssh_pwauth": true,
	"ssh_keys": true, "ssh_deletekeys": true, "users": true, "groups": true, "timezone": true, "ntp": true,
	"hostname": true, "fqdn": true, "manage_etc_hosts": true, "preserve_hostname": true, "prefer_fqdn_over_hostname": true,
	"locale": true, "final_message": true, "output": true, "mounts": true, "mount_default_fields": true, "swap": true,
	"disk_setup": true, "fs_setup": true, "growpart": true, "resize_rootfs": true, "chpasswd": true, "password": true,
	"ca_certs": true, "ca-certs": true, "merge_how": true, "merge_type": true, "write_files": true, "bootcmd": true, "runcmd": true,
}

// joinPaths are directories where a written file changes how the node
// joins: the EKS scripts and config, the kubelet's files, systemd units,
// cloud-init itself.
var joinPaths = []string{"/etc/eks", "/etc/kubernetes", "/var/lib/kubelet", "/etc/systemd", "/lib/systemd", "/usr/lib/systemd",
	"/run/systemd", "/etc/cloud", "/var/lib/cloud", "/etc/sysconfig", "/etc/default", "/usr/bin", "/usr/local/bin", "/bin"}

// cloudConfig reads a #cloud-config part: bootcmd becomes a script run in
// the init stage (cc_bootcmd), runcmd a script named "runcmd" among the
// user scripts (cc_runcmd writes it to the same scripts directory); any
// module that is not known to be inert makes the part opaque.
func (p *planner) cloudConfig(name string, body []byte, line int) {
	p.configs++
	var doc map[string]any
	if err := yaml.Unmarshal(body, &doc); err != nil {
		p.opaque = append(p.opaque, Opaque{Part: name, Line: line, Reason: fmt.Sprintf("cloud-config that does not parse as YAML (%v); cloud-init may still read parts of it", err)})
		return
	}
	for _, k := range sortedKeys(doc) {
		if !inertKeys[k] {
			p.opaque = append(p.opaque, Opaque{Part: name, Line: keyLine(body, k, line), Reason: "cloud-config module " + k + ", which may run commands or change the boot and is not modelled"})
			return
		}
	}
	if why := writesJoinFiles(doc["write_files"]); why != "" {
		p.opaque = append(p.opaque, Opaque{Part: name, Line: keyLine(body, "write_files", line), Reason: why})
		return
	}
	p.commands(name, body, line, doc, "bootcmd", StageBootcmd)
	p.commands(name, body, line, doc, "runcmd", StageUser)
}

// commands turns a bootcmd or runcmd list into the /bin/sh script
// cloud-init writes for it (util.shellify: a string entry is a line as
// written, a list entry its items single-quoted and joined by spaces).
func (p *planner) commands(name string, body []byte, line int, doc map[string]any, key string, stage Stage) {
	v, ok := doc[key]
	if !ok || v == nil {
		return
	}
	at := keyLine(body, key, line)
	if p.configs > 1 {
		p.opaque = append(p.opaque, Opaque{Part: name, Line: at, Reason: "a second cloud-config part; how cloud-init merges its " + key + " with the first depends on merge_how"})
		return
	}
	script, err := shellify(v)
	if err != nil {
		p.opaque = append(p.opaque, Opaque{Part: name, Line: at, Reason: key + ": " + err.Error()})
		return
	}
	p.scripts = append(p.scripts, Script{Name: key, Part: name, Body: script, Line: at, PartLine: at, Stage: stage, Interpreter: "/bin/sh", Fixed: true})
}

func shellify(v any) ([]byte, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not a list, so cloud-init refuses it")
	}
	var b bytes.Buffer
	b.WriteString("#!/bin/sh\n")
	for _, entry := range list {
		switch e := entry.(type) {
		case string:
			b.WriteString(e + "\n")
		case []any:
			words := make([]string, 0, len(e))
			for _, w := range e {
				q, err := shell.Quote(fmt.Sprint(w))
				if err != nil {
					return nil, err
				}
				words = append(words, q)
			}
			b.WriteString(strings.Join(words, " ") + "\n")
		default:
			return nil, fmt.Errorf("entry %v is neither a string nor a list", entry)
		}
	}
	return b.Bytes(), nil
}

// writesJoinFiles names a write_files entry whose path is one the join
// reads, or a malformed list.
func writesJoinFiles(v any) string {
	if v == nil {
		return ""
	}
	list, ok := v.([]any)
	if !ok {
		return "write_files is not a list"
	}
	for _, e := range list {
		m, _ := e.(map[string]any)
		path, _ := m["path"].(string)
		for _, dir := range joinPaths {
			if path == "" || path == dir || strings.HasPrefix(path, dir+"/") {
				return fmt.Sprintf("write_files writes %q, a file the join or the kubelet may read", path)
			}
		}
	}
	return ""
}

// keyLine is the line of a top-level key in a part, or the part's line.
func keyLine(body []byte, key string, line int) int {
	if line == 0 {
		return 0
	}
	for i, l := range bytes.Split(body, []byte("\n")) {
		if bytes.HasPrefix(l, []byte(key+":")) {
			return line + i
		}
	}
	return line
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
