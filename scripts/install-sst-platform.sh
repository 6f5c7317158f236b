#!/usr/bin/env bash
# Installs sst's platform into .sst/platform (once): `sst install` fetches the Pulumi providers
# from the npm registry. The stacks' type-check (scripts/check-stacks.sh) and the rehearsal
# (`npm run rehearse`, which evaluates the stacks under Pulumi mocks) both need it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f .sst/platform/config.d.ts ] || [ ! -f .sst/platform/src/auto/run.ts ]; then
  echo "setup: installing sst's providers into .sst/platform (first run only)" >&2
  SST_SKIP_DEPENDENCY_CHECK=true SST_NO_BUN=1 SST_TELEMETRY_DISABLED=1 npx sst install --stage ci >/dev/null
fi
