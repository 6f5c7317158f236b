#!/usr/bin/env bash
# Type-checks sst.config.ts and stacks/ without an AWS account: `sst install` fetches the Pulumi
# providers from the npm registry and writes .sst/platform (once), then tsc checks the stacks
# against it.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f .sst/platform/config.d.ts ]; then
  echo "check-stacks: installing sst's providers into .sst/platform (first run only)" >&2
  SST_SKIP_DEPENDENCY_CHECK=true SST_NO_BUN=1 SST_TELEMETRY_DISABLED=1 npx sst install --stage ci >/dev/null
fi
npx tsc --noEmit -p stacks/tsconfig.json
