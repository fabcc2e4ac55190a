#!/usr/bin/env bash
# install-jj.sh: make a `jj` (Jujutsu) planq supports available (MIN_MAJOR.MIN_MINOR
# below, jj.MinVersion in planq's code). Safe to re-run.
#
# If a suitable jj is already there (first `jj` on PATH, or the wrapper in the
# bin dir below), it says so and does nothing. Otherwise, on Debian x86_64 as
# root, it takes the `jujutsu` package from Debian testing ("forky") and
# installs it into a private prefix together with forky's glibc, libgcc and
# mimalloc (scripts/debian-private.sh: the system's apt and dpkg state is never
# changed). A small `jj` wrapper starts the binary through forky's own dynamic
# loader.
#
# Usage: scripts/install-jj.sh [--check | --help]
#
# Environment:
#   PLANQ_JJ_PREFIX  private prefix        (default: $HOME/.local/share/planq/jj)
#   PLANQ_BIN_DIR    where the wrapper goes (default: /usr/local/bin if root and
#                    writable, else $HOME/.local/bin)
#   PLANQ_JJ_MIRROR  Debian mirror to use  (default: the one in the machine's
#                    own apt sources, falling back to http://deb.debian.org/debian)
set -euo pipefail

# The oldest jj planq supports: jj.MinVersion (jj/version.go), which a test
# holds this line to.
readonly MIN_MAJOR=0 MIN_MINOR=30
readonly SUITE=forky
readonly MARKER='# planq-install-jj wrapper'
readonly HINT="install jj >= ${MIN_MAJOR}.${MIN_MINOR}: https://jj-vcs.github.io/jj/latest/install-and-setup/ (cargo install --locked jj-cli, brew install jj, or your distro's jujutsu package), then re-run"

