#!/usr/bin/env bash
# install-host.sh: make an agent host's CLI available for planq's end-to-end tests.
#
# Usage: scripts/install-host.sh opencode|codex|gemini|copilot
#
# Idempotent. Uses a working CLI on PATH when there is one; otherwise installs the
# host's npm package, at the version pinned below, into a project-local prefix
# (.tools/npm, gitignored). Claude Code has its own script (install-claude.sh).
#
# Prints the absolute path of the CLI on stdout (one line) and progress on stderr.
# Exit codes: 0 ok, 3 npm cannot reach its registry (callers skip loudly), 1 anything else.
#
# Environment:
#   PLANQ_TOOLS_DIR            where to install (default: <repo>/.tools)
#   PLANQ_OPENCODE_VERSION     opencode-ai version      (default: pinned below)
#   PLANQ_CODEX_VERSION        @openai/codex version    (default: pinned below)
#   PLANQ_GEMINI_VERSION       @google/gemini-cli version (default: pinned below)
#   PLANQ_COPILOT_VERSION      @github/copilot version  (default: pinned below)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
tools=${PLANQ_TOOLS_DIR:-$repo/.tools}
prefix=$tools/npm

host=${1:-}
case $host in
opencode) bin=opencode pkg=opencode-ai version=${PLANQ_OPENCODE_VERSION:-1.18.33} label=OpenCode ;;
codex) bin=codex pkg=@openai/codex version=${PLANQ_CODEX_VERSION:-0.169.0} label="Codex CLI" ;;
gemini) bin=gemini pkg=@google/gemini-cli version=${PLANQ_GEMINI_VERSION:-0.61.0} label="Gemini CLI" ;;
copilot) bin=copilot pkg=@github/copilot version=${PLANQ_COPILOT_VERSION:-1.0.102} label="Copilot CLI" ;;
*)
	echo "usage: $0 opencode|codex|gemini|copilot" >&2
	exit 1
	;;
esac

log() { echo "install-host($host): $*" >&2; }

# A working install answers --version with the pinned version; a CLI on PATH
# at another version is not used, so every run tests the pinned host.
works() { [ -n "${1:-}" ] && [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qF "$version"; }

# shellcheck source=scripts/npm-tool.sh
. "$here/npm-tool.sh"
npm_tool "$bin" "$pkg" "$version" "$label"

if ! works "$prefix/bin/$bin"; then
	log "$prefix/bin/$bin was installed but does not report version $version (try: $prefix/bin/$bin --version)"
	exit 1
fi
log "$label $("$prefix/bin/$bin" --version 2>/dev/null | tail -n1)"
echo "$prefix/bin/$bin"
