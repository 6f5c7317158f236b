#!/usr/bin/env bash
# Sets up a fresh Debian/Ubuntu machine for voxtrail and for its tests: Debian's speech recogniser
# (pocketsphinx and its US English model, used by the embedded transcriber; SphinxTrain and
# sphinxbase-utils, which rebuild its telephony adaptation and its voicemail language model),
# espeak-ng and festival with its ked voice (the accuracy corpus's held-out speakers),
# Chromium (the HTML report's browser test), sox (the WAV codec's cross-check), the npm
# dependencies and the voxtrail command's JavaScript build, moto_server (the tests' local S3,
# EventBridge, Step Functions) through pip where pip reaches its index, sst's platform (the stacks'
# type-check and the rehearsal evaluate the stacks with it), and the transcriber's voicemail
# language model. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for package in pocketsphinx pocketsphinx-en-us sphinxtrain sphinxbase-utils espeak-ng festival festvox-kdlpc16k \
  chromium fonts-dejavu-core sox; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian's ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi

# The voxtrail command runs this build of its sources (npm ci's prepare made it too; a second is cheap).
npm run --silent build >&2

if ! command -v moto_server >/dev/null 2>&1; then
  echo "setup: installing moto_server (Python's moto[server]) with pip" >&2
  if ! python3 -m pip install --quiet --disable-pip-version-check --timeout 20 'moto[server]' >&2; then
    echo "setup: pip could not install moto[server]; npm test needs moto_server on the PATH: install Python's moto[server] (moto 5.2) by hand" >&2
  fi
fi

bash scripts/install-sst-platform.sh

# The embedded transcriber's voicemail language model (27 MB, so built here rather than kept in
# git): rebuilt when missing or older than what it is built from.
language_model=packages/providers/models/voicemail-en-us.lm.bin
if [ ! -f "$language_model" ] || [ -n "$(find tools/models/voicemail-language-model.ts tools/models/language-model \
  fixtures/accuracy/scripts.json fixtures/language-model /usr/share/pocketsphinx/model/en-us/en-us.lm.bin -newer "$language_model" 2>/dev/null)" ]; then
  echo "setup: building the voicemail language model (npm run build:lm, under a minute)" >&2
  npx tsx tools/models/voicemail-language-model.ts >&2
fi
