#!/usr/bin/env bash
# The README's start line: install, then start Postgres (embedded unless DATABASE_URL is set), the API, the
# web app and a virtual phone, and print the URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
npm install --no-audit --no-fund
exec npx tsx scripts/start.ts "$@"
