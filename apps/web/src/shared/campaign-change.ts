/**
 * Whether a system changed between two campaigns: only when the intervals of
 * their medians do not overlap. Knees on a shared machine move 10-70% between
 * single runs, so a difference inside the noise is no change; a campaign of
 * one trial has no interval and so can never show one.
 */
import { overlaps } from "@sfbench/core/stats";
import type { TrialFigure } from "./trial-figures.ts";

export type Change = { kind: "changed"; share: number } | { kind: "noise"; share: number } | { kind: "unknown"; why: string };

export function campaignChange(latest: TrialFigure | undefined, previous: TrialFigure | undefined): Change {
  if (!latest || !previous) return { kind: "unknown", why: "not measured in both campaigns" };
  if (!latest.interval || !previous.interval) return { kind: "unknown", why: "a campaign with one counted trial has no interval" };
  const share = previous.median === 0 ? 0 : latest.median / previous.median - 1;
  return overlaps(latest.interval, previous.interval) ? { kind: "noise", share } : { kind: "changed", share };
}

export function fmtChange(c: Change): string {
  const pct = (s: number) => `${s >= 0 ? "+" : ""}${(s * 100).toFixed(0)}%`;
  if (c.kind === "changed") return `changed since the previous campaign: ${pct(c.share)} (the intervals of the medians do not overlap)`;
  if (c.kind === "noise") return `no change beyond noise (${pct(c.share)}, the intervals of the medians overlap)`;
  return `no comparison: ${c.why}`;
}
