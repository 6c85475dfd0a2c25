/** The live line of `sfbench run`: stage, offered and achieved rate, p99, errors, and a bar for the current phase. */
import type { ProgressEvent } from "@sfbench/workloads";

/**
 * The cell (workload/distribution) a progress event concerns, for the start of
 * every line: the seed and the run's tracing are for all cells ("-"), the
 * co-purchase graph for both analytics cells.
 */
export function cellLabel(cell: string): string {
  if (cell === "-") return "all cells";
  return cell.includes("/") ? cell : `${cell}/*`;
}

export class LiveLine {
  private readonly tty = Boolean(process.stderr.isTTY);
  private last = { key: "", iterations: 0, t: 0 };
  private width = 0;
  private lastStage = "";

  update(e: ProgressEvent): void {
    if (e.stage === "trace") {
      // tracing notes (topic, collection, why a cell has no breakdown) are kept, not overwritten
      this.done();
      process.stderr.write(`[${cellLabel(e.cell)}] trace: ${e.detail}\n`);
      this.lastStage = `${e.cell} trace`;
      return;
    }
    const key = `${e.cell} ${e.stage}`;
    if (!this.tty) {
      // not a terminal: one line per stage, so logs stay readable
      if (key !== this.lastStage) process.stderr.write(`[${cellLabel(e.cell)}] ${e.stage}: ${e.detail}\n`);
      this.lastStage = key;
      return;
    }
    let achieved = "";
    if (e.live) {
      if (this.last.key === key && e.live.elapsedS > this.last.t) {
        achieved = `${((e.live.iterations - this.last.iterations) / (e.live.elapsedS - this.last.t)).toFixed(0)}/s`;
      }
      this.last = { key, iterations: e.live.iterations, t: e.live.elapsedS };
    }
    const bar = e.stepS && e.live ? this.bar(Math.min(1, e.live.elapsedS / (e.stepS + 1))) : "";
    const parts = [
      `[${cellLabel(e.cell)}] ${e.stage}`,
      bar,
      e.offeredRate !== undefined ? `offered ${e.offeredRate}/s` : e.detail,
      achieved && `achieved ${achieved}`,
      e.live?.p99Ms != null ? `p99 ${e.live.p99Ms.toFixed(1)} ms` : "",
      e.live ? `errors ${(e.live.failedShare * 100).toFixed(1)}%` : "",
      e.live?.dropped ? `dropped ${e.live.dropped}` : "",
    ].filter(Boolean);
    const cols = (process.stderr.columns || 120) - 1;
    const line = parts.join("  ").slice(0, cols);
    process.stderr.write(`\r${line.padEnd(Math.min(this.width, cols))}`);
    this.width = line.length;
  }

  private bar(fraction: number): string {
    const n = 16;
    const filled = Math.round(fraction * n);
    return `[${"#".repeat(filled)}${"-".repeat(n - filled)}]`;
  }

  done(): void {
    if (this.tty && this.width) process.stderr.write(`\r${" ".repeat(this.width)}\r`);
    this.width = 0;
  }
}
