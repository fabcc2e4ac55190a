#!/usr/bin/env bash
# install-git.sh: make jj run a git it can fetch with (MIN_MAJOR.MIN_MINOR
# below, jj.MinGitVersion in planq's code). Safe to re-run.
#
# jj 0.46 fetches and pushes by running `git` (`git fetch --porcelain` needs
# git 2.42); Debian 12 and Apple's git are 2.39. The system git is never
# replaced: jj is pointed at a suitable git with its own setting,
# git.executable-path, in the user's jj config, so every jj the user runs
# (their shell, planq's MCP server, any jj install) fetches with it.
#
#   1. When the git jj runs (its git.executable-path, else `git` on PATH) is
#      new enough, it says so and does nothing.
#   2. Else, when the git on PATH or a git installed here before is new
#      enough, it points jj at that one.
#   3. Else, on Debian x86_64 as root, it takes the `git` package from Debian
#      testing ("forky") with its libraries (not perl: only git's perl
#      commands need it) into a private prefix (scripts/debian-private.sh: the
#      system's apt and dpkg state is never changed), with a `git` wrapper that
#      starts it through forky's own loader, and points jj at that wrapper.
#
# Usage: scripts/install-git.sh [--check | --help]
#
# Environment:
#   PLANQ_GIT_PREFIX  private prefix (default: $HOME/.local/share/planq/git)
#   PLANQ_GIT_MIRROR  Debian mirror  (default: the one in the machine's apt sources)
#   JJ                the jj to configure (default: jj on PATH)
set -euo pipefail

# The oldest git jj fetches with: jj.MinGitVersion (jj/git.go), which a test
# holds this line to.
readonly MIN_MAJOR=2 MIN_MINOR=42
readonly SUITE=forky
readonly MARKER='# planq-install-git wrapper'
readonly HINT="install git >= ${MIN_MAJOR}.${MIN_MINOR} (macOS: brew install git; Windows: Git for Windows >= ${MIN_MAJOR}.${MIN_MINOR} from https://git-scm.com; Debian/Ubuntu: a newer git package) and point jj at it: jj config set --user git.executable-path /path/to/git"

