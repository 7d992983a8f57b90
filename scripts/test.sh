#!/usr/bin/env bash
# The README's test line: install everything from nothing, then run every suite and print one total.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
npm install --no-audit --no-fund
exec npx tsx scripts/test-all.ts "$@"
