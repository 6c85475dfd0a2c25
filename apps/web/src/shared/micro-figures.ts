/**
 * The headline microbenchmark figures of one run (leaderboard "micro" view,
 * system page): empty's p50 overhead at its lowest measured rate, empty's
 * highest sustainable rate, ping-pong round trips/s and p99 for one pair of
 * 64 B messages, the divide-and-conquer time for 10k items, and Big's
 * messages/s at the largest entity count measured. A figure the run did not
 * measure is null (shown as "—"), never a number from elsewhere.
 */
import type { MicroResult } from "@sfbench/core";

/** the ping-pong configuration the leaderboard shows (spec 8: every profile measures it) */
export const HEADLINE_PINGPONG = { pairs: 1, bytes: 64 } as const;
/** the divide-and-conquer size the leaderboard shows */
export const HEADLINE_DIVIDE_ITEMS = 10_000;

export interface MicroFigures {
  /** empty: p50 overhead (end to end minus in-handler), ms, at the lowest offered rate; and that rate */
  emptyOverheadP50Ms: number | null;
  emptyOverheadRate: number | null;
  /** empty: highest sustainable rate, requests/s */
  emptyMaxRate: number | null;
  pingpongPerS: number | null;
  /** ms; null also when the p99 was beyond the histogram's last bound */
  pingpongP99Ms: number | null;
  /** ms */
  divideMs: number | null;
  bigPerS: number | null;
  bigEntities: number | null;
}

export type MicroSummary = { supported: false; reason: string } | ({ supported: true } & MicroFigures);

export function microFigures(micro: MicroResult): MicroSummary {
  if (!micro.supported) return { supported: false, reason: micro.reason };
  const empty = micro.overhead.filter((o) => o.route === "empty").sort((a, b) => a.offeredRate - b.offeredRate)[0];
  const pp = micro.pingpong.find((p) => p.pairs === HEADLINE_PINGPONG.pairs && p.bytes === HEADLINE_PINGPONG.bytes);
  const divide = micro.divide.find((d) => d.items === HEADLINE_DIVIDE_ITEMS);
  const big = [...micro.big].sort((a, b) => b.entities - a.entities)[0];
  return {
    supported: true,
    emptyOverheadP50Ms: empty ? empty.overheadMs.p50 : null,
    emptyOverheadRate: empty ? empty.offeredRate : null,
    emptyMaxRate: micro.emptyMaxRate.sustainableRate,
    pingpongPerS: pp ? pp.messagesPerS : null,
    pingpongP99Ms: pp && pp.rttNs.p99 !== null ? pp.rttNs.p99 / 1e6 : null,
    divideMs: divide ? divide.totalNs / 1e6 : null,
    bigPerS: big ? big.messagesPerS : null,
    bigEntities: big ? big.entities : null,
  };
}
