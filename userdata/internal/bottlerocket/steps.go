package bottlerocket

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Step is a bootstrap command or container, which runs before the kubelet
// (bootstrap-commands.service and bootstrap-containers run before
// preconfigured.target; the kubelet after configured.target).
type Step struct {
	// Path is where it is: settings.bootstrap-commands.NAME.commands[i]
	// as ["settings", "bootstrap-commands", NAME, "commands", "i"], or
	// settings.bootstrap-containers.NAME.
	Path   []string
	Effect Effect
	// Why says what it does, for a message.
	Why string
}

// Steps returns every bootstrap command and container of settings that is
// not [Harmless], in name order. A step whose mode is "off", or unset
// (BootstrapMode's default is "off": bottlerocket-settings-sdk@5ba2c487
// modeled-types/src/shared.rs L1042-L1048; bottlerocket-core-kit@a10182f9
// sources/bootstrap-commands/src/main.rs L74-L75 and L119-L123,
// sources/api/bootstrap-containers/src/main.rs L276 and L305) does not
// run, but the settings API still refuses it when it is malformed. A
// failing command does not stop the boot: bootstrap-commands ignores the
// exit status (main.rs L96-L109).
func Steps(settings map[string]any) []Step {
	var out []Step
	cmds, _ := settings["bootstrap-commands"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		e, ok := cmds[name].(map[string]any)
		if !ok {
			continue // Check reports the shape
		}
		out = append(out, commandSteps(name, e)...)
	}
	ctrs, _ := settings["bootstrap-containers"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(ctrs)) {
		e, _ := ctrs[name].(map[string]any)
		path := []string{"settings", "bootstrap-containers", name}
		switch runs, err := mode(e); {
		case err != nil:
			out = append(out, Step{Path: path, Effect: Refused, Why: err.Error()})
		case runs:
			out = append(out, Step{Path: path, Effect: CannotTell,
				Why: "a bootstrap container runs an image the user data does not hold, with the settings API at hand"})
		}
	}
	return out
}

// commandSteps classifies one bootstrap command's argvs.
func commandSteps(name string, e map[string]any) []Step {
	path := []string{"settings", "bootstrap-commands", name}
	runs, err := mode(e)
	if err != nil {
		return []Step{{Path: path, Effect: Refused, Why: err.Error()}}
	}
	raw, ok := e["commands"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		return []Step{{Path: append(path, "commands"), Effect: Refused, Why: "commands is not a list of commands"}}
	}
	var out []Step
	for i, c := range list {
		p := append(path[:len(path):len(path)], "commands", strconv.Itoa(i))
		argv, ok := words(c)
		if !ok {
			out = append(out, Step{Path: p, Effect: Refused, Why: "a command is not a list of words"})
			continue
		}
		eff, why := Classify(argv)
		if eff == Refused || runs && eff != Harmless {
			out = append(out, Step{Path: p, Effect: eff, Why: why})
		}
	}
	return out
}

// mode reads a step's mode: whether it runs, or why the settings API
// refuses it.
func mode(e map[string]any) (runs bool, err error) {
	raw, ok := e["mode"]
	if !ok {
		return false, nil
	}
	switch m, _ := raw.(string); m {
	case "off":
		return false, nil
	case "once", "always":
		return true, nil
	}
	return false, fmt.Errorf("mode %v is not off, once or always", raw)
}

func words(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, w := range list {
		if out[i], ok = w.(string); !ok {
			return nil, false
		}
	}
	return out, true
}
