#!/usr/bin/env bash
# Sets up a fresh machine for voxtrail: Debian's speech recogniser (pocketsphinx and its US English
# model, used by the embedded transcriber) and the npm dependencies. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pocketsphinx_continuous >/dev/null 2>&1 || ! dpkg -s pocketsphinx-en-us >/dev/null 2>&1; then
  echo "setup: installing Debian's pocketsphinx and pocketsphinx-en-us" >&2
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq pocketsphinx pocketsphinx-en-us >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
