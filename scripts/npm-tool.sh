# npm-tool.sh: shared steps of scripts/install-claude.sh and install-inspector.sh.
# Source it after defining log(), works() and prefix; then call
#   npm_tool BIN PKG VERSION LABEL
# It prints BIN's path and exits 0 when a working BIN is on PATH or in
# $prefix/bin. Otherwise it installs PKG@VERSION into $prefix with npm and
# returns, so the caller can finish the install. Exit codes: 3 when npm cannot
# reach its registry (tests then skip loudly), 1 on any other failure.
#
# npm's settings are the machine's own: `npm install --global --prefix X`
# would read its global config from X/etc/npmrc and so drop the machine's
# (registry, cafile for a proxy's CA...), so the real global config is passed
# with --globalconfig. NPM_CONFIG_* / npm_config_* in the environment apply as
# usual, and win over the retry settings below, which make an unreachable
# registry fail within a minute with its own error instead of retrying for
# minutes.
# shellcheck shell=bash

# npm_setting NAME DEFAULT: DEFAULT unless the environment sets npm config
# NAME (npm_config_NAME or NPM_CONFIG_NAME, dashes as underscores).
npm_setting() {
	local lower upper
	lower=npm_config_${1//-/_}
	upper=NPM_CONFIG_$(printf '%s' "${1//-/_}" | tr '[:lower:]' '[:upper:]')
	printf '%s' "${!lower:-${!upper:-$2}}"
}

npm_tool() {
	local bin=$1 pkg=$2 version=$3 label=$4 p globalconfig out
	: "${prefix:?npm_tool needs prefix set}"
	if p=$(command -v "$bin" 2>/dev/null) && works "$p"; then
		echo "$p"
		exit 0
	fi
	if works "$prefix/bin/$bin"; then
		echo "$prefix/bin/$bin"
		exit 0
	fi
	# One installer at a time per prefix: go test runs packages in parallel,
	# and two npm installs into one prefix (or a check of a tool another is
	# still installing, before its postinstall put the binary in place) fail.
	# The lock is held until the calling script exits, so its own finishing
	# steps are covered too; a second installer waits, then finds the tool.
	mkdir -p "$prefix"
	if command -v flock >/dev/null 2>&1; then
		exec {npm_tool_lock}>"$prefix/.install.lock"
		flock "$npm_tool_lock"
		if works "$prefix/bin/$bin"; then
			echo "$prefix/bin/$bin"
			exit 0
		fi
	fi
	if ! command -v npm >/dev/null 2>&1; then
		log "npm is not installed; install Node.js 20+ and npm (apt-get install nodejs npm), then rerun"
		exit 1
	fi
	# Asked before --prefix changes where npm would look.
	globalconfig=$(npm config get globalconfig 2>/dev/null) || globalconfig=''
	local opts=(
		--fetch-retries="$(npm_setting fetch-retries 1)"
		--fetch-retry-mintimeout="$(npm_setting fetch-retry-mintimeout 2000)"
		--fetch-retry-maxtimeout="$(npm_setting fetch-retry-maxtimeout 10000)"
	)
	[[ -z $globalconfig ]] || opts+=(--globalconfig="$globalconfig")
	# Is the registry reachable? One metadata request: a short timeout, and
	# the registry's own error when it fails.
	local rc=0 why
	out=$(timeout 60 npm view "${opts[@]}" --fetch-timeout="$(npm_setting fetch-timeout 20000)" \
		"$pkg@$version" version 2>&1 >/dev/null) || rc=$?
	if ((rc != 0)); then
		why=$(printf '%s\n' "$out" | grep -E '^npm (ERR|error)' | grep -vE 'A complete log|^npm (ERR|error) *$' | head -n 3 | tr -s ' \n' ' ')
		((rc != 124)) || why="no answer within 60 s"
		log "npm cannot reach its registry ($(npm config get "${opts[@]}" registry 2>/dev/null)); $label not installed: ${why:-npm view exited $rc}"
		exit 3
	fi
	log "installing $pkg@$version into $prefix"
	if ! timeout 540 npm install --global --prefix "$prefix" "${opts[@]}" --no-audit --no-fund --loglevel=error \
		"$pkg@$version" >&2; then
		log "npm install $pkg@$version failed (see above)"
		exit 1
	fi
}
