// Package dirs names the places outside a project that the gate and the
// OS sandbox (package gate/sandbox) both judge: where programs load code or
// settings from (tool homes), where they keep caches and build output, and
// the system's temporary directories. It is the one home of these lists:
// the gate's parser counts a write to any tool home or cache as sensitive
// (a later command could run what was planted there), and the sandbox makes
// the temporary directories and the caches writable (builds need them) and
// every tool home read-only.
package dirs

// CodeEnv names environment variables holding directories (or files)
// that tools load code, compiled objects or settings from, or install
// programs into. The sandbox never makes them writable.
var CodeEnv = []string{
	"GOPATH", "GOMODCACHE", "GOROOT", "GOBIN", "GOENV",
	"CARGO_HOME", "RUSTUP_HOME",
	"VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "PYTHONUSERBASE",
	"NVM_DIR", "VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "PNPM_HOME", "npm_config_prefix",
	"GEM_HOME", "GEM_PATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
	"XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "JJ_CONFIG", "GIT_CONFIG_GLOBAL", "PLANQ_HOME",
	// The agent hosts' own homes, which hold their hooks (planq's gate
	// among them) and permission rules, when set elsewhere than the home
	// directory's dot files.
	"CLAUDE_CONFIG_DIR", "CODEX_HOME", "COPILOT_HOME", "GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
	"GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR",
}

// CacheEnv names environment variables holding build caches and build
// output directories: tools read back what they wrote there, so the gate's
// parser treats writes there as sensitive, but a build cannot run without
// them, so the sandbox makes them writable (when they are outside the
// project).
var CacheEnv = []string{"GOCACHE", "XDG_CACHE_HOME", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_TARGET_DIR"}

// HomeCaches are the caches' default places in the home directory, used
// when the variables of CacheEnv are not set: ~/.cache (XDG_CACHE_HOME's
// default, which holds Go's build cache, pip's and many more) and ~/.npm.
var HomeCaches = []string{".cache", ".npm"}
