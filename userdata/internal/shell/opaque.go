package shell

import (
	"path"
	"strings"
)

// opaqueCommands run code the walker cannot read: another language's
// interpreter, a command string, or a command under another user or
// later.
var opaqueCommands = map[string]string{
	"python": "a Python interpreter", "python2": "a Python interpreter", "python3": "a Python interpreter",
	"perl": "a Perl interpreter", "ruby": "a Ruby interpreter", "node": "a Node.js interpreter", "php": "a PHP interpreter",
	"su": "su, which runs a command string", "runuser": "runuser, which runs a command", "systemd-run": "systemd-run, which runs a command",
	"xargs": "xargs, which builds commands from its input", "parallel": "parallel, which builds commands from its input",
	"chroot": "chroot, which runs a command", "setsid": "setsid, which runs a command", "flock": "flock, which runs a command",
	"stdbuf": "stdbuf, which runs a command", "ionice": "ionice, which runs a command", "taskset": "taskset, which runs a command",
	"trap": "", "watch": "watch, which runs a command string", "at": "at, which runs commands later", "batch": "batch, which runs commands later",
	"crontab": "crontab, which runs commands later", "zsh": "a zsh shell", "ksh": "a ksh shell",
}

// kubeletStarters are the commands that can start the kubelet without the
// target: systemctl and service (with the kubelet unit) and the kubelet
// binary itself.
var kubeletStarters = map[string]bool{"systemctl": true, "service": true, "kubelet": true, "nodeadm": true}

// systemDirs hold installed programs; a command run by a path elsewhere
// (/tmp/setup.sh, ./install.sh) is a script the walker has not read.
var systemDirs = map[string]bool{"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true, "/usr/local/bin": true, "/usr/local/sbin": true}

// opaqueCommand says why a command (after its wrappers) is not followable,
// or "" when it is an ordinary command.
func opaqueCommand(args []Arg, target string) string {
	name := args[0].Value
	base := path.Base(name)
	switch {
	case base == target:
		return ""
	case base == "trap":
		return trapRuns(args[1:], target)
	case opaqueCommands[base] != "":
		return opaqueCommands[base]
	case kubeletStarters[base]:
		return ""
	case strings.ContainsRune(name, '/') && !systemDirs[path.Dir(path.Clean(name))] && !knownPrograms[path.Clean(name)]:
		return "a script the walker has not read (" + name + ")"
	}
	return ""
}

// knownPrograms are programs outside the system directories that the EKS
// AMIs ship and that neither call the join nor touch the kubelet:
// cfn-signal (aws-cfn-bootstrap) only sends CloudFormation a signal, as
// the last line of AWS's own node group template does.
var knownPrograms = map[string]bool{"/opt/aws/bin/cfn-signal": true}

// startsKubelet reports systemctl/service commands that name the kubelet
// (or a unit only known at boot), and any run of the kubelet or nodeadm
// binary; "" for other commands.
func startsKubelet(args []Arg) string {
	base := path.Base(args[0].Value)
	switch {
	case !kubeletStarters[base]:
		return ""
	case base == "kubelet" || base == "nodeadm":
		return "the " + base + " binary, run directly"
	}
	for _, a := range args[1:] {
		if !a.Known || strings.HasPrefix(a.Value, "kubelet") {
			return base + " acting on the kubelet unit"
		}
	}
	return ""
}

// trapRuns reports a trap whose command string may start the kubelet or
// call the target; an ordinary trap (logging on ERR) is followable.
func trapRuns(args []Arg, target string) string {
	for _, a := range args {
		if !a.Known || strings.Contains(a.Value, target) || strings.Contains(a.Value, "kubelet") || strings.Contains(a.Value, "eval") {
			return "trap, whose command string runs later"
		}
	}
	return ""
}

// shellName reports whether a command line is a bare shell (which reads
// its commands from standard input, e.g. curl ... | bash).
func shellName(fields []Arg) bool {
	for _, f := range fields {
		if !f.Known {
			return false
		}
		switch path.Base(f.Value) {
		case "bash", "sh", "dash":
			return true
		}
	}
	return false
}

// shellCommandString names a shell given a command string: "sh -c".
func shellCommandString(fields []Arg) string {
	for _, f := range fields {
		if f.Known && shellName([]Arg{f}) {
			return path.Base(f.Value) + " -c, a shell running a command string"
		}
	}
	return "a shell running a command string (-c)"
}
