package opencode

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
)

//go:embed plugin.js
var pluginJS []byte

// PluginFile is where the plugin goes, relative to an OpenCode config
// directory (<project>/.opencode or ~/.config/opencode).
const PluginFile = "plugin/planq.js"

// The placeholders in plugin.js, each followed by its default, a JS string literal.
var (
	planqSlot = []byte(`/*PLANQ*/ "planq"`)
	hookSlot  = []byte(`/*HOOK*/ ""`)
)

// Render returns the plugin with the absolute paths of planq and of
// planq-hook filled in; hook may be empty, and planq then serves the tool hooks.
func Render(planq, hook string) ([]byte, error) {
	if !filepath.IsAbs(planq) {
		return nil, fmt.Errorf("opencode plugin: planq path %q is not absolute", planq)
	}
	if hook != "" && !filepath.IsAbs(hook) {
		return nil, fmt.Errorf("opencode plugin: planq-hook path %q is not absolute", hook)
	}
	out, err := fill(pluginJS, planqSlot, planq)
	if err != nil {
		return nil, err
	}
	return fill(out, hookSlot, hook)
}

// fill replaces the one placeholder slot in js with s as a JSON string, which
// is also a JS string literal (json.Marshal escapes U+2028 and U+2029).
func fill(js, slot []byte, s string) ([]byte, error) {
	if n := bytes.Count(js, slot); n != 1 {
		return nil, fmt.Errorf("opencode plugin: placeholder %s appears %d times, want once", slot, n)
	}
	lit, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("opencode plugin: encode %q: %w", s, err)
	}
	return bytes.Replace(js, slot, lit, 1), nil
}
