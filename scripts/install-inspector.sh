#!/usr/bin/env bash
# install-inspector.sh: make the MCP Inspector CLI (mcp-inspector) available for planq's tests.
#
# Idempotent. Uses a working `mcp-inspector` on PATH when there is one; otherwise installs
# @modelcontextprotocol/inspector (0.15.x, runs on Node 20) with npm into a project-local
# prefix (.tools/npm, gitignored).
#
# Prints the absolute path of `mcp-inspector` on stdout (one line) and progress on stderr.
# Exit codes: 0 ok, 3 npm cannot reach its registry (callers skip loudly), 1 anything else.
#
# Environment:
#   PLANQ_TOOLS_DIR          where to install (default: <repo>/.tools)
#   PLANQ_INSPECTOR_VERSION  npm version range to install (default: 0.15)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
tools=${PLANQ_TOOLS_DIR:-$repo/.tools}
prefix=$tools/npm
version=${PLANQ_INSPECTOR_VERSION:-0.15}
pkg=@modelcontextprotocol/inspector

log() { echo "install-inspector: $*" >&2; }

# The CLI has no --version; a working install has its entry script and node.
works() { [ -n "${1:-}" ] && [ -x "$1" ] && command -v node >/dev/null 2>&1 && [ -e "$(readlink -f "$1")" ]; }

# shellcheck source=scripts/npm-tool.sh
. "$here/npm-tool.sh"
npm_tool mcp-inspector "$pkg" "$version" "MCP Inspector"

if ! works "$prefix/bin/mcp-inspector"; then
	log "$prefix/bin/mcp-inspector was not installed by npm"
	exit 1
fi
echo "$prefix/bin/mcp-inspector"
