#!/usr/bin/env bash
# Idempotent first step of `npm test` and `npm run demo`: checks the
# prerequisites a fresh machine must have (Node, Go, Java) and installs the
# npm dependencies when they are missing or stale, what bundled targets need
# compiled, and k6. Services (PostgreSQL, Redis, Kafka) are started later, on
# demand, by @sfbench/services.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "sfbench bootstrap: $*" >&2; exit 1; }

command -v node >/dev/null || fail "Node.js is not installed: install Node 20.19+ (https://nodejs.org or your package manager)"
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)' \
  || fail "Node $(node --version) is too old: install Node 20.19 or newer"
command -v npm >/dev/null || fail "npm is not installed: it ships with Node.js"

if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  if [ "${CI:-}" = "true" ]; then
    # CI installs exactly the lock file: an incomplete package-lock.json fails here, not on a user's machine
    echo "sfbench bootstrap: installing npm dependencies (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  else
    echo "sfbench bootstrap: installing npm dependencies"
    npm install --no-audit --no-fund --loglevel=error
  fi
fi

# --- @sfbench/db: the Prisma client (begin) ---------------------------------
# packages/db/src/generated is not committed: (re)generate it when it is missing,
# or older than prisma/schema.prisma or the installed packages (a Prisma upgrade).
db_marker=packages/db/src/generated/.generated
if [ ! -f "$db_marker" ] || [ prisma/schema.prisma -nt "$db_marker" ] || [ node_modules/.package-lock.json -nt "$db_marker" ]; then
  echo "sfbench bootstrap: generating the Prisma client (packages/db/src/generated)"
  node packages/db/scripts/generate.mjs --quiet
fi
# --- @sfbench/db: the Prisma client (end) -----------------------------------

# What bundled targets need compiled (target.json "build": a Maven package, a go build),
# cached under .sfbench/build/<name>/ and rebuilt only when an input changed.
node packages/cli/bin/sfbench.mjs target build

# k6, the load generator every measurement and many tests run: built here, once
# (.sfbench/bin), so that no test's own time limit has to hold a first build.
node packages/cli/bin/sfbench.mjs services up k6 >/dev/null
