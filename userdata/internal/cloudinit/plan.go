package cloudinit

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Stage is when cloud-init runs a script; lower stages run first.
type Stage int

// The stages, in the order they run: boothooks as their parts are read
// (init stage), then bootcmd (init modules), then in the final stage
// scripts-per-once, scripts-per-boot, scripts-per-instance and
// scripts-user, each directory in file-name order.
const (
	StageBoothook Stage = iota
	StageBootcmd
	StagePerOnce
	StagePerBoot
	StagePerInstance
	StageUser
)

// Script is one script cloud-init writes out and runs.
type Script struct {
	Name  string // its file name in its directory (part-001, runcmd, ...)
	Part  string // the file name of the MIME part it came from
	Body  []byte // the script as written: CRLF converted, prefixes removed
	Line  int    // 1-based line in the userData of Body's first line; 0 if unknown
	Stage Stage
	// Interpreter is the program on the "#!" line ("" if there is none,
	// in which case the kernel refuses to run it).
	Interpreter string
	// MayNotRun is non-empty when whether the script runs depends on the
	// cloud-init version (AL2 ships 19.3, which lacks some part types).
	MayNotRun string
	// Fixed is set for a script whose every line comes from one line of
	// the userData (bootcmd, runcmd): Line is that line.
	Fixed bool
	// PartLine is the line of the first line of the part's body (the
	// #cloud-boothook line of a boothook); 0 if unknown.
	PartLine int
}

// Opaque is a part whose effect cannot be known before boot.
type Opaque struct {
	Part   string
	Line   int
	Reason string
}

// Result is what cloud-init does with userData: the scripts it runs, in
// the order it runs them, the files write_files writes (before any of
// the final stage's scripts), and the parts it cannot follow.
type Result struct {
	Scripts []Script
	Writes  []Write
	Opaque  []Opaque
	// Python2Differs, when set, says how Python 2.7's reading of the MIME
	// document differs from Python 3's, which the rest follows.
	Python2Differs string
}

// Plan reads userData as cloud-init does. err is set when cloud-init
// finds no part in a MIME document.
func Plan(userData []byte) (Result, error) {
	parts, differs, err := Parts(userData)
	if err != nil {
		return Result{}, err
	}
	var p planner
	for i, part := range parts {
		p.part(part, fmt.Sprintf("part-%03d", i+1))
	}
	return Result{Scripts: p.ordered(), Writes: p.writes, Opaque: p.opaque, Python2Differs: differs}, nil
}

type planner struct {
	scripts []Script
	writes  []Write
	opaque  []Opaque
	configs int // cloud-config parts seen
}

// part classifies one leaf part, named by its position unless it carries
// a file name.
func (p *planner) part(part Part, positional string) {
	name := cleanFilename(part.Filename)
	if name == "" {
		name = positional
	}
	if part.Unmodelled != "" {
		p.opaque = append(p.opaque, Opaque{Part: name, Line: part.Line, Reason: "a MIME part with " + part.Unmodelled})
		return
	}
	ctype := partType(part.Type, part.Body)
	detected := typeFromStartsWith(part.Body)
	body := dos2unix(part.Body)
	switch {
	case ctype == "text/x-shellscript" && detected != "" && detected != ctype:
		p.versioned(part, name, detected)
	case ctype == "text/x-shellscript":
		p.scripts = append(p.scripts, Script{Name: name, Part: name, Body: body, Line: part.Line, PartLine: part.Line, Stage: StageUser, Interpreter: interpreter(body)})
	case strings.HasPrefix(ctype, "text/x-shellscript-per-"):
		p.perFrequency(ctype, name, body, part.Line)
	case ctype == "text/cloud-boothook":
		p.boothook(name, body, part.Line)
	case ctype == "text/cloud-config":
		p.cloudConfig(name, body, part.Line)
	case opaqueTypes[ctype] != "":
		p.opaque = append(p.opaque, Opaque{Part: name, Line: part.Line, Reason: opaqueTypes[ctype]})
	case ctype == "text/x-not-multipart" && len(bytes.TrimSpace(body)) > 0:
		// cloud-init logs "Unhandled non-multipart userdata" and runs
		// nothing; kept, without an interpreter, so that callers can say so.
		p.scripts = append(p.scripts, Script{Name: name, Part: name, Body: body, Line: part.Line, Stage: StageUser})
	}
}

