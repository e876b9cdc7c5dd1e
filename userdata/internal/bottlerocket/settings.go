package bottlerocket

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// IsSettings reports whether text is TOML with a settings table.
func IsSettings(text []byte) bool {
	var doc map[string]any
	if toml.Unmarshal(text, &doc) != nil {
		return false
	}
	_, ok := doc["settings"].(map[string]any)
	return ok
}

// ErrNoSettings: the TOML has no settings table.
var ErrNoSettings = errors.New("the TOML has no [settings] table")

// ReadUserData reads user data as early-boot-config does
// (bottlerocket-core-kit@a10182f9
// sources/early-boot-config/early-boot-config-provider/src/settings.rs
// L36-L51, called by user-data-providers/ec2-imds/src/lib.rs L34-L44):
// blank user data is none (nil, nil); otherwise it must parse as TOML and
// hold a settings table, which it returns. Any error makes the provider,
// then early-boot-config, fail, and early-boot-config.service is
// RequiredBy=preconfigured.target (packages/early-boot-config/
// early-boot-config.service), so the boot stops before the kubelet. The
// error is go-toml's *toml.DecodeError, [ErrNoSettings], or says that
// settings is not a table.
func ReadUserData(text []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return nil, nil
	}
	var doc map[string]any
	if err := toml.Unmarshal(text, &doc); err != nil {
		return nil, err
	}
	raw, ok := doc["settings"]
	if !ok {
		return nil, ErrNoSettings
	}
	settings, ok := raw.(map[string]any)
	if !ok {
		return nil, errors.New("settings is not a table")
	}
	return settings, nil
}

// TaintEntry is one entry of settings.kubernetes.node-taints.KEY:
// "value:Effect".
func TaintEntry(value, effect string) string {
	return value + ":" + effect
}

// ParseTaintEntry reads a node-taints entry; ok is false unless it has
// exactly one ':'.
func ParseTaintEntry(e string) (value, effect string, ok bool) {
	value, effect, found := strings.Cut(e, ":")
	if !found || strings.Contains(effect, ":") {
		return "", "", false
	}
	return value, effect, true
}

// RAID0CommandName is the bootstrap-commands key Karpenter v1.14.1 uses
// for instance-store RAID0 (pkg/providers/amifamily/bootstrap/bottlerocket.go,
// "000-mount-instance-storage"); Render uses it too, so a node's settings
// read the same whichever wrote them.
const RAID0CommandName = "000-mount-instance-storage"

// RAID0Command is the bootstrap command Karpenter v1.14.1 adds for RAID0:
// "apiclient ephemeral-storage init" then "bind". From Bottlerocket 1.46.0
// bind knows the directories itself (pkg/providers/version/version.go,
// SupportsDefaultBind); before that, or when the release is unknown, they
// are named.
func RAID0Command(release string) map[string]any {
	bind := []any{"apiclient", "ephemeral-storage", "bind"}
	if !BindsByDefault(release) {
		bind = append(bind, "--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods")
	}
	return map[string]any{
		"commands":  []any{[]any{"apiclient", "ephemeral-storage", "init"}, bind},
		"essential": true,
		"mode":      "always",
	}
}

// BindsByDefault reports whether a Bottlerocket release ("v1.46.0",
// "1.46.0-5d1a2b3c") is 1.46.0 or later.
func BindsByDefault(release string) bool {
	ok, known := AtLeast(release, "1.46.0")
	return ok && known
}

// AtLeast reports whether release ("v1.46.0", "1.46.0-5d1a2b3c") is
// min ("1.44.0") or later; known is false when release is not a version.
func AtLeast(release, min string) (ok, known bool) {
	r, known := parseRelease(release)
	m, mok := parseRelease(min)
	if !known || !mok {
		return false, false
	}
	for i := range r {
		if r[i] != m[i] {
			return r[i] > m[i], true
		}
	}
	return true, true
}

func parseRelease(s string) ([3]int, bool) {
	var n [3]int
	v := strings.TrimPrefix(s, "v")
	v, _, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return n, false
	}
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 {
			return n, false
		}
		n[i] = x
	}
	return n, true
}
