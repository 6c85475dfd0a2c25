#!/usr/bin/env bash
# `npm test`: bootstrap, typecheck + lint of every package, then every
# package's tests in two lanes that run at once (scripts/test-lanes.mjs),
# one package at a time in each. Every package runs even when another failed
# (--continue), so one red package never hides the others; the exit code is
# non-zero when anything failed.
#
# The "images" lane runs on the default SFBENCH_HOME and service ports; the
# "processes" lane on a home of its own under it and on ports 10 above, so
# the lanes share no target, service, queue or lock.
#
# The local services (PostgreSQL, Redis, Kafka) that the tests start are
# stopped at the end; the ones that were already up before (a developer's,
# or the demo's) are left as they were.
set -uo pipefail
cd "$(dirname "$0")/.."

t0=$SECONDS
bash scripts/bootstrap.sh || exit 1

# the environment of each lane: the images lane's is the caller's own
home=${SFBENCH_HOME:-.sfbench}
case "$home" in /*) ;; *) home=$PWD/$home ;; esac
lane_env() {
  case "$1" in
    images) ;;
    processes)
      echo "SFBENCH_HOME=$home/lanes/processes SFBENCH_PG_PORT=$((${SFBENCH_PG_PORT:-54329} + 10))" \
        "SFBENCH_REDIS_PORT=$((${SFBENCH_REDIS_PORT:-63799} + 10)) SFBENCH_KAFKA_PORT=$((${SFBENCH_KAFKA_PORT:-19092} + 10))"
      ;;
  esac
}
lanes=(images processes)
sfbench() { local lane=$1; shift; env $(lane_env "$lane") node packages/cli/bin/sfbench.mjs "$@"; }
services_up() { sfbench "$1" services status 2>/dev/null | awk '$2 == "up" && $1 != "k6" { print $1 }'; }
declare -A before
for lane in "${lanes[@]}"; do before[$lane]=$(services_up "$lane" | tr '\n' ' '); done

stop_started() {
  for lane in "${lanes[@]}"; do
    local started=()
    for s in $(services_up "$lane"); do
      case " ${before[$lane]} " in *" $s "*) ;; *) started+=("$s") ;; esac
    done
    if [ ${#started[@]} -gt 0 ]; then
      echo "sfbench test: stopping the services the $lane lane started: ${started[*]}"
      sfbench "$lane" services down "${started[@]}" >/dev/null || echo "sfbench test: could not stop ${started[*]}" >&2
    fi
  done
}
lane_pids=()
trap stop_started EXIT
# each lane is a process group of its own (setsid): an interrupted `npm test` stops both
trap 'for p in "${lane_pids[@]}"; do kill -- "-$p" 2>/dev/null; done; exit 130' INT TERM

# the second home gets the targets' builds and k6 from the machine's store that the bootstrap just filled
sfbench processes target build >/dev/null || exit 1
sfbench processes services up k6 >/dev/null || exit 1
bootstrap_secs=$((SECONDS - t0))

t0=$SECONDS
# types and lint of every package, in as few processes as give the same verdict (scripts/check.mjs)
node scripts/check.mjs
checks=$?
# one formatting for every package (.prettierrc.json); `npm run format` applies it
npm run --silent format:check || checks=1
checks_secs=$((SECONDS - t0))
logs=$(mktemp -d /tmp/sfbench-test.XXXXXX)
t0=$SECONDS
# --only: the tasks tests depend on (the Prisma client's generation) ran in the bootstrap; run
# again in one lane they would rewrite files the other lane's tests are loading
run_lane() {
  env $(lane_env "$1") npx turbo run test --only --concurrency=1 --continue --summarize \
    $(node scripts/test-lanes.mjs --filters "$1") 2>&1 | tee "$logs/$1.log"
  echo "${PIPESTATUS[0]}" > "$logs/$1.rc"
}
export -f run_lane lane_env
export home logs
for lane in "${lanes[@]}"; do
  setsid bash -c 'run_lane "$1"' lane "$lane" &
  lane_pids+=($!)
done
wait
tests_secs=$((SECONDS - t0))
tests=0
times=()
for lane in "${lanes[@]}"; do
  rc=$(cat "$logs/$lane.rc" 2>/dev/null || echo 1)
  [ "$rc" -ne 0 ] && tests=1
  # each lane's package times and slowest files, where a CI log shows them before it is cut
  summary=$(sed 's/\x1b\[[0-9;]*m//g' "$logs/$lane.log" | sed -n 's/^ *Summary: *//p' | tail -1)
  times+=(--lane "$lane=${summary}" --log "$logs/$lane.log")
done
node scripts/test-times.mjs --step "bootstrap=$bootstrap_secs" --step "typecheck, lint, format=$checks_secs" \
  --step "tests, two lanes at once=$tests_secs" "${times[@]}" || true
if [ "$tests" -ne 0 ]; then
  # the failures again at the end, where a truncated CI log still shows them
  echo "sfbench test: the failed tests (full output above):" >&2
  cat "$logs"/*.log | sed 's/\x1b\[[0-9;]*m//g' | grep -E "(#test: +ERROR| FAIL | × |AssertionError|Error: |target said: | ❯ [^ ]+:[0-9]+:[0-9]+)" | head -60 >&2
fi
rm -rf "$logs"

if [ "$checks" -ne 0 ] || [ "$tests" -ne 0 ]; then
  echo "sfbench test: FAILED (typecheck/lint exit $checks, tests exit $tests): see the tasks marked failed above" >&2
  exit 1
fi
