/**
 * Headroom probe, tuned script: the same open-model load (one GET per
 * iteration, constant-arrival-rate, the same warm-up: k6/lib/probe.ts) with
 * as little work per request as k6 allows. What each setting saves is in
 * bench/README.md:
 * - discardResponseBodies: the body ("ok") is never copied into the VU;
 * - systemTags []: no url/name/method/status/proto/... tag sets are built for
 *   the ~12 metric samples of every request (http_req_failed and the counts
 *   the harness reads do not need them);
 * - no check(): its callback and sample cost as much as a tag set, and the
 *   harness counts failures from http_req_failed;
 * - noCookiesReset: no fresh cookie jar per iteration;
 * - every VU allocated before the start (VUS, default 200): k6 allocating VUs
 *   mid-run drops iterations meanwhile; 200 absorb 20 ms stalls at 10000/s,
 *   and fewer VUs than 400 cost less per request; every VU keeps its
 *   keep-alive connection (k6's default);
 * - a short gracefulStop, minimal summary statistics.
 * The harness runs it with the REST API and the Go garbage collector off
 * (GOGC=off GOMEMLIMIT=3GiB, see headroom.ts).
 *
 *   GOGC=off GOMEMLIMIT=3GiB k6 run --address= -e URL=http://127.0.0.1:8080/ -e RATE=10000 -e DURATION=10 bench/k6/headroom-tuned.ts
 */
import http from "k6/http";
import type { Options } from "k6/options";
import { probeOptions } from "./lib/probe.ts";

const vus = Number(__ENV.VUS ?? 200);

export const options: Options = {
  discardResponseBodies: true,
  noCookiesReset: true,
  systemTags: [],
  summaryTrendStats: ["p(99)", "max"],
  ...probeOptions({ preAllocatedVUs: vus, maxVUs: vus }, "5s"),
};

const url = __ENV.URL!;

export default function (): void {
  http.get(url);
}
