/**
 * What the demo says of a system once its trials are in: judged by core's
 * judgeCell, the rule the portal applies at import, not by the count of
 * completed runs. A completed run can still have no ranked cell (invalid,
 * knee not bracketed, audit anomalies), and the board then has no median for
 * it: the demo must say so, with the first reason.
 */
import { judgeCell, type ResultDocument } from "@sfbench/core";

type Judged = Pick<ResultDocument, "cells">;
type Judge = (cell: ResultDocument["cells"][number]) => Pick<ReturnType<typeof judgeCell>, "invalidReason" | "rank">;

/** Per cell, how many of the system's completed trials are ranked, and the first reason one was not. */
export function systemVerdict(docs: Judged[], judge: Judge = judgeCell): string {
  const cells = new Map<string, { ranked: number; trials: number; reason?: string }>();
  for (const doc of docs)
    for (const cell of doc.cells) {
      const name = `${cell.workload}/${cell.distribution}`;
      const entry = cells.get(name) ?? { ranked: 0, trials: 0 };
      const judged = judge(cell);
      entry.trials++;
      if (judged.rank.ok) entry.ranked++;
      else entry.reason ??= judged.rank.because === "invalid" ? (judged.invalidReason ?? judged.rank.reason) : judged.rank.reason;
      cells.set(name, entry);
    }
  if (!cells.size) return "no completed trial: nothing on the board";
  const parts = [...cells].map(([name, c]) => {
    // a median with an interval needs two ranked trials; one is a provisional figure
    const state = c.ranked >= 2 ? "median and interval ranked" : c.ranked === 1 ? "one ranked trial: provisional" : "not ranked";
    const why = c.reason && c.ranked < c.trials ? ` (${c.trials - c.ranked} unranked: ${shorten(c.reason)})` : "";
    return `${name} ${c.ranked} of ${c.trials} trials ranked, ${state}${why}`;
  });
  return parts.join("; ");
}

const shorten = (reason: string, max = 160) => (reason.length > max ? `${reason.slice(0, max - 3)}...` : reason);
