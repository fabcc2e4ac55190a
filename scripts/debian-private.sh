# debian-private.sh: shared steps of scripts/install-jj.sh and install-git.sh,
# which take a package and its libraries from a newer Debian suite and unpack
# them into a private prefix, run through that suite's own dynamic loader.
#
# The system's apt and dpkg state is never changed: apt runs with a private
# config, lists and cache (read after the system's apt.conf.d, so proxy and CA
# settings there still apply), and packages are unpacked with `dpkg-deb -x`,
# not installed. Nothing is ever marked [trusted=yes]: apt checks the Release
# signature and the hash of every .deb it downloads.
#
# Source it after setting prog (the script's name, for messages) and HINT
# (one line: how to get the tool some other way). Then:
#   deb_require_host WHAT        # Linux x86_64 Debian, apt/dpkg tools, root
#   deb_stage_begin PREFIX       # staging dir next to PREFIX -> $stage
#   deb_fetch SUITE PKG [EXCLUDED...]   # PKG and its Depends into $stage/root
#   deb_check_runs BIN [ARGS...] # BIN (relative to the root) loads (and runs)
#   deb_manifest PKG SCRIPT > FILE
#   deb_move_into_place PREFIX   # $stage/root becomes PREFIX (a rename)
#   die MSG / die_elsewhere MSG  # one line on stderr (+ HINT), exit 1
#   parse_mode "$@"              # none, --check or --help -> $mode
# Environment: PLANQ_DEBIAN_MIRROR (or the caller's own variable, passed as
# $deb_mirror_override) picks the mirror; default: the machine's apt sources.
# shellcheck shell=bash

# die prints one message on stderr, naming the script, and exits 1.
die() {
  printf '%s: %s\n' "$prog" "$*" >&2
  exit 1
}

# die_elsewhere: this machine cannot take the package; the message and the
# way to get the tool some other way (HINT), on one line.
die_elsewhere() {
  die "$1; $HINT"
}

readonly DEB_DEFAULT_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# forky is merged-/usr: the loader and libraries are in usr/lib/x86_64-linux-gnu.
readonly DEB_LIBDIR=usr/lib/x86_64-linux-gnu
readonly DEB_LDSO=$DEB_LIBDIR/ld-linux-x86-64.so.2

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

# deb_require_host WHAT: die_elsewhere unless this machine can take packages
# from Debian here (Linux x86_64 Debian with apt and dpkg, as root). WHAT
# starts the message, e.g. "no jj >= ${MIN_MAJOR}.${MIN_MINOR} found".
deb_require_host() {
  local what=$1 os_id='' tool
  [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] ||
    die_elsewhere "$what and automatic install only works on Debian x86_64 (this is $(uname -s) $(uname -m))"
  # shellcheck source=/dev/null
  [[ -r /etc/os-release ]] && os_id=$(. /etc/os-release && printf '%s' "${ID:-}")
  [[ $os_id == debian ]] ||
    die_elsewhere "$what and automatic install only works on Debian (this is ${os_id:-unknown})"
  for tool in apt-get apt-cache dpkg dpkg-deb; do
    command -v "$tool" >/dev/null 2>&1 ||
      die_elsewhere "$what and $tool is missing, so nothing can be unpacked from Debian"
  done
  [[ $(dpkg --print-architecture) == amd64 ]] ||
    die_elsewhere "$what and automatic install only works on amd64 (dpkg says $(dpkg --print-architecture))"
  [[ $(id -u) -eq 0 ]] ||
    die_elsewhere "$what and automatic install needs root (it runs apt-get)"
}

# deb_stage_begin PREFIX: make $stage, a staging dir next to PREFIX (same
# filesystem, so the final move is a rename), removed on exit. An interrupted
# run leaves at most a stale staging dir, never a half-filled PREFIX.
deb_stage_begin() {
  local prefix=$1
  deb_prefix_parent=$(dirname "$prefix")
  mkdir -p "$deb_prefix_parent" || die "cannot create $deb_prefix_parent"
  stage=$(mktemp -d "$deb_prefix_parent/.${prefix##*/}.staging.XXXXXX")
  deb_old=''
  trap deb_cleanup EXIT
  trap 'exit 130' INT TERM HUP
}

# deb_cleanup removes the staging dir and, when interrupted between the two
# renames of deb_move_into_place, puts the previous install back. Callers
# that need more cleanup define deb_cleanup_extra.
deb_cleanup() {
  rm -rf -- "$stage"
  if [[ -n ${deb_old:-} ]]; then
    [[ -e $deb_target || ! -e $deb_old/prev ]] || mv -T -- "$deb_old/prev" "$deb_target"
    rm -rf -- "$deb_old"
  fi
  if declare -F deb_cleanup_extra >/dev/null; then deb_cleanup_extra; fi
}