// opaqueTypes are part types whose effect depends on something only known
// at boot.
var opaqueTypes = map[string]string{
	"text/x-include-url":            "an #include part, which fetches more userData at boot",
	"text/x-include-once-url":       "an #include-once part, which fetches more userData at boot",
	"text/jinja2":                   "a jinja template, rendered with instance data at boot",
	"text/part-handler":             "a part handler, Python code that handles later parts",
	"text/cloud-config-archive":     "a cloud-config archive, whose parts are not modelled",
	"text/cloud-config-jsonp":       "a cloud-config JSON patch, which is not modelled",
	"application/x-gzip":            "a gzip part, decompressed at boot",
	"application/gzip":              "a gzip part, decompressed at boot",
	"application/gzip-compressed":   "a gzip part, decompressed at boot",
	"application/gzipped":           "a gzip part, decompressed at boot",
	"application/x-compress":        "a gzip part, decompressed at boot",
	"application/x-compressed":      "a gzip part, decompressed at boot",
	"application/x-gzip-compressed": "a gzip part, decompressed at boot",
}

// versioned handles a text/x-shellscript part whose first line names
// another type: cloud-init 22.x handles it as that type (user_data.py
// _process_msg re-detects text/x-shellscript), 19.3 as a script without
// "#!", which cannot run. What it would run in 22.x is kept, marked as
// version-dependent.
func (p *planner) versioned(part Part, name, detected string) {
	var sub planner
	sub.configs = p.configs
	part.Type = detected
	sub.part(part, name)
	why := "cloud-init 22.x handles this text/x-shellscript part as " + detected + " (its first line), 19.3 as a script that cannot run"
	for _, w := range sub.writes {
		w.MayNotRun = why
		p.writes = append(p.writes, w)
	}
	for _, s := range sub.scripts {
		s.MayNotRun, s.PartLine = why, part.Line
		p.scripts = append(p.scripts, s)
	}
	for _, o := range sub.opaque {
		o.Reason = why + "; " + o.Reason
		p.opaque = append(p.opaque, o)
	}
	p.configs = sub.configs
}

func (p *planner) perFrequency(ctype, name string, body []byte, line int) {
	stage := map[string]Stage{
		"text/x-shellscript-per-boot":     StagePerBoot,
		"text/x-shellscript-per-instance": StagePerInstance,
		"text/x-shellscript-per-once":     StagePerOnce,
	}[ctype]
	p.scripts = append(p.scripts, Script{
		Name: name, Part: name, Body: body, Line: line, PartLine: line, Stage: stage, Interpreter: interpreter(body),
		MayNotRun: "cloud-init 22.x runs " + ctype + " parts (handlers/shell_script_by_frequency.py); 19.3, on AL2, has no handler for them and ignores them",
	})
}

// boothook strips the #cloud-boothook line; cloud-init runs the rest, left
// trimmed, as an executable (handlers/boot_hook.py).
func (p *planner) boothook(name string, body []byte, line int) {
	partLine := line
	rest := body
	if len(body) >= len("#cloud-boothook") && strings.EqualFold(string(body[:len("#cloud-boothook")]), "#cloud-boothook") {
		rest = body[len("#cloud-boothook"):]
	}
	trimmed := bytes.TrimLeft(rest, " \t\r\n")
	if line > 0 {
		line += bytes.Count(body[:len(body)-len(trimmed)], []byte("\n"))
	}
	p.scripts = append(p.scripts, Script{Name: name, Part: name, Body: trimmed, Line: line, PartLine: partLine, Stage: StageBoothook, Interpreter: interpreter(trimmed)})
}

