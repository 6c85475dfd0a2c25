/**
 * Outcome classes of a request and a counter of them with a latency histogram.
 *
 * 200 is successful; anything else is an error: status 0 (timeout or
 * connection error), 5xx, every 4xx, and a 409 (a business failure of SPEC
 * 2.1) where the workload knows it cannot be right (core's REJECTIONS). Where
 * the workload plans 409s (contention), a 409 is rejected: it counts as
 * completed, and the audit checks that it was warranted. Latency is recorded
 * for the answered requests (successful and rejected): an error's duration
 * says how fast it failed, not how fast the system serves, so a target that
 * sheds load with fast 409s gains no latency from it either.
 */
import type { LatencyStats, REJECTIONS, Workload } from "@sfbench/core";
import { LatencyHistogram } from "./histogram.ts";

export type Outcome = "successful" | "rejected" | "errors";
/** what a 409 is in the workload measured (core's REJECTIONS) */
export type Rejections = (typeof REJECTIONS)[Workload];

export function classifyStatus(status: number | null, rejections: Rejections = "failure"): Outcome {
  if (status === 200) return "successful";
  return status === 409 && rejections === "audited" ? "rejected" : "errors";
}

export interface OutcomeAggregate {
  requests: number;
  successful: number;
  rejected: number;
  errors: number;
  /** over successful and rejected requests, ms */
  latency: LatencyStats;
  histogram: LatencyHistogram;
}

export class OutcomeCounter {
  successful = 0;
  rejected = 0;
  errors = 0;
  readonly histogram = LatencyHistogram.create();

  constructor(private readonly rejections: Rejections = "failure") {}

  get requests(): number {
    return this.successful + this.rejected + this.errors;
  }

  /** Counts one request; returns its outcome. */
  add(status: number | null, durationMs: number): Outcome {
    const outcome = classifyStatus(status, this.rejections);
    this[outcome]++;
    if (outcome !== "errors") this.histogram.recordMs(durationMs);
    return outcome;
  }

  summary(): OutcomeAggregate {
    const { requests, successful, rejected, errors, histogram } = this;
    return { requests, successful, rejected, errors, latency: histogram.stats(), histogram };
  }
}
