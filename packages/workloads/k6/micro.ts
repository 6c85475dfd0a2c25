/**
 * Invocation overhead (docs/spec.md section 8): one micro route at fixed
 * arrival rates (open model, one scenario per STEPS entry). Every answer
 * carries the handler's own time (`handlerNs`); the script records it
 * (`micro_handler`, ms) and the rest of the request's time
 * (`micro_overhead` = end to end - handler, ms) beside http_req_duration,
 * all tagged op=micro-<route>. Calls are spread over KEYS entities.
 *
 *   k6 run -e BASE_URL=http://127.0.0.1:8080 -e SEED=1 -e ROUTE=empty -e STEPS='[{"rate":100,"duration":10}]' k6/micro.ts
 */
import exec from "k6/execution";
import http from "k6/http";
import { Trend } from "k6/metrics";
import { REQUEST_TIMEOUT } from "./lib/http.ts";
import { arrivalScenarios, microEnv } from "../src/workload-env.ts";
import { commonOptions } from "./lib/options.ts";

const config = microEnv(__ENV);
const handler = new Trend("micro_handler", true);
const overhead = new Trend("micro_overhead", true);
const expected = http.expectedStatuses(200);
const tags = { op: `micro-${config.route}` };

export const options = { ...commonOptions, scenarios: arrivalScenarios(config) };

export default function (): void {
  const key = `${config.keyPrefix}-${exec.scenario.iterationInTest % config.keys}`;
  const p = config.parameter;
  const query = `key=${key}${p ? `&${p.name}=${p.value}` : ""}`;
  const res =
    config.route === "io"
      ? http.post(`${config.baseUrl}/micro/io`, JSON.stringify({ key, bytes: p!.value }), {
          headers: { "content-type": "application/json" },
          tags,
          timeout: REQUEST_TIMEOUT,
          responseType: "text",
          responseCallback: expected,
        })
      : http.get(`${config.baseUrl}/micro/${config.route}?${query}`, { tags, timeout: REQUEST_TIMEOUT, responseType: "text", responseCallback: expected });
  if (res.status !== 200 || typeof res.body !== "string") return;
  let ns: unknown;
  try {
    ns = (JSON.parse(res.body) as { handlerNs?: unknown }).handlerNs;
  } catch {
    return;
  }
  if (typeof ns !== "number" || !Number.isFinite(ns) || ns < 0) return;
  handler.add(ns / 1e6, tags);
  overhead.add(res.timings.duration - ns / 1e6, tags);
}
