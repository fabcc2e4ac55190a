#!/usr/bin/env bash
# install-jj.sh: make a `jj` (Jujutsu) >= 0.30 available. Safe to re-run.
#
# If a suitable jj is already there (first `jj` on PATH, or the wrapper in the
# bin dir below), it says so and does nothing. Otherwise, on Debian x86_64 as
# root, it takes the `jujutsu` package from Debian testing ("forky") and
# installs it into a private prefix together with forky's glibc, libgcc and
# mimalloc. The system's apt and dpkg state is never changed: apt runs with a
# private config, lists and cache, and packages are unpacked with `dpkg-deb -x`,
# not installed. A small `jj` wrapper starts the binary through forky's own
# dynamic loader.
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

readonly MIN_MAJOR=0 MIN_MINOR=30
readonly SUITE=forky
readonly DEFAULT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
readonly MARKER='# planq-install-jj wrapper'
readonly HINT='install jj >= 0.30: https://jj-vcs.github.io/jj/latest/install-and-setup/ (cargo install --locked jj-cli, brew install jj, or your distro'\''s jujutsu package), then re-run'

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

# Print one message on stderr and exit 1.
die() {
  printf '%s: %s\n' "$prog" "$*" >&2
  exit 1
}

# Could not install here: one line naming how to get jj some other way.
die_elsewhere() {
  die "$1; $HINT"
}

# Print the version of jj binary $1 (e.g. 0.46.0) if it runs and is >= 0.30;
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

# Print "URI<TAB>Signed-By" of the machine's main Debian archive, read from the
# apt sources (one-line *.list and deb822 *.sources). Security and third-party
# repositories are skipped by looking at the suite name.
detect_mirror() {
  local codename='' f
  if [[ -r /etc/os-release ]]; then
    # shellcheck source=/dev/null
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
  fi
  local suites="(${codename:+$codename|}oldstable|stable|testing|unstable|sid|bullseye|bookworm|trixie|forky|duke)(-updates|-backports)?"
  {
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -r $f ]] || continue
      # deb [opt=val ...] URI SUITE COMPONENT...
      sed -e 's/#.*//' "$f" | awk -v re="^$suites\$" '
        $1 != "deb" { next }
        {
          line = $0; key = ""
          sub(/^[[:space:]]*deb[[:space:]]+/, "", line)
          if (line ~ /^\[/) {
            opts = line; sub(/^\[/, "", opts); sub(/\].*$/, "", opts)
            sub(/^[^]]*\][[:space:]]*/, "", line)
            n = split(opts, o, /[[:space:]]+/)
            for (i = 1; i <= n; i++) if (o[i] ~ /^signed-by=\//) key = substr(o[i], 11)
          }
          split(line, w, /[[:space:]]+/)
          if (w[1] ~ /^(tor\+)?https?:\/\// && w[2] ~ re) print w[1] "\t" key
        }'
    done
    for f in /etc/apt/sources.list.d/*.sources; do
      [[ -r $f ]] || continue
      awk -v re="^$suites\$" '
        function flush(   i, j, nu, ns, u, s) {
          if (types ~ /(^|[[:space:]])deb([[:space:]]|$)/ && enabled !~ /^[[:space:]]*no/) {
            nu = split(uris, u, /[[:space:]]+/); ns = split(suites, s, /[[:space:]]+/)
            for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
              if (u[i] ~ /^(tor\+)?https?:\/\// && s[j] ~ re) { print u[i] "\t" key; return }
          }
        }
        /^[[:space:]]*#/ { next }
        /^[[:space:]]*$/ { flush(); types = uris = suites = key = enabled = ""; next }
        {
          line = $0; field = tolower(line); sub(/:.*/, "", field)
          val = line; sub(/^[^:]*:[[:space:]]*/, "", val); sub(/[[:space:]]+$/, "", val)
          if (field == "types") types = val
          else if (field == "uris") uris = val
          else if (field == "suites") suites = val
          else if (field == "enabled") enabled = tolower(val)
          else if (field == "signed-by" && val ~ /^\//) key = val
        }
        END { flush() }' "$f"
    done
  } | head -n 1
}

mode=install
case "${1:-}" in
  '') ;;
  --check) mode=check ;;
  -h | --help) usage; exit 0 ;;
  *) printf '%s: unknown argument: %s\n' "$prog" "$1" >&2; usage >&2; exit 2 ;;