prog=${0##*/}

usage() {
  cat <<EOF
Usage: $prog [--check | --help]

Make a jj (Jujutsu) >= ${MIN_MAJOR}.${MIN_MINOR} available. Safe to re-run.

  (no option)  do nothing if a suitable jj is found; otherwise, on Debian x86_64
               as root, install jujutsu from Debian ${SUITE} into a private
               prefix (system apt/dpkg state is not changed) and put a 'jj'
               wrapper in the bin dir
  --check      exit 0 if a suitable jj is found, 1 otherwise; prints one line
  --help       show this help

Environment:
  PLANQ_JJ_PREFIX  private prefix (default: \$HOME/.local/share/planq/jj; use
                   e.g. /opt/planq/jj if users other than root need the wrapper)
  PLANQ_BIN_DIR    wrapper dir (default: /usr/local/bin if root and writable,
                   else \$HOME/.local/bin)
  PLANQ_JJ_MIRROR  Debian mirror (default: the one in the machine's apt sources)
EOF
}


# Print the version of jj binary $1 (e.g. 0.46.0) if it runs and is at least
# MIN_MAJOR.MIN_MINOR;
# fail otherwise.
suitable_version() {
  local bin=$1 out major minor
  [[ -x $bin && ! -d $bin ]] || return 1
  if command -v timeout >/dev/null 2>&1; then
    out=$(timeout 30 "$bin" --version 2>/dev/null) || return 1
  else
    out=$("$bin" --version 2>/dev/null) || return 1
  fi
  out=${out%%$'\n'*}
  [[ $out =~ ^jj[[:space:]]+([0-9]+)\.([0-9]+)([.0-9A-Za-z+~-]*) ]] || return 1
  major=$((10#${BASH_REMATCH[1]}))
  minor=$((10#${BASH_REMATCH[2]}))
  ((major > MIN_MAJOR || (major == MIN_MAJOR && minor >= MIN_MINOR))) || return 1
  printf '%s.%s%s\n' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}"
}

# Set found_bin/found_ver to the first suitable jj: the one on PATH, then the
# one in the wrapper dir.
find_suitable() {
  local c v
  found_bin='' found_ver=''
  hash -r
  for c in "$(command -v jj 2>/dev/null || true)" "$BIN_DIR/jj"; do
    [[ -n $c ]] || continue
    if v=$(suitable_version "$c"); then
      found_bin=$c found_ver=$v
      return 0
    fi
  done
  return 1
}

on_path() {
  case ":$PATH:" in *":$1:"*) return 0 ;; esac
  return 1
}

# shellcheck source=scripts/debian-private.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian-private.sh"

parse_mode "$@"

: "${HOME:?HOME is not set}"
PREFIX=${PLANQ_JJ_PREFIX:-$HOME/.local/share/planq/jj}
PREFIX=${PREFIX%/}
if [[ -n ${PLANQ_BIN_DIR:-} ]]; then
  BIN_DIR=${PLANQ_BIN_DIR%/}
elif [[ $(id -u) -eq 0 && -d /usr/local/bin && -w /usr/local/bin ]]; then
  BIN_DIR=/usr/local/bin
else
  BIN_DIR=$HOME/.local/bin
fi

# ---- 1. already there? ---------------------------------------------------
if find_suitable; then
  echo "jj $found_ver already installed at $found_bin"
  if [[ $mode == install && $found_bin == "$BIN_DIR/jj" ]] && ! on_path "$BIN_DIR"; then
    echo "note: $BIN_DIR is not on PATH; add: export PATH=\"$BIN_DIR:\$PATH\"" >&2
  fi
  exit 0
fi
if [[ $mode == check ]]; then
  echo "no jj >= ${MIN_MAJOR}.${MIN_MINOR} found on PATH or in $BIN_DIR" >&2
  exit 1
fi

# ---- 2. can we install here? ---------------------------------------------
deb_require_host "no jj >= ${MIN_MAJOR}.${MIN_MINOR} found"
case $PREFIX$BIN_DIR in
  *[\"\$\`\\]* | *$'\n'*) die "PLANQ_JJ_PREFIX/PLANQ_BIN_DIR must not contain quotes, \$, backticks, backslashes or newlines" ;;
esac
[[ $PREFIX == /* && $BIN_DIR == /* ]] || die "PLANQ_JJ_PREFIX and PLANQ_BIN_DIR must be absolute paths"
mkdir -p "$(dirname "$PREFIX")" "$BIN_DIR" || die "cannot create $(dirname "$PREFIX") or $BIN_DIR"

# One install at a time; a run that waited re-checks, as the other may have
# finished the job.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$PREFIX.lock"
  flock 9
  if find_suitable; then
    echo "jj $found_ver already installed at $found_bin"
    exit 0
  fi
fi

# ---- 3. unpack jujutsu and its libraries -----------------------------------
# Everything is built in a staging dir and only moved into place once the
# binary ran. For 0.46.0-2 the packages are jujutsu, libc6, libgcc-s1 and
# libmimalloc3 (the shared libraries) plus gcc-16-base and
# libc-gconv-modules-extra (data only, pulled in by libgcc-s1/libc6).
tmp_wrapper=''
deb_cleanup_extra() { [[ -z $tmp_wrapper ]] || rm -f -- "$tmp_wrapper"; }
deb_stage_begin "$PREFIX"
deb_mirror_override=${PLANQ_JJ_MIRROR:-}
echo "installing jujutsu from Debian $SUITE into $PREFIX ..."
deb_fetch "$SUITE" jujutsu
deb_check_runs usr/bin/jj --version
deb_manifest jujutsu scripts/install-jj.sh >"$stage/root/PLANQ-JJ-MANIFEST"
cand=$deb_version
ldso_rel=$DEB_LDSO libdir_rel=$DEB_LIBDIR

# ---- 4. move into place ------------------------------------------------------
deb_move_into_place "$PREFIX"

wrapper=$BIN_DIR/jj
if [[ -e $wrapper ]] && ! grep -qF "$MARKER" "$wrapper" 2>/dev/null; then
  mv -f -- "$wrapper" "$wrapper.planq-backup"
  echo "moved the existing $wrapper (not >= ${MIN_MAJOR}.${MIN_MINOR}) to $wrapper.planq-backup" >&2
fi
tmp_wrapper=$(mktemp "$BIN_DIR/.jj.XXXXXX")
# --library-path (not LD_LIBRARY_PATH) so that programs jj starts (git, ssh,
# editors, pagers) keep using the system's libraries.
cat >"$tmp_wrapper" <<EOF
#!/bin/sh
$MARKER: jujutsu $cand from Debian $SUITE, run with its own glibc
# from $PREFIX (see PLANQ-JJ-MANIFEST there). Re-create with scripts/install-jj.sh.
exec "$PREFIX/$ldso_rel" --library-path "$PREFIX/$libdir_rel" "$PREFIX/usr/bin/jj" "\$@"
EOF
chmod 0755 "$tmp_wrapper"
mv -f -- "$tmp_wrapper" "$wrapper"
tmp_wrapper=''

# ---- verify ----------------------------------------------------------------
ver=$(suitable_version "$wrapper") ||
  die "installed $wrapper but it does not report jj >= ${MIN_MAJOR}.${MIN_MINOR} ($("$wrapper" --version 2>&1 | head -n 1))"
echo "installed jj $ver at $wrapper (files in $PREFIX)"
if ! on_path "$BIN_DIR"; then
  echo "$BIN_DIR is not on PATH; add this line to your shell profile:"
  echo "  export PATH=\"$BIN_DIR:\$PATH\""
else
  hash -r
  first=$(command -v jj 2>/dev/null || true)
  if [[ -n $first && $first != "$wrapper" ]]; then
    echo "note: $first comes before $wrapper on PATH and is older; remove it or reorder PATH" >&2
  fi
fi