// ordered sorts scripts into run order. Boothooks run in document order;
// every other stage is a directory run in file-name order, where a later
// part with the same file name replaces an earlier one.
func (p *planner) ordered() []Script {
	byDir := map[Stage]map[string]Script{}
	var out []Script
	for _, s := range p.scripts {
		if s.Stage == StageBoothook || s.Stage == StageBootcmd {
			out = append(out, s)
			continue
		}
		if byDir[s.Stage] == nil {
			byDir[s.Stage] = map[string]Script{}
		}
		byDir[s.Stage][s.Name] = s
	}
	for _, dir := range byDir {
		for _, s := range dir {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b Script) int {
		if a.Stage != b.Stage {
			return int(a.Stage - b.Stage)
		}
		if a.Stage == StageBoothook {
			return 0
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// partType is the type cloud-init handles a part as: text/plain and
// text/x-not-multipart parts, and (in 22.x) text/x-shellscript ones, take
// the type their first line names.
func partType(mediaType string, body []byte) string {
	if mediaType == "text/plain" || mediaType == "text/x-not-multipart" {
		if t := typeFromStartsWith(body); t != "" {
			return t
		}
	}
	return mediaType
}

// startsWith maps a first line's prefix to a type, longest first
// (handlers/__init__.py INCLUSION_TYPES_MAP, INCLUSION_SRCH).
var startsWith = []struct{ prefix, ctype string }{
	{"#cloud-config-archive", "text/cloud-config-archive"},
	{"#cloud-config-jsonp", "text/cloud-config-jsonp"},
	{"## template: jinja", "text/jinja2"},
	{"#cloud-boothook", "text/cloud-boothook"},
	{"#include-once", "text/x-include-once-url"},
	{"#part-handler", "text/part-handler"},
	{"#cloud-config", "text/cloud-config"},
	{"#include", "text/x-include-url"},
	{"#!", "text/x-shellscript"},
}

// typeFromStartsWith is handlers.type_from_starts_with: the payload,
// lowercased and left-trimmed, against the known prefixes.
func typeFromStartsWith(body []byte) string {
	head := strings.ToLower(string(bytes.TrimLeft(body[:min(len(body), 64)], " \t\r\n\v\f")))
	for _, s := range startsWith {
		if strings.HasPrefix(head, s.prefix) {
			return s.ctype
		}
	}
	return ""
}

// dos2unix is util.dos2unix: when the first line ends in CRLF, every CRLF
// becomes LF; otherwise the text is unchanged.
func dos2unix(b []byte) []byte {
	nl := bytes.IndexByte(b, '\n')
	if nl <= 0 || b[nl-1] != '\r' {
		return b
	}
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
}

// interpreter is the program of a "#!" line, "" without one.
func interpreter(body []byte) string {
	first, _, _ := bytes.Cut(body, []byte("\n"))
	if !bytes.HasPrefix(first, []byte("#!")) {
		return ""
	}
	f := strings.Fields(string(first[2:]))
	if len(f) == 0 {
		return ""
	}
	if strings.HasSuffix(f[0], "/env") && len(f) > 1 {
		return f[1]
	}
	return f[0]
}

// cleanFilename is util.clean_filename: '/' becomes '_', characters
// outside letters, digits and _-.() are dropped, spaces trimmed.
func cleanFilename(fn string) string {
	fn = strings.ReplaceAll(fn, "/", "_")
	fn = strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-.()", r)) {
			return r
		}
		return -1
	}, fn)
	return strings.TrimSpace(fn)
}

// PartNames returns the file name cloud-init gives each leaf part of
// userData, in document order.
func PartNames(userData []byte) ([]string, error) {
	parts, _, err := Parts(userData)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(parts))
	for i, part := range parts {
		names[i] = cleanFilename(part.Filename)
		if names[i] == "" {
			names[i] = fmt.Sprintf("part-%03d", i+1)
		}
	}
	return names, nil
}
