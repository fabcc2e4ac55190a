#!/usr/bin/env bash
# install-chromium.sh: make a headless-capable Chromium available for the
# `planq ui` browser tests. Safe to re-run.
#
# Uses the first of chromium, chromium-browser, google-chrome on PATH (or
# $PLANQ_CHROMIUM when set). Otherwise, as root on a Debian-like system, it
# runs `apt-get install -y chromium`. It prints the browser's path on stdout.
#
# Exit codes: 0 found or installed (path printed); 3 it cannot install one
# here (not root, no apt-get, or the install failed), so tests skip and say so.
set -euo pipefail

find_chromium() {
  if [[ -n "${PLANQ_CHROMIUM:-}" && -x "${PLANQ_CHROMIUM}" ]]; then
    echo "$PLANQ_CHROMIUM"
    return 0
  fi
  local name
  for name in chromium chromium-browser google-chrome google-chrome-stable; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
  done
  return 1
}

if find_chromium; then
  exit 0
fi

if [[ "$(id -u)" != 0 ]]; then
  echo "install-chromium.sh: no chromium on PATH and not root: install Debian's chromium package (sudo apt-get install -y chromium) or set PLANQ_CHROMIUM" >&2
  exit 3
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-chromium.sh: no chromium on PATH and no apt-get: install Chromium with your system's package manager or set PLANQ_CHROMIUM" >&2
  exit 3
fi

echo "install-chromium.sh: installing Debian's chromium package (about 480 MB with its fonts)..." >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -q chromium >&2; then
  # The package lists may be stale or missing: refresh them once and retry.
  if ! { apt-get update -q >&2 && apt-get install -y -q chromium >&2; }; then
    echo "install-chromium.sh: apt-get install chromium failed" >&2
    exit 3
  fi
fi

if find_chromium; then
  exit 0
fi
echo "install-chromium.sh: chromium was installed but is not on PATH" >&2
exit 3
