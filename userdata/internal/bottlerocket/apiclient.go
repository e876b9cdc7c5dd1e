package bottlerocket

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Effect is what a bootstrap command can do to the node's registration.
type Effect uint8

const (
	// Harmless: it cannot change what the kubelet registers (reads,
	// ephemeral storage, settings outside the kubelet's), or it fails
	// before doing anything.
	Harmless Effect = iota
	// Refused: the settings API refuses the whole user data because of it:
	// a command whose first word is not "apiclient" (ApiclientCommand,
	// bottlerocket-settings-sdk@5ba2c487
	// bottlerocket-settings-models/modeled-types/src/shared.rs L978-L990), a
	// command that is not a list of words, a mode other than off, once and
	// always (BootstrapMode, L1024-L1040).
	Refused
	// ChangesNode: it sets settings the kubelet or the join read
	// (settings.kubernetes, or more boot steps).
	ChangesNode
	// CannotTell: it may change anything (apply, exec, raw requests that
	// write, reboot, update), and what it does is not in the user data.
	CannotTell
)

func (e Effect) String() string {
	switch e {
	case Harmless:
		return "harmless"
	case Refused:
		return "refused"
	case ChangesNode:
		return "changes-node"
	case CannotTell:
		return "cannot-tell"
	}
	return "Effect(" + strconv.Itoa(int(e)) + ")"
}

// nodeNamespaces are the namespaces whose settings can change what the
// kubelet registers or start more boot steps that can.
var nodeNamespaces = []string{"bootstrap-commands", "bootstrap-containers", "kubernetes"}

// Classify reads one bootstrap command, an argv, as apiclient parses it
// (bottlerocket-core-kit@a10182f9 sources/api/apiclient/src/main.rs):
// global options anywhere (-s/--socket-path and --log-level take a value,
// -v/--verbose, -h/--help exits), the first of raw, apply, exec, get,
// reboot, report, set, update and ephemeral-storage not starting with '-'
// is the subcommand (L302-L356; none means raw), and set takes KEY=VALUE
// pairs or one -j/--json object (L516-L576). why explains the effect.
func Classify(argv []string) (e Effect, why string) {
	if len(argv) == 0 || argv[0] != "apiclient" {
		return Refused, "its first word is not apiclient; Bottlerocket runs only apiclient commands"
	}
	sub, args, exited := splitAPIClient(argv[1:])
	switch {
	case exited:
		return Harmless, "apiclient prints its usage and exits"
	case sub == "set":
		return classifySet(args)
	case sub == "raw" || sub == "":
		return classifyRaw(args)
	case sub == "apply":
		return CannotTell, "apiclient apply applies settings from files or URIs the user data does not hold"
	case sub == "exec":
		return CannotTell, "apiclient exec runs a command in a host container"
	case sub == "reboot":
		return CannotTell, "apiclient reboot reboots the node before the kubelet starts"
	case sub == "update":
		if len(args) > 0 && args[0] == "check" {
			return Harmless, "apiclient update check only reads"
		}
		return CannotTell, "apiclient update changes the OS image"
	}
	// get, report and ephemeral-storage read or set up disks only.
	return Harmless, "apiclient " + sub + " does not change settings"
}

// splitAPIClient separates apiclient's global options from the subcommand
// and its arguments.
func splitAPIClient(args []string) (sub string, rest []string, exited bool) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "-h", "--help":
			return "", nil, true
		case "--log-level", "-s", "--socket-path":
			if i+1 >= len(args) {
				return "", nil, true
			}
			i++
		case "-v", "--verbose":
		case "raw", "apply", "exec", "get", "reboot", "report", "set", "update", "ephemeral-storage":
			if sub == "" {
				sub = a
				continue
			}
			rest = append(rest, a)
		default:
			rest = append(rest, a)
		}
	}
	return sub, rest, false
}