# Last error/warning line apt printed, for the one-line failure message.
deb_apt_reason() {
  { grep -E '^(E|W): Failed to fetch' "$deb_log" || grep -E '^(E|W):' "$deb_log" | grep -v unsandboxed; } 2>/dev/null |
    tail -n 1 | tr -s ' \t' ' ' || true
}

# deb_deps ROOT EXCLUDED...: read `apt-cache depends --recurse --important
# ROOT` on stdin and print ROOT and every package it needs, not following an
# excluded package (so what only it needs is left out too). Of alternatives
# (A | B) the first is taken, of a virtual package its first provider.
deb_deps() {
  local root=$1
  shift
  awk -v root="$root" -v excl="$*" '
    function add(p) { if (p != "" && !(p in seen) && !(p in ex)) { seen[p] = 1; queue[++qn] = p } }
    BEGIN { n = split(excl, e, " "); for (i = 1; i <= n; i++) ex[e[i]] = 1 }
    /^[^ ]/ { cur = $1; inalt = 0; virt = 0; next }
    /^ [ |][A-Za-z-]+: / {
      alt = substr($0, 2, 1) == "|"     # this one or the next
      if (!inalt) {
        if ($2 ~ /^</) virt = 1; else { virt = 0; deps[cur] = deps[cur] " " $2 }
      }
      inalt = alt
      next
    }
    /^    [^ ]/ { if (virt) { deps[cur] = deps[cur] " " $1; virt = 0 }; next }
    END {
      add(root)
      for (q = 1; q <= qn; q++) {
        m = split(deps[queue[q]], d, " ")
        for (j = 1; j <= m; j++) add(d[j])
      }
      for (q = 1; q <= qn; q++) print queue[q]
    }'
}

