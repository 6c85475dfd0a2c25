/** k6 options shared by every workload: small output, only the tags the analysis reads. */
import type { Options } from "k6/options";
import { arrivalScenarios, type ArrivalConfig } from "../../src/workload-env.ts";

export const commonOptions = {
  // Bodies are read only where a request asks for responseType "text".
  discardResponseBodies: true,
  // No url/name/group/check/vu/iter tags: they would multiply the CSV size.
  systemTags: ["status", "method", "scenario", "expected_response", "error_code"],
  summaryTrendStats: ["avg", "p(50)", "p(99)", "max", "count"],
} satisfies Options;

/** Options of an open-model workload: one constant-arrival-rate scenario per STEPS entry. */
export function arrivalOptions(config: ArrivalConfig): Options {
  return { ...commonOptions, scenarios: arrivalScenarios(config) };
}
