/**
 * Headroom probe, "default" script: what one writes from the k6 docs' open
 * model example. One GET per iteration, a check on the status, the response
 * body kept, k6's default system tags (url, name, proto, ...), a small VU pool
 * that k6 grows during the test when it runs short, and k6's default flags.
 * The warm-up and the probe's counts: k6/lib/probe.ts (the same for both
 * scripts).
 *
 *   k6 run -e URL=http://127.0.0.1:8080/ -e RATE=2000 -e DURATION=10 bench/k6/headroom-default.ts
 */
import { check } from "k6";
import http from "k6/http";
import type { Options } from "k6/options";
import { probeOptions } from "./lib/probe.ts";

export const options: Options = {
  ...probeOptions({ preAllocatedVUs: 100, maxVUs: 1000 }),
};

export default function (): void {
  const res = http.get(__ENV.URL!);
  check(res, { "status is 200": (r) => r.status === 200 });
}
