#!/usr/bin/env bash
# Type-checks sst.config.ts and stacks/ without an AWS account, against sst's platform
# (.sst/platform, installed by scripts/install-sst-platform.sh on first use).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-sst-platform.sh
npx tsc --noEmit -p stacks/tsconfig.json
