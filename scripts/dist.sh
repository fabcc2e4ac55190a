#!/usr/bin/env bash
# dist.sh: release archives of planq for every platform it builds for, and a
# SHA-256 checksum file beside them.
#
# Usage: scripts/dist.sh [OUTDIR]          (default: dist)
#
# Writes OUTDIR/planq_<version>_<os>_<arch>.tar.gz (.zip for Windows), each
# holding one directory with the planq, planq-hook and planq-sandbox
# binaries and README.md, and
# OUTDIR/SHA256SUMS (`sha256sum -c SHA256SUMS` checks them). Archives of an
# earlier run in OUTDIR are removed first. Binaries are static (CGO_ENABLED=0)
# and built with -trimpath; the tar archives carry no build-machine owner or
# time, so the same commit gives the same archives.
#
# Environment:
#   VERSION    version stamped into the binaries and the names
#              (default: git describe --tags --always --dirty)
#   PLATFORMS  os/arch pairs (default: linux/amd64 linux/arm64 darwin/amd64
#              darwin/arm64 windows/amd64)
#   GO         the go command (default: go)
set -euo pipefail

prog=${0##*/}
die() {
  printf '%s: %s\n' "$prog" "$*" >&2
  exit 1
}

cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${1:-dist}
go=${GO:-go}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
[[ $version =~ ^[A-Za-z0-9._+-]+$ ]] || die "VERSION $version: use letters, digits and . _ + - only"
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64}

if command -v sha256sum >/dev/null 2>&1; then
  sum=(sha256sum)
elif command -v shasum >/dev/null 2>&1; then
  sum=(shasum -a 256)
else
  die "neither sha256sum nor shasum is installed"
fi
zipper=''
if command -v zip >/dev/null 2>&1; then
  zipper=zip
elif command -v python3 >/dev/null 2>&1; then
  zipper=python3
fi
[[ $platforms != *windows* || -n $zipper ]] || die "zip (or python3) is needed for the Windows archive; install zip"
tar_opts=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  tar_opts=(--sort=name --owner=0 --group=0 --numeric-owner)
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f -- "$out"/planq_*.tar.gz "$out"/planq_*.zip "$out/SHA256SUMS"
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT

# planq, the hook binary hosts start on every tool call, and the entry point
# a locked shell command runs in (planq finds both beside itself).
commands=(planq planq-hook planq-sandbox)
archives=()
for p in $platforms; do
  os=${p%/*} arch=${p#*/}
  [[ -n $os && -n $arch && $p == */* ]] || die "platform $p: want os/arch, e.g. linux/amd64"
  name=planq_${version}_${os}_${arch}
  ext=''
  [[ $os == windows ]] && ext=.exe
  mkdir -p "$work/$name"
  echo "building $name"
  for cmd in "${commands[@]}"; do
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath \
      -ldflags "-s -w -X github.com/planq-dev/planq/internal/version.stamp=$version" -o "$work/$name/$cmd$ext" "./cmd/$cmd"
  done
  cp README.md "$work/$name/"
  # A fixed time (zip cannot store one before 1980), so archives are reproducible.
  touch -t 200001010000 "$work/$name" "$work/$name"/*
  if [[ $os == windows ]]; then
    archive=$name.zip
    if [[ $zipper == zip ]]; then
      (cd "$work" && zip -q -X -r "$out/$archive" "$name")
    else
      (cd "$work" && python3 -m zipfile -c "$out/$archive" "$name")
    fi
  else
    archive=$name.tar.gz
    tar "${tar_opts[@]}" -C "$work" -cf - "$name" | gzip -n -9 >"$out/$archive"
  fi
  archives+=("$archive")
done

(cd "$out" && "${sum[@]}" "${archives[@]}" >SHA256SUMS)
echo "wrote ${#archives[@]} archives and SHA256SUMS to $out"
