package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// EnsureOpenCode returns the path of the pinned OpenCode CLI, installing it
// with scripts/install-host.sh when missing (skipping loudly when npm cannot
// reach its registry).
func EnsureOpenCode(tb testing.TB) string {
	tb.Helper()
	return ensureCLI(tb, "OpenCode", "install-host.sh", "opencode")
}

// EnsureCodex returns the path of the pinned Codex CLI, installing it when
// missing.
func EnsureCodex(tb testing.TB) string {
	tb.Helper()
	return ensureCLI(tb, "Codex", "install-host.sh", "codex")
}

// EnsureGemini returns the path of the pinned Gemini CLI, installing it when
// missing.
func EnsureGemini(tb testing.TB) string {
	tb.Helper()
	return ensureCLI(tb, "Gemini CLI", "install-host.sh", "gemini")
}

// EnsureCopilot returns the path of the pinned Copilot CLI, installing it
// when missing.
func EnsureCopilot(tb testing.TB) string {
	tb.Helper()
	return ensureCLI(tb, "Copilot CLI", "install-host.sh", "copilot")
}

// HostRun describes one headless run of an agent CLI other than Claude Code
// against a fake model: OpenCode (`opencode run`), Codex (`codex exec`) or
// Gemini CLI (`gemini -p`). Each Exec method points the host at the fake
// through its own provider settings, keeps every other request on loopback,
// and isolates the host's state under Home.
type HostRun struct {
	Bin    string   // path of the host's CLI
	Dir    string   // working directory (the project)
	Home   string   // HOME for the run (a temp dir: the host keeps its state there)
	Model  *Server  // the fake model
	Prompt string   // the user's prompt
	Args   []string // extra arguments before the prompt
	Env    []string // extra environment, KEY=VALUE
	// KeepHookTrust runs the host without overriding its trust, so only the
	// hooks (and project config) its own config trusts are used: Codex
	// without --dangerously-bypass-hook-trust, Copilot CLI without
	// --trust-folder.
	KeepHookTrust bool
	// NoWorkspaceMCP runs Copilot CLI without
	// GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP, so -p skips the project's
	// MCP servers.
	NoWorkspaceMCP bool
	// CopilotPermissions are the permission flags Copilot CLI runs with
	// instead of --allow-all (--allow-all-tools alone, say).
	CopilotPermissions []string
}

func (r HostRun) exec(ctx context.Context, label string, args []string, env []string) (Result, error) {
	cmd := exec.CommandContext(ctx, r.Bin, args...)
	cmd.Dir = r.Dir
	cmd.Env = append(append(hostEnv(), "HOME="+r.Home, "PWD="+r.Dir), env...)
	cmd.Env = append(cmd.Env, r.Env...)
	cmd.Stdin = strings.NewReader("")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: stderr.String()}
	if err != nil {
		return res, fmt.Errorf("%s %s: %w\nstdout: %s\nstderr: %s", label, strings.Join(args, " "), err, res.Stdout, res.Stderr)
	}
	return res, nil
}

// hostEnv is the process environment without anything that would point a
// host at a real account, model or config.
func hostEnv() []string {
	var out []string
	for _, kv := range baseEnv() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "CODEX_") || strings.HasPrefix(k, "GEMINI_") ||
			strings.HasPrefix(k, "OPENCODE") ||
			strings.HasPrefix(k, "COPILOT_") || strings.HasPrefix(k, "GITHUB_") || k == "GH_TOKEN" || k == "GH_HOST" || strings.HasPrefix(k, "XDG_") || k == "PWD" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// OpenCodeOffline is the environment that keeps OpenCode off the network:
// no update check, no LSP or default plugin downloads, and no models.dev
// fetch (offline, that fetch times out after 30 s and holds the first model
// request back for about 100 s; the fake provider is fully described in the
// config, so the catalogue is not needed).
var OpenCodeOffline = []string{
	"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
	"OPENCODE_DISABLE_MODELS_FETCH=1",
}

