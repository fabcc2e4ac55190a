#!/usr/bin/env bash
# install-claude.sh: make the Claude Code CLI available for planq's end-to-end test.
#
# Idempotent. Uses a working `claude` on PATH when there is one; otherwise installs
# @anthropic-ai/claude-code with npm into a project-local prefix (.tools/npm, gitignored).
# The native binary ships in the @anthropic-ai/claude-code-linux-x64 package (an optional
# dependency); when npm's postinstall did not put it in place, the script links it itself.
#
# Prints the absolute path of `claude` on stdout (one line) and progress on stderr.
# Exit codes: 0 ok, 3 npm cannot reach its registry (callers skip loudly), 1 anything else.
#
# Environment:
#   PLANQ_TOOLS_DIR            where to install (default: <repo>/.tools)
#   PLANQ_CLAUDE_CODE_VERSION  npm version or tag to install (default: pinned below)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
tools=${PLANQ_TOOLS_DIR:-$repo/.tools}
prefix=$tools/npm
version=${PLANQ_CLAUDE_CODE_VERSION:-2.1.197}
pkg=@anthropic-ai/claude-code

log() { echo "install-claude: $*" >&2; }

works() { [ -n "${1:-}" ] && [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

# shellcheck source=scripts/npm-tool.sh
. "$here/npm-tool.sh"
npm_tool claude "$pkg" "$version" "Claude Code"

if ! works "$prefix/bin/claude"; then
	# postinstall did not swap the stub for the native binary: link it ourselves.
	native=$(find "$prefix/lib/node_modules" -path '*claude-code-linux-x64/claude' -type f 2>/dev/null | head -n1 || true)
	if [ -z "$native" ]; then
		log "the native package @anthropic-ai/claude-code-linux-x64 was not installed (optional dependencies omitted?)"
		exit 1
	fi
	chmod +x "$native"
	ln -sf "$native" "$prefix/bin/claude"
fi

if ! works "$prefix/bin/claude"; then
	log "$prefix/bin/claude was installed but does not run (try: $prefix/bin/claude --version)"
	exit 1
fi
log "$("$prefix/bin/claude" --version 2>/dev/null)"
echo "$prefix/bin/claude"
