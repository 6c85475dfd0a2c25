/**
 * `sfbench submit --wait`: follows a run on the portal. One line per stage on
 * stderr, each naming the cell it concerns, then the summary table of the
 * stored result on stdout (the same table `sfbench run` prints).
 */
import type { ResultDocument } from "@sfbench/core";
import { query, type Remote } from "./api.ts";
import { note, Progress } from "./progress.ts";
import { summaryTable } from "./summary.ts";
import { cellLabel, describeProgress } from "@sfbench/core/contract";
import { describeRun, exitCodeOf, isFinished, type RunProgress } from "./commands/status.ts";

/**
 * One line about the run: during the load, its last progress event (the cell
 * and phase it names, as `sfbench run` prints it); else the stage with the
 * run's only cell, or all of them (stages such as verify or store are about
 * every cell of the run).
 */
export function progressLine(p: RunProgress, cells: readonly string[]): string {
  const all = cells.length === 1 ? cells[0]! : `all ${cells.length} cells`;
  if (p.status === "running" && p.live && p.stage !== "verify" && p.stage !== "store" && p.stage !== "teardown") {
    const [where, ...rest] = describeProgress(p.live);
    return `${p.live.cell === "-" ? `[${all}] ${p.live.phase}` : where} (${p.progress}%)${rest.length ? `: ${rest[0]}` : ""}`;
  }
  if (p.status === "running") return `[${all}] ${p.stage || "starting"} (${p.progress}%)`;
  return `[${p.live && p.live.cell !== "-" ? cellLabel(p.live.cell) : all}] ${describeRun(p)}`;
}

export interface FollowOptions {
  /** the run's cells, workload/distribution, as submitted */
  cells: readonly string[];
  intervalMs?: number;
}

export async function followRun(r: Remote, runId: string, opts: FollowOptions): Promise<number> {
  const bar = new Progress(100, "run");
  let shown = "";
  for (;;) {
    const p = await query<RunProgress>(r, "runs.progress", { id: runId });
    const line = progressLine(p, opts.cells);
    // a line per stage (and cell); the percentage alone moves the terminal's bar
    const key = line.replace(/ \(\d+%\)$/, "");
    if (key !== shown) {
      bar.done();
      note(line);
      shown = key;
    }
    if (isFinished(p.status)) {
      bar.done();
      const { document } = await query<{ document: ResultDocument | null }>(r, "runs.byId", { id: runId });
      if (document) process.stdout.write(summaryTable(document));
      else note(`run ${runId} has no result document${p.status === "needs_cluster" ? " (it was not run here)" : ""}`);
      return exitCodeOf(p.status);
    }
    bar.update(p.progress, line);
    await new Promise((res) => setTimeout(res, opts.intervalMs ?? 1000));
  }
}