esac
[[ $# -le 1 ]] || { usage >&2; exit 2; }

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

# ---- 3. can we install here? ---------------------------------------------
[[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] ||
  die_elsewhere "no jj >= 0.30 found and automatic install only works on Debian x86_64 (this is $(uname -s) $(uname -m))"
os_id=''
# shellcheck source=/dev/null
[[ -r /etc/os-release ]] && os_id=$(. /etc/os-release && printf '%s' "${ID:-}")
[[ $os_id == debian ]] ||
  die_elsewhere "no jj >= 0.30 found and automatic install only works on Debian (this is ${os_id:-unknown})"
for tool in apt-get apt-cache dpkg dpkg-deb; do
  command -v "$tool" >/dev/null 2>&1 ||
    die_elsewhere "no jj >= 0.30 found and $tool is missing, so it cannot be installed from Debian $SUITE"
done
[[ $(dpkg --print-architecture) == amd64 ]] ||
  die_elsewhere "no jj >= 0.30 found and automatic install only works on amd64 (dpkg says $(dpkg --print-architecture))"
[[ $(id -u) -eq 0 ]] ||
  die_elsewhere "no jj >= 0.30 found and automatic install needs root (it runs apt-get)"
case $PREFIX$BIN_DIR in
  *[\"\$\`\\]* | *$'\n'*) die "PLANQ_JJ_PREFIX/PLANQ_BIN_DIR must not contain quotes, \$, backticks, backslashes or newlines" ;;
esac
[[ $PREFIX == /* && $BIN_DIR == /* ]] || die "PLANQ_JJ_PREFIX and PLANQ_BIN_DIR must be absolute paths"

prefix_parent=$(dirname "$PREFIX")
mkdir -p "$prefix_parent" "$BIN_DIR" || die "cannot create $prefix_parent or $BIN_DIR"

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

# Everything is built in a staging dir next to PREFIX (same filesystem, so the
# final move is a rename) and only moved into place once the binary ran. An
# interrupted run leaves at most a stale staging dir, never a half-filled
# PREFIX or a wrapper pointing at one.
stage=$(mktemp -d "$prefix_parent/.${PREFIX##*/}.staging.XXXXXX")
old='' tmp_wrapper=''
cleanup() {
  rm -rf -- "$stage"
  [[ -z $tmp_wrapper ]] || rm -f -- "$tmp_wrapper"
  if [[ -n $old ]]; then
    # interrupted between the two renames: put the previous install back
    [[ -e $PREFIX || ! -e $old/prev ]] || mv -T -- "$old/prev" "$PREFIX"
    rm -rf -- "$old"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# ---- 2. private apt ------------------------------------------------------
mirror_line=''
[[ -n ${PLANQ_JJ_MIRROR:-} ]] || mirror_line=$(detect_mirror || true)
mirror=${PLANQ_JJ_MIRROR:-${mirror_line%%$'\t'*}}
entry_keyring=''
[[ $mirror_line == *$'\t'* ]] && entry_keyring=${mirror_line#*$'\t'}
if [[ -z $mirror ]]; then
  mirror=http://deb.debian.org/debian
  echo "no Debian mirror found in /etc/apt sources; using $mirror" >&2
fi
mirror=${mirror%/}
# forky's InRelease is signed with the Debian archive keys for bookworm and
# trixie (checked 2026: "Debian Archive Automatic Signing Key (12/bookworm)"
# and "(13/trixie)"), which bookworm's debian-archive-keyring already ships, so
# the standard keyring verifies it. If that fails for want of a key and the
# machine's own entry names another keyring file (Signed-By, e.g. a mirror that
# re-signs), that one is tried next. Nothing is ever marked [trusted=yes]: apt
# checks the Release signature and the hash of every .deb it downloads.
keyrings=()
for k in "$DEFAULT_KEYRING" "$entry_keyring"; do
  [[ -n $k && -r $k && " ${keyrings[*]} " != *" $k "* ]] && keyrings+=("$k")
done
((${#keyrings[@]})) ||
  die_elsewhere "no jj >= 0.30 found and $DEFAULT_KEYRING is missing (apt-get install debian-archive-keyring)"

apt_dir=$stage/apt
mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$stage/debs" "$stage/root"
: >"$apt_dir/status"
# Private config, read after the system's apt.conf.d (so proxies and the like
# still apply). The status file is an empty private one, so candidates come
# purely from forky and installed packages do not matter. The #clear lines
# drop hooks from apt.conf.d (e.g. docker-clean deletes /var/cache/apt/*.bin,
# appstream/packagekit refresh their caches) that must not run for a private
# update. The sandbox user is root because _apt cannot enter a private dir
# under root's home; apt would fall back to that anyway, with a warning.
cat >"$apt_dir/apt.conf" <<EOF
Dir::State "$apt_dir/state";
Dir::State::Lists "$apt_dir/state/lists";
Dir::State::status "$apt_dir/status";
Dir::Cache "$apt_dir/cache";
Dir::Cache::archives "$apt_dir/cache/archives";
Dir::Cache::pkgcache "$apt_dir/cache/pkgcache.bin";
Dir::Cache::srcpkgcache "$apt_dir/cache/srcpkgcache.bin";
Dir::Etc::SourceList "$apt_dir/sources.list";
Dir::Etc::SourceParts "/dev/null";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "/dev/null";
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
#clear APT::Update::Pre-Invoke;
#clear APT::Update::Post-Invoke;
#clear APT::Update::Post-Invoke-Success;
#clear DPkg::Pre-Invoke;
#clear DPkg::Post-Invoke;
#clear DPkg::Pre-Install-Pkgs;
EOF
apt_opts=(-c "$apt_dir/apt.conf")
log=$stage/apt.log

# Last error/warning line apt printed, for the one-line failure message.
apt_reason() {
  { grep -E '^(E|W): Failed to fetch' "$log" || grep -E '^(E|W):' "$log" | grep -v unsandboxed; } 2>/dev/null |
    tail -n 1 | tr -s ' \t' ' ' || true
}

echo "installing jujutsu from Debian $SUITE ($mirror) into $PREFIX ..."
for keyring in "${keyrings[@]}"; do
  printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$mirror" "$SUITE" >"$apt_dir/sources.list"
  apt-get "${apt_opts[@]}" -q update >"$log" 2>&1 && break
  if ! grep -qE 'NO_PUBKEY|EXPKEYSIG|KEYEXPIRED' "$log"; then
    die_elsewhere "cannot fetch Debian $SUITE from $mirror [$(apt_reason)]"
  fi
  [[ $keyring != "${keyrings[-1]}" ]] ||
    die_elsewhere "Debian $SUITE at $mirror is signed by a key not in ${keyrings[*]} (upgrade debian-archive-keyring) [$(apt_reason)]"
done
cand=$(apt-cache "${apt_opts[@]}" policy jujutsu 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
if [[ -z $cand || $cand == '(none)' ]]; then
  die_elsewhere "cannot get the jujutsu package index of Debian $SUITE from $mirror [$(apt_reason)]"
fi

# jujutsu plus everything it Depends/Pre-Depends on, recursively. For 0.46.0-2
# that is libc6, libgcc-s1 and libmimalloc3 (the shared libraries) plus
# gcc-16-base and libc-gconv-modules-extra (data only, pulled in by
# libgcc-s1/libc6).
mapfile -t pkgs < <(apt-cache "${apt_opts[@]}" depends --recurse --important jujutsu 2>/dev/null |
  awk '/^[^[:space:]<]/ { print $1 }' | sort -u)
[[ " ${pkgs[*]} " == *" jujutsu "* && " ${pkgs[*]} " == *" libc6 "* ]] ||
  die "cannot resolve the dependencies of jujutsu in Debian $SUITE (got: ${pkgs[*]:-nothing})"
if ! (cd "$stage/debs" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}") >>"$log" 2>&1; then
  die_elsewhere "cannot download ${pkgs[*]} from Debian $SUITE at $mirror [$(apt_reason)]"
fi
for deb in "$stage/debs"/*.deb; do
  dpkg-deb -x "$deb" "$stage/root" || die "cannot unpack $deb"
done

# forky is merged-/usr: the loader and libraries are in usr/lib/x86_64-linux-gnu.
libdir_rel=usr/lib/x86_64-linux-gnu
ldso_rel=$libdir_rel/ld-linux-x86-64.so.2
[[ -x $stage/root/$ldso_rel && -x $stage/root/usr/bin/jj ]] ||
  die "unpacked packages lack $ldso_rel or usr/bin/jj"

# Check the binary runs from the staging dir and finds every library there
# (the loader would otherwise silently fall back to the system's older ones).
s_ld=$stage/root/$ldso_rel s_lib=$stage/root/$libdir_rel
libs=$("$s_ld" --library-path "$s_lib" --list "$stage/root/usr/bin/jj" 2>&1) ||
  die "forky's jj does not load: $(printf '%s' "$libs" | tr '\n' ' ')"
outside=$(printf '%s\n' "$libs" | awk -v p="$stage/root/" '/=>/ && $3 != "" && index($3, p) != 1 { print $1 "=>" $3 }' | tr '\n' ' ')
[[ -z $outside ]] || die "jj needs libraries not in the downloaded packages: $outside"
"$s_ld" --library-path "$s_lib" "$stage/root/usr/bin/jj" --version >/dev/null 2>&1 ||
  die "forky's jj does not run: $("$s_ld" --library-path "$s_lib" "$stage/root/usr/bin/jj" --version 2>&1 | head -n 1)"

{
  echo "jujutsu $cand from Debian $SUITE ($mirror), unpacked by scripts/install-jj.sh"
  echo "installed: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for deb in "$stage/debs"/*.deb; do
    # shellcheck disable=SC2016 # dpkg-deb expands ${Package}, not the shell
    dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb"
  done
} >"$stage/root/PLANQ-JJ-MANIFEST"

# ---- move into place -------------------------------------------------------
if [[ -e $PREFIX || -L $PREFIX ]]; then
  old=$(mktemp -d "$prefix_parent/.${PREFIX##*/}.old.XXXXXX")
  mv -T -- "$PREFIX" "$old/prev"
fi
mv -T -- "$stage/root" "$PREFIX"

wrapper=$BIN_DIR/jj
if [[ -e $wrapper ]] && ! grep -qF "$MARKER" "$wrapper" 2>/dev/null; then
  mv -f -- "$wrapper" "$wrapper.planq-backup"
  echo "moved the existing $wrapper (not >= 0.30) to $wrapper.planq-backup" >&2
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
  die "installed $wrapper but it does not report jj >= 0.30 ($("$wrapper" --version 2>&1 | head -n 1))"
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