# deb_fetch SUITE PKG [EXCLUDED...]: download PKG from Debian SUITE with
# everything it Depends/Pre-Depends on (recursively, minus EXCLUDED and what
# only they need) and unpack it all into $stage/root. Sets deb_version (PKG's
# version), deb_suite, deb_mirror and deb_packages.
deb_fetch() {
  local suite=$1 pkg=$2
  shift 2
  deb_suite=$suite
  local mirror_line='' entry_keyring='' k keyring
  [[ -n ${deb_mirror_override:-} ]] || mirror_line=$(detect_mirror || true)
  deb_mirror=${deb_mirror_override:-${mirror_line%%$'\t'*}}
  [[ $mirror_line == *$'\t'* ]] && entry_keyring=${mirror_line#*$'\t'}
  if [[ -z $deb_mirror ]]; then
    deb_mirror=http://deb.debian.org/debian
    echo "no Debian mirror found in /etc/apt sources; using $deb_mirror" >&2
  fi
  deb_mirror=${deb_mirror%/}
  # forky's InRelease is signed with the Debian archive keys for bookworm and
  # trixie (checked 2026: "Debian Archive Automatic Signing Key (12/bookworm)"
  # and "(13/trixie)"), which bookworm's debian-archive-keyring already ships,
  # so the standard keyring verifies it. If that fails for want of a key and
  # the machine's own entry names another keyring file (Signed-By, e.g. a
  # mirror that re-signs), that one is tried next.
  local keyrings=()
  for k in "$DEB_DEFAULT_KEYRING" "$entry_keyring"; do
    [[ -n $k && -r $k && " ${keyrings[*]} " != *" $k "* ]] && keyrings+=("$k")
  done
  ((${#keyrings[@]})) ||
    die_elsewhere "$DEB_DEFAULT_KEYRING is missing (apt-get install debian-archive-keyring)"

  local apt_dir=$stage/apt
  mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$stage/debs" "$stage/root"
  : >"$apt_dir/status"
  # Private config, read after the system's apt.conf.d (so proxies and the
  # like still apply). The status file is an empty private one, so candidates
  # come purely from SUITE and installed packages do not matter. The #clear
  # lines drop hooks from apt.conf.d (e.g. docker-clean deletes
  # /var/cache/apt/*.bin, appstream/packagekit refresh their caches) that must
  # not run for a private update. The sandbox user is root because _apt cannot
  # enter a private dir under root's home; apt would fall back to that anyway,
  # with a warning.
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
  local apt_opts=(-c "$apt_dir/apt.conf")
  deb_log=$stage/apt.log

  echo "fetching $pkg from Debian $suite ($deb_mirror) ..."
  for keyring in "${keyrings[@]}"; do
    printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$deb_mirror" "$suite" >"$apt_dir/sources.list"
    apt-get "${apt_opts[@]}" -q update >"$deb_log" 2>&1 && break
    if ! grep -qE 'NO_PUBKEY|EXPKEYSIG|KEYEXPIRED' "$deb_log"; then
      die_elsewhere "cannot fetch Debian $suite from $deb_mirror [$(deb_apt_reason)]"
    fi
    [[ $keyring != "${keyrings[-1]}" ]] ||
      die_elsewhere "Debian $suite at $deb_mirror is signed by a key not in ${keyrings[*]} (upgrade debian-archive-keyring) [$(deb_apt_reason)]"
  done
  deb_version=$(apt-cache "${apt_opts[@]}" policy "$pkg" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }')
  if [[ -z $deb_version || $deb_version == '(none)' ]]; then
    die_elsewhere "cannot get the $pkg package index of Debian $suite from $deb_mirror [$(deb_apt_reason)]"
  fi
  mapfile -t deb_packages < <(apt-cache "${apt_opts[@]}" depends --recurse --important "$pkg" 2>/dev/null |
    deb_deps "$pkg" "$@" | sort)
  [[ " ${deb_packages[*]} " == *" $pkg "* && " ${deb_packages[*]} " == *" libc6 "* ]] ||
    die "cannot resolve the dependencies of $pkg in Debian $suite (got: ${deb_packages[*]:-nothing})"
  if ! (cd "$stage/debs" && apt-get "${apt_opts[@]}" -q download "${deb_packages[@]}") >>"$deb_log" 2>&1; then
    die_elsewhere "cannot download ${deb_packages[*]} from Debian $suite at $deb_mirror [$(deb_apt_reason)]"
  fi
  local deb
  for deb in "$stage/debs"/*.deb; do
    dpkg-deb -x "$deb" "$stage/root" || die "cannot unpack $deb"
  done
  [[ -x $stage/root/$DEB_LDSO ]] || die "the unpacked packages lack $DEB_LDSO"
}

# deb_check_runs BIN [ARGS...]: BIN (a path under $stage/root) finds every
# library it needs in $stage/root (the loader would otherwise silently fall
# back to the system's older ones) and, given ARGS, runs with them.
deb_check_runs() {
  local bin=$stage/root/$1 libs outside
  shift
  local ld=$stage/root/$DEB_LDSO lib=$stage/root/$DEB_LIBDIR
  [[ -x $bin ]] || die "the unpacked packages lack ${bin#"$stage/root/"}"
  libs=$("$ld" --library-path "$lib" --list "$bin" 2>&1) ||
    die "${bin##*/} from Debian does not load: $(printf '%s' "$libs" | tr '\n' ' ')"
  outside=$(printf '%s\n' "$libs" | awk -v p="$stage/root/" '/=>/ && $3 != "" && index($3, p) != 1 { print $1 "=>" $3 }' | tr '\n' ' ')
  [[ -z $outside ]] || die "${bin##*/} needs libraries not in the downloaded packages: $outside"
  (($#)) || return 0
  "$ld" --library-path "$lib" "$bin" "$@" >/dev/null 2>&1 ||
    die "${bin##*/} from Debian does not run: $("$ld" --library-path "$lib" "$bin" "$@" 2>&1 | head -n 1)"
}

# deb_manifest PKG SCRIPT: what was unpacked, for a file in the prefix.
deb_manifest() {
  local deb
  echo "$1 $deb_version from Debian $deb_suite ($deb_mirror), unpacked by $2"
  echo "installed: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  for deb in "$stage/debs"/*.deb; do
    # shellcheck disable=SC2016 # dpkg-deb expands ${Package}, not the shell
    dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb"
  done
}

# deb_move_into_place PREFIX: replace PREFIX by $stage/root with two renames;
# an interruption in between puts the previous install back (deb_cleanup).
deb_move_into_place() {
  deb_target=$1
  if [[ -e $deb_target || -L $deb_target ]]; then
    deb_old=$(mktemp -d "$deb_prefix_parent/.${deb_target##*/}.old.XXXXXX")
    mv -T -- "$deb_target" "$deb_old/prev"
  fi
  mv -T -- "$stage/root" "$deb_target"
}

# parse_mode sets mode from the script's arguments: none (install), --check,
# or --help (prints the caller's usage and exits). Anything else is an error.
parse_mode() {
  mode=install
  case "${1:-}" in
    '') ;;
    --check) mode=check ;;
    -h | --help) usage; exit 0 ;;
    *) printf '%s: unknown argument: %s\n' "$prog" "$1" >&2; usage >&2; exit 2 ;;
  esac
  [[ $# -le 1 ]] || { usage >&2; exit 2; }
}
