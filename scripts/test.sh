#!/usr/bin/env bash
# `npm test`: bootstrap, typecheck + lint of every package, then every
# package's tests one package at a time. Every package runs even when another
# failed (--continue), so one red package never hides the others; the exit
# code is non-zero when anything failed.
#
# The local services (PostgreSQL, Redis, Kafka) that the tests start are
# stopped at the end; the ones that were already up before (a developer's,
# or the demo's) are left as they were.
set -uo pipefail
cd "$(dirname "$0")/.."

t0=$SECONDS
bash scripts/bootstrap.sh || exit 1
bootstrap_secs=$((SECONDS - t0))

sfbench() { node packages/cli/bin/sfbench.mjs "$@"; }
services_up() { sfbench services status 2>/dev/null | awk '$2 == "up" && $1 != "k6" { print $1 }'; }
before=$(services_up | tr '\n' ' ')

stop_started() {
  local started=()
  for s in $(services_up); do
    case " $before " in *" $s "*) ;; *) started+=("$s") ;; esac
  done
  if [ ${#started[@]} -gt 0 ]; then
    echo "sfbench test: stopping the services the tests started: ${started[*]}"
    sfbench services down "${started[@]}" >/dev/null || echo "sfbench test: could not stop ${started[*]}" >&2
  fi
}
trap stop_started EXIT
trap 'exit 130' INT TERM

t0=$SECONDS
# types and lint of every package, in as few processes as give the same verdict (scripts/check.mjs)
node scripts/check.mjs
checks=$?
# one formatting for every package (.prettierrc.json); `npm run format` applies it
npm run --silent format:check || checks=1
checks_secs=$((SECONDS - t0))
log=$(mktemp /tmp/sfbench-test.XXXXXX.log)
npx turbo run test --concurrency=1 --continue --summarize 2>&1 | tee "$log"
tests=${PIPESTATUS[0]}
# each package's time and the slowest files, where a CI log shows them before it is cut
summary=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | sed -n 's/^ *Summary: *//p' | tail -1)
node scripts/test-times.mjs --step "bootstrap=$bootstrap_secs" --step "typecheck, lint, format=$checks_secs" \
  ${summary:+--summary "$summary"} --log "$log" || true
if [ "$tests" -ne 0 ]; then
  # the failures again at the end, where a truncated CI log still shows them
  echo "sfbench test: the failed tests (full output above):" >&2
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E "(#test: +ERROR| FAIL | × |AssertionError|Error: | ❯ [^ ]+:[0-9]+:[0-9]+)" | head -60 >&2
fi
rm -f "$log"

if [ "$checks" -ne 0 ] || [ "$tests" -ne 0 ]; then
  echo "sfbench test: FAILED (typecheck/lint exit $checks, tests exit $tests): see the tasks marked failed above" >&2
  exit 1
fi