// OpenCode runs `opencode run --format json` with a provider "fake" that
// speaks Chat Completions to the fake model. The provider lives in the user
// config under Home, so the project's opencode.json is the user's (planq's)
// own. SessionID is the session the run used.
func (r HostRun) OpenCode(ctx context.Context) (Result, error) {
	cfgDir := filepath.Join(r.Home, ".config", "opencode")
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"options": map[string]any{"baseURL": r.Model.URL + "/v1", "apiKey": "x"},
			"models":  map[string]any{"m": map[string]any{"tool_call": true}},
		}},
		"model":      "fake/m",
		"autoupdate": false,
		"share":      "disabled",
	}
	if err := writeJSONFile(filepath.Join(cfgDir, "opencode.json"), cfg); err != nil {
		return Result{}, err
	}
	args := append([]string{"run", "--format", "json", "--model", "fake/m"}, r.Args...)
	args = append(args, r.Prompt)
	res, err := r.exec(ctx, "opencode", args, append([]string{
		"XDG_CONFIG_HOME=" + filepath.Join(r.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(r.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(r.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(r.Home, ".local", "state"),
	}, OpenCodeOffline...))
	res.SessionID = firstJSONField(res.Stdout, "sessionID")
	return res, err
}

// Codex runs `codex exec --json` with a model provider "fake" that speaks the
// Responses API to the fake model, given with -c so $CODEX_HOME/config.toml
// stays the user's (planq's) own. Hooks are trusted for the run (unless
// KeepHookTrust), plugins,
// apps, analytics and metrics are off. SessionID is the thread id.
func (r HostRun) Codex(ctx context.Context) (Result, error) {
	codexHome := filepath.Join(r.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return Result{}, err
	}
	args := []string{"exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
		"--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps",
		"-c", "analytics.enabled=false", "-c", `otel.metrics_exporter="none"`,
		"-c", `model="gpt-fake"`, "-c", `model_provider="fake"`,
		"-c", fmt.Sprintf(`model_providers.fake={name="fake",base_url=%q,wire_api="responses"}`, r.Model.URL+"/v1"),
	}
	if !r.KeepHookTrust {
		args = append(args, "--dangerously-bypass-hook-trust")
	}
	args = append(append(args, r.Args...), r.Prompt)
	res, err := r.exec(ctx, "codex", args, []string{"CODEX_HOME=" + codexHome, "OPENAI_API_KEY=x"})
	res.SessionID = firstJSONField(res.Stdout, "thread_id")
	return res, err
}

// Gemini runs `gemini -p … --yolo --output-format json` against the fake
// model (GOOGLE_GEMINI_BASE_URL) with API-key auth, a trusted workspace, and
// usage statistics and update checks off in the user settings under Home.
func (r HostRun) Gemini(ctx context.Context) (Result, error) {
	settings := filepath.Join(r.Home, ".gemini", "settings.json")
	if err := mergeJSONFile(settings, map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
		"tools":    map[string]any{"useRipgrep": false},
	}); err != nil {
		return Result{}, err
	}
	args := append([]string{"-p", r.Prompt, "--yolo", "-m", "gemini-2.5-flash", "--output-format", "json"}, r.Args...)
	res, err := r.exec(ctx, "gemini", args, []string{
		"GOOGLE_GEMINI_BASE_URL=" + r.Model.URL, "GEMINI_API_KEY=x", "GEMINI_CLI_TRUST_WORKSPACE=true",
	})
	if i := strings.Index(res.Stdout, "{"); i >= 0 {
		if json.Unmarshal([]byte(res.Stdout[i:]), &res.JSON) == nil {
			res.SessionID, _ = res.JSON["session_id"].(string)
		}
	}
	return res, err
}

// Copilot runs `copilot -p … --allow-all --output-format json` (or
// CopilotPermissions instead of --allow-all) against the
// fake model through Copilot's BYOK provider settings (Chat Completions at
// Model.URL/v1, offline: no GitHub login, telemetry or update check), with
// its state in Home/.copilot. The working directory is trusted for this one
// run (--trust-folder, unless KeepHookTrust) and the project's MCP servers
// load in -p (GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP, unless
// NoWorkspaceMCP). SessionID is the session id.
func (r HostRun) Copilot(ctx context.Context) (Result, error) {
	copilotHome := filepath.Join(r.Home, ".copilot")
	perms := r.CopilotPermissions
	if perms == nil {
		perms = []string{"--allow-all"}
	}
	args := append(append([]string{"-p", r.Prompt}, perms...), "--no-ask-user", "--no-auto-update",
		"--disable-client-telemetry", "--output-format", "json", "--log-dir", filepath.Join(copilotHome, "logs"))
	if !r.KeepHookTrust {
		args = append(args, "--trust-folder")
	}
	args = append(args, r.Args...)
	env := []string{
		"COPILOT_HOME=" + copilotHome, "XDG_CONFIG_HOME=" + filepath.Join(r.Home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(r.Home, ".local", "state"), "XDG_CACHE_HOME=" + filepath.Join(r.Home, ".cache"),
		"COPILOT_PROVIDER_BASE_URL=" + r.Model.URL + "/v1", "COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=fake-model-key",
		"COPILOT_MODEL=m", "COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false",
		"NO_COLOR=1",
	}
	if !r.NoWorkspaceMCP {
		env = append(env, "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP=true")
	}
	res, err := r.exec(ctx, "copilot", args, env)
	res.SessionID = firstJSONField(res.Stdout, "sessionId")
	return res, err
}

// firstJSONField returns the first string value of field in a stream of
// JSON lines, searching nested objects.
func firstJSONField(out, field string) string {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var v any
		if json.Unmarshal(sc.Bytes(), &v) != nil {
			continue
		}
		if s := findField(v, field); s != "" {
			return s
		}
	}
	return ""
}

func findField(v any, field string) string {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v[field].(string); ok && s != "" {
			return s
		}
		for _, x := range v {
			if s := findField(x, field); s != "" {
				return s
			}
		}
	case []any:
		for _, x := range v {
			if s := findField(x, field); s != "" {
				return s
			}
		}
	}
	return ""
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// mergeJSONFile sets the keys of v (recursively) in the JSON object file at
// path, keeping every other key.
func mergeJSONFile(path string, v map[string]any) error {
	cur := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &cur); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	mergeMaps(cur, v)
	return writeJSONFile(path, cur)
}

func mergeMaps(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeMaps(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}
