/**
 * Per-second time series of the measured request, built while streaming.
 *
 * Requests are bucketed by the wall-clock second in which they ended. Each
 * open second has a histogram for p50/p99; a second is closed once samples
 * LAG_S seconds newer have been seen (k6 writes samples in roughly emission
 * order, flushing about once per second), so at most about LAG_S histograms
 * are alive however long the run. A latency that arrives for an already closed
 * second still counts, but is left out of that second's percentiles and is
 * reported in `lateSamples`.
 */
import type { SeriesPoint } from "@sfbench/core";
import { LatencyHistogram } from "./histogram.ts";
import type { Outcome } from "./outcome.ts";

export const LAG_S = 10;

interface Second {
  successful: number;
  rejected: number;
  errors: number;
  dropped: number;
  p50: number | null;
  p99: number | null;
}

/** A window in which a known arrival rate was offered (one step). */
export interface OfferedWindow {
  startMs: number;
  endMs: number;
  rate: number;
}

export class SeriesBuilder {
  private readonly seconds = new Map<number, Second>();
  private readonly open = new Map<number, LatencyHistogram>();
  private newest = -Infinity;
  lateSamples = 0;

  private at(sec: number): Second {
    let s = this.seconds.get(sec);
    if (!s) {
      s = { successful: 0, rejected: 0, errors: 0, dropped: 0, p50: null, p99: null };
      this.seconds.set(sec, s);
    }
    return s;
  }

  /** A measured request that ended at endMs; latencyMs is given for answered requests (they feed the percentiles). */
  request(endMs: number, outcome: Outcome, latencyMs?: number): void {
    const sec = Math.floor(endMs / 1000);
    this.at(sec)[outcome]++;
    if (latencyMs === undefined) return;
    if (sec <= this.newest - LAG_S) {
      this.lateSamples++;
      return;
    }
    let h = this.open.get(sec);
    if (!h) {
      h = LatencyHistogram.create();
      this.open.set(sec, h);
    }
    h.recordMs(latencyMs);
    if (sec > this.newest) {
      this.newest = sec;
      this.closeBefore(sec - LAG_S);
    }
  }

  dropped(timeMs: number): void {
    this.at(Math.floor(timeMs / 1000)).dropped++;
  }

  private closeBefore(limit: number): void {
    for (const [sec, h] of this.open) {
      if (sec > limit) continue;
      const s = this.at(sec);
      s.p50 = h.percentileMs(50);
      s.p99 = h.percentileMs(99);
      this.open.delete(sec);
    }
  }

  /**
   * The series from the second containing startMs to the last second with data,
   * gaps filled with zeros; `offered` where a window covers the middle of the second.
   */
  finish(startMs: number, windows: readonly OfferedWindow[] = []): SeriesPoint[] {
    this.closeBefore(Infinity);
    if (this.seconds.size === 0) return [];
    const first = Math.floor(startMs / 1000);
    let last = first;
    for (const sec of this.seconds.keys()) last = Math.max(last, sec);
    const out: SeriesPoint[] = [];
    for (let sec = first; sec <= last; sec++) {
      const s = this.seconds.get(sec) ?? { successful: 0, rejected: 0, errors: 0, dropped: 0, p50: null, p99: null };
      const mid = sec * 1000 + 500;
      const w = windows.find((x) => x.startMs <= mid && mid < x.endMs);
      out.push({ t: sec - first, ...(w ? { offered: w.rate } : {}), ...s });
    }
    return out;
  }
}
