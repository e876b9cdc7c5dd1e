package cloudinit

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"maps"
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

// cloudInitPaths are where a written file changes what cloud-init itself
// does in its later stages (its configuration and its state), whatever
// the AMI family.
var cloudInitPaths = []string{"/etc/cloud", "/var/lib/cloud", "/run/cloud-init"}

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
	for _, k := range slices.Sorted(maps.Keys(doc)) {
		if !inertKeys[k] {
			p.opaque = append(p.opaque, Opaque{Part: name, Line: keyLine(body, k, line), Reason: "cloud-config module " + k + ", which may run commands or change the boot and is not modelled"})
			return
		}
	}
	writes, why := writeFiles(name, body, line, doc["write_files"])
	if why != "" {
		p.opaque = append(p.opaque, Opaque{Part: name, Line: keyLine(body, "write_files", line), Reason: why})
		return
	}
	p.writes = append(p.writes, writes...)
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

// Write is one file write_files writes (cloudinit/config/cc_write_files.py
// write_files: path required, content "" by default, encoding
// b64/base64 decoded, gzip ones not followed, append).
type Write struct {
	Part string
	Line int // the line of the entry's path in the userData; 0 if unknown
	Path string
	// Content is what is written when Known; gzip'd content, or content
	// that is not a string, is not Known.
	Content string
	Known   bool
	Append  bool
	// MayNotRun is non-empty when whether the write happens depends on
	// the cloud-init version (see [Script.MayNotRun]).
	MayNotRun string
}

// writeFiles reads a write_files list. why is set for a malformed list,
// or an entry writing cloud-init's own files.
func writeFiles(part string, body []byte, line int, v any) (writes []Write, why string) {
	if v == nil {
		return nil, ""
	}
	list, ok := v.([]any)
	if !ok {
		return nil, "write_files is not a list"
	}
	for _, e := range list {
		m, _ := e.(map[string]any)
		path, _ := m["path"].(string)
		if path == "" {
			return nil, "a write_files entry has no path"
		}
		for _, dir := range cloudInitPaths {
			if path == dir || strings.HasPrefix(path, dir+"/") {
				return nil, fmt.Sprintf("write_files writes %q, which changes what cloud-init itself does next", path)
			}
		}
		w := Write{Part: part, Line: pathLine(body, path, line), Path: path}
		w.Append, _ = m["append"].(bool)
		w.Content, w.Known = decodeContent(m["content"], m["encoding"])
		writes = append(writes, w)
	}
	return writes, ""
}

// decodeContent is cc_write_files.py's decode_perms-free part of
// extract_contents: text as is, b64/base64 decoded; gzip (alone or with
// base64) is not followed.
func decodeContent(content, encoding any) (string, bool) {
	if content == nil {
		return "", true
	}
	text, ok := content.(string)
	if !ok {
		return "", false
	}
	enc, _ := encoding.(string)
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "", "text/plain":
		return text, true
	case "b64", "base64":
		out, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(text), ""))
		return string(out), err == nil
	}
	return "", false
}

// pathLine is the line of "path: <path>" in a part, or of the part.
func pathLine(body []byte, path string, line int) int {
	if line == 0 {
		return 0
	}
	if i := bytes.Index(body, []byte(path)); i >= 0 {
		return line + bytes.Count(body[:i], []byte("\n"))
	}
	return line
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
