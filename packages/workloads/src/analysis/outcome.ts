/**
 * Outcome classes of a request and a counter of them with a latency histogram.
 *
 * 200 is successful, 409 is rejected (a business failure of SPEC 2.1, e.g.
 * insufficient stock), anything else is an error: status 0 (timeout or
 * connection error), 5xx, and every other 4xx. Latency is recorded for the
 * answered requests (successful and rejected): an error's duration says how
 * fast it failed, not how fast the system serves.
 */
import type { LatencyStats } from "@sfbench/core";
import { LatencyHistogram } from "./histogram.ts";

export type Outcome = "successful" | "rejected" | "errors";

export function classifyStatus(status: number | null): Outcome {
  return status === 200 ? "successful" : status === 409 ? "rejected" : "errors";
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

  get requests(): number {
    return this.successful + this.rejected + this.errors;
  }

  /** Counts one request; returns its outcome. */
  add(status: number | null, durationMs: number): Outcome {
    const outcome = classifyStatus(status);
    this[outcome]++;
    if (outcome !== "errors") this.histogram.recordMs(durationMs);
    return outcome;
  }

  summary(): OutcomeAggregate {
    const { requests, successful, rejected, errors, histogram } = this;
    return { requests, successful, rejected, errors, latency: histogram.stats(), histogram };
  }
}