// classifySet reads apiclient set's arguments: KEY=VALUE pairs, whose keys
// the API server parses (ParseKey) and prefixes with "settings" when they
// lack it (bottlerocket-core-kit@a10182f9
// sources/api/apiserver/src/server/mod.rs L754-L781), or one JSON object,
// optionally wrapped in "settings".
func classifySet(args []string) (Effect, string) {
	var namespaces []string
	jsons, pairs := 0, 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-j" || a == "--json":
			if i+1 >= len(args) || jsons > 0 {
				return Harmless, "apiclient set exits with its usage: -j needs one JSON object, given once"
			}
			i++
			jsons++
			ns, err := jsonNamespaces(args[i])
			if err != nil {
				return Harmless, "apiclient set exits with its usage: " + err.Error()
			}
			namespaces = append(namespaces, ns...)
		case strings.Contains(a, "="):
			pairs++
			key, _, _ := strings.Cut(a, "=")
			segs, err := ParseKey(key)
			if err != nil {
				return Harmless, "the API server refuses the key: " + err.Error()
			}
			if segs[0] == "settings" {
				segs = segs[1:]
			}
			if len(segs) == 0 {
				return CannotTell, fmt.Sprintf("apiclient set %q sets every setting at once", a)
			}
			namespaces = append(namespaces, segs[0])
		default:
			return Harmless, fmt.Sprintf("apiclient set exits with its usage on %q", a)
		}
	}
	if jsons > 0 && pairs > 0 {
		return Harmless, "apiclient set exits with its usage: KEY=VALUE pairs and -j cannot be mixed"
	}
	for _, ns := range namespaces {
		if slices.Contains(nodeNamespaces, ns) {
			return ChangesNode, "apiclient set changes settings." + ns + ", which the kubelet or the join reads"
		}
	}
	if len(namespaces) == 0 {
		return Harmless, "apiclient set without settings exits with its usage"
	}
	return Harmless, "apiclient set changes only settings the kubelet does not read (" + strings.Join(namespaces, ", ") + ")"
}

// jsonNamespaces returns the top-level keys of apiclient set's JSON, with
// a "settings" wrapper removed as apiclient removes it.
func jsonNamespaces(text string) ([]string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		return nil, errors.New("the JSON is not an object")
	}
	var out []string
	for k, v := range m {
		if k != "settings" {
			out = append(out, k)
			continue
		}
		var inner map[string]json.RawMessage
		if err := json.Unmarshal(v, &inner); err != nil {
			return nil, errors.New(`its "settings" is not an object`)
		}
		for k := range inner {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}

// classifyRaw reads apiclient raw's -u/--uri, -m/-X/--method and
// -d/--data: only a GET (the default) cannot change anything.
func classifyRaw(args []string) (Effect, string) {
	method := "GET"
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-X", "-m", "--method":
			if i+1 >= len(args) {
				return Harmless, "apiclient raw exits with its usage"
			}
			i++
			method = args[i]
		case "-u", "--uri", "-d", "--data":
			i++
		default:
			return Harmless, fmt.Sprintf("apiclient raw exits with its usage on %q", args[i])
		}
	}
	if method == "GET" {
		return Harmless, "apiclient raw GET only reads"
	}
	return CannotTell, "apiclient raw " + method + " may write any setting"
}

// ParseKey splits a settings key as the API server's datastore does
// (bottlerocket-core-kit@a10182f9 sources/api/datastore/src/key.rs
// L244-L319): segments separated by '.', a segment in double quotes may
// hold '.', every other character is a letter, digit, '_', '-' or '/', and
// no segment is empty.
func ParseKey(name string) ([]string, error) {
	if name == "" {
		return nil, errors.New("the key is empty")
	}
	var segs []string
	var seg strings.Builder
	quoted := false
	for _, r := range name {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '.' && !quoted:
			if seg.Len() == 0 {
				return nil, fmt.Errorf("key %q has an empty segment", name)
			}
			segs = append(segs, seg.String())
			seg.Reset()
		case r == '.' || r < 0x80 && (isAlnum(byte(r)) || r == '_' || r == '-' || r == '/'):
			seg.WriteRune(r)
		default:
			return nil, fmt.Errorf("key %q has the invalid character %q", name, r)
		}
	}
	if quoted {
		return nil, fmt.Errorf("key %q has unbalanced quotes", name)
	}
	if seg.Len() == 0 {
		return nil, fmt.Errorf("key %q ends with a separator", name)
	}
	return append(segs, seg.String()), nil
}