prog=${0##*/}

usage() {
  cat <<EOF
Usage: $prog [--check | --help]

Make jj run a git >= ${MIN_MAJOR}.${MIN_MINOR} (jj 0.46 needs it to fetch). Safe to re-run.

  (no option)  do nothing if jj's git is recent enough; else point jj
               (git.executable-path in the user's jj config) at a suitable
               git, installing one from Debian ${SUITE} into a private prefix
               on Debian x86_64 as root (the system git is not replaced)
  --check      exit 0 if jj's git is recent enough, 1 otherwise; prints one line
  --help       show this help

Environment:
  PLANQ_GIT_PREFIX  private prefix (default: \$HOME/.local/share/planq/git)
  PLANQ_GIT_MIRROR  Debian mirror (default: the one in the machine's apt sources)
  JJ                the jj to configure (default: jj on PATH)
EOF
}


# shellcheck source=scripts/debian-private.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian-private.sh"

# Run a command with a time limit where timeout(1) exists (not on macOS).
limited() {
  if command -v timeout >/dev/null 2>&1; then timeout 30 "$@"; else "$@"; fi
}

# Print the version of git $1 (e.g. 2.53.0) if it runs and is at least
# MIN_MAJOR.MIN_MINOR.
suitable_version() {
  local bin=$1 out major minor
  [[ -n $bin && -x $bin && ! -d $bin ]] || return 1
  out=$(limited "$bin" --version 2>/dev/null) || return 1
  [[ $out =~ ^git\ version\ ([0-9]+)\.([0-9]+)([.0-9A-Za-z+~-]*) ]] || return 1
  major=$((10#${BASH_REMATCH[1]}))
  minor=$((10#${BASH_REMATCH[2]}))
  ((major > MIN_MAJOR || (major == MIN_MAJOR && minor >= MIN_MINOR))) || return 1
  printf '%s.%s%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
}

# The git jj runs: its git.executable-path resolved on PATH ("" without jj).
jj_git() {
  local p
  [[ -n $JJ_BIN ]] || return 0
  p=$("$JJ_BIN" config get git.executable-path 2>/dev/null) || p=git
  [[ $p == */* ]] || p=$(command -v "$p" 2>/dev/null || true)
  printf '%s\n' "$p"
}

# Point jj at git $1 in the user's jj config.
configure_jj() {
  local git=$1 cfg
  if [[ -z $JJ_BIN ]]; then
    echo "jj is not installed yet; once it is, run: jj config set --user git.executable-path '$git'"
    return 0
  fi
  "$JJ_BIN" config set --user git.executable-path "$git" ||
    die "cannot set git.executable-path in jj's user config; run: jj config set --user git.executable-path '$git'"
  cfg=$("$JJ_BIN" config path --user 2>/dev/null || echo "jj's user config")
  echo "jj now runs git $(suitable_version "$git") at $git (git.executable-path in $cfg)"
}

parse_mode "$@"

: "${HOME:?HOME is not set}"
PREFIX=${PLANQ_GIT_PREFIX:-$HOME/.local/share/planq/git}
PREFIX=${PREFIX%/}
JJ_BIN=${JJ:-$(command -v jj 2>/dev/null || true)}
WRAPPER=$PREFIX/bin/git

# ---- 1. does jj's git do? --------------------------------------------------
current=$(jj_git)
if ver=$(suitable_version "$current"); then
  echo "jj runs git $ver at $current"
  exit 0
fi
if [[ $mode == check ]]; then
  if [[ -z $JJ_BIN ]]; then
    echo "jj is not installed, so it runs no git" >&2
  else
    echo "jj runs ${current:-a git that is not installed} ($(limited "${current:-git}" --version 2>/dev/null || echo 'no version')); it needs git >= ${MIN_MAJOR}.${MIN_MINOR}" >&2
  fi
  exit 1
fi

# ---- 2. a suitable git already here? ---------------------------------------
for c in "$(command -v git 2>/dev/null || true)" "$WRAPPER"; do
  if [[ -n $c ]] && suitable_version "$c" >/dev/null; then
    configure_jj "$c"
    exit 0
  fi
done

# ---- 3. install from Debian ------------------------------------------------
deb_require_host "no git >= ${MIN_MAJOR}.${MIN_MINOR} found"
case $PREFIX in
  *[\"\$\`\\\']* | *$'\n'*) die "PLANQ_GIT_PREFIX must not contain quotes, \$, backticks, backslashes or newlines" ;;
esac
[[ $PREFIX == /* ]] || die "PLANQ_GIT_PREFIX must be an absolute path"
mkdir -p "$(dirname "$PREFIX")" || die "cannot create $(dirname "$PREFIX")"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$PREFIX.lock"
  flock 9
  # A run that waited re-checks: the other may have finished the job.
  if suitable_version "$WRAPPER" >/dev/null; then
    configure_jj "$WRAPPER"
    exit 0
  fi
fi

deb_stage_begin "$PREFIX"
deb_mirror_override=${PLANQ_GIT_MIRROR:-}
echo "installing git from Debian $SUITE into $PREFIX ..."
# perl, liberror-perl and git-man serve only git's perl commands (send-email,
# svn, ...) and its manual pages; jj needs none of them.
deb_fetch "$SUITE" git perl liberror-perl git-man
deb_check_runs usr/bin/git --version
deb_check_runs usr/lib/git-core/git-remote-http
deb_manifest git scripts/install-git.sh >"$stage/root/PLANQ-GIT-MANIFEST"

# Wrappers. git runs its helpers (git-upload-pack for a local remote,
# git-remote-https, git index-pack, ...) as programs found in its exec path,
# and each must start through forky's loader too: GIT_EXEC_PATH names a dir
# holding a wrapper for every binary of usr/lib/git-core and links to its
# shell scripts. --library-path (not LD_LIBRARY_PATH) so that programs git
# starts (ssh, editors, pagers, hooks) keep using the system's libraries.
wrap() { # wrap FILE TARGET: FILE runs TARGET (a path under the final PREFIX)
  cat >"$1" <<EOF
#!/bin/sh
$MARKER: git $deb_version from Debian $SUITE, run with its own glibc from
# $PREFIX (see PLANQ-GIT-MANIFEST there). Re-create with scripts/install-git.sh.
GIT_EXEC_PATH='$PREFIX/libexec'; export GIT_EXEC_PATH
exec '$PREFIX/$DEB_LDSO' --library-path '$PREFIX/$DEB_LIBDIR' '$2' "\$@"
EOF
  chmod 0755 "$1"
}
mkdir -p "$stage/root/bin" "$stage/root/libexec"
wrap "$stage/root/bin/git" "$PREFIX/usr/bin/git"
for f in "$stage/root/usr/lib/git-core"/*; do
  name=${f##*/}
  if [[ -f $f && $(head -c 4 "$f") == $'\x7f'ELF ]]; then
    wrap "$stage/root/libexec/$name" "$PREFIX/usr/lib/git-core/$name"
  else
    ln -s "$PREFIX/usr/lib/git-core/$name" "$stage/root/libexec/$name"
  fi
done

deb_move_into_place "$PREFIX"

# ---- verify: version, and a fetch through the helpers ----------------------
ver=$(suitable_version "$WRAPPER") ||
  die "installed $WRAPPER but it does not report git >= ${MIN_MAJOR}.${MIN_MINOR} ($("$WRAPPER" --version 2>&1 | head -n 1))"
check=$(mktemp -d)
deb_cleanup_extra() { rm -rf -- "$check"; }
if ! out=$({ "$WRAPPER" init -q "$check/src" &&
  "$WRAPPER" -C "$check/src" -c user.name=planq -c user.email=planq@localhost commit -q --allow-empty -m check &&
  "$WRAPPER" init -q "$check/dst" &&
  "$WRAPPER" -C "$check/dst" fetch -q --porcelain "$check/src" 'refs/heads/*:refs/remotes/src/*'; } 2>&1); then
  rm -rf -- "$PREFIX"
  die "git from Debian $SUITE cannot fetch from a local repo, so it was removed again: $(printf '%s' "$out" | tail -n 1)"
fi
echo "installed git $ver at $WRAPPER (files in $PREFIX; the system git is unchanged)"
configure_jj "$WRAPPER"
