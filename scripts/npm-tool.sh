# npm-tool.sh: shared steps of scripts/install-claude.sh and install-inspector.sh.
# Source it after defining log(), works() and prefix; then call
#   npm_tool BIN PKG VERSION LABEL
# It prints BIN's path and exits 0 when a working BIN is on PATH or in
# $prefix/bin. Otherwise it installs PKG@VERSION into $prefix with npm and
# returns, so the caller can finish the install. Exit codes: 3 when npm cannot
# reach its registry (tests then skip loudly), 1 on any other failure.
# shellcheck shell=bash

npm_tool() {
	local bin=$1 pkg=$2 version=$3 label=$4 p
	: "${prefix:?npm_tool needs prefix set}"
	if p=$(command -v "$bin" 2>/dev/null) && works "$p"; then
		echo "$p"
		exit 0
	fi
	if works "$prefix/bin/$bin"; then
		echo "$prefix/bin/$bin"
		exit 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		log "npm is not installed; install Node.js 20+ and npm (apt-get install nodejs npm), then rerun"
		exit 1
	fi
	# Is the registry reachable? One cheap metadata request, bounded in time.
	if ! timeout 90 npm view "$pkg@$version" version >/dev/null 2>&1; then
		log "npm cannot reach its registry ($(npm config get registry 2>/dev/null)); $label not installed"
		exit 3
	fi
	log "installing $pkg@$version into $prefix"
	mkdir -p "$prefix"
	if ! timeout 540 npm install --global --prefix "$prefix" --no-audit --no-fund --loglevel=error \
		"$pkg@$version" >&2; then
		log "npm install $pkg@$version failed (see above)"
		exit 1
	fi
}
