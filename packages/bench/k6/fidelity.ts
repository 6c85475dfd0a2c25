/**
 * Fidelity probe: the measured request exactly as the workloads send it
 * (k6/lib/http.ts: traceparent, `op` tag, 10 s timeout, body read and parsed,
 * check; k6/lib/options.ts: system tags, discarded bodies), at one open-model
 * rate in scenario step_0, against the calibration target
 * (bench/servers/latency-server.ts). The harness runs it through runK6 and
 * aggregates the raw CSV with aggregateK6, like any run.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e RATE=200 -e DURATION=60 bench/k6/fidelity.ts
 */
import { Api } from "../../workloads/k6/lib/http.ts";
import { commonOptions } from "../../workloads/k6/lib/options.ts";
import { arrivalScenarios } from "../../workloads/src/workload-env.ts";

const rate = Number(__ENV.RATE);
const duration = Number(__ENV.DURATION);

export const options = {
  ...commonOptions,
  // all VUs allocated before the start (k6 allocating one mid-run may drop iterations meanwhile):
  // 100 VUs at 200/s cover stalls of up to half a second
  scenarios: arrivalScenarios({ steps: [{ rate, duration }], iterationMs: 50, preVus: 100, maxVus: 100 }),
};

const api = new Api(__ENV.BASE_URL!);

export default function (): void {
  api.checkout("calibration-cart", "calibration-user", 1, false);
}
