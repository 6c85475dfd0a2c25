/** The live line of `sfbench run`: the progress events of the run (core describeProgress), with a bar for the current k6 run. */
import { cellLabel, describeProgress, phaseFraction, type ProgressEvent } from "@sfbench/core";

export { cellLabel };

export class LiveLine {
  private readonly tty = Boolean(process.stderr.isTTY);
  private width = 0;
  private lastKey = "";

  update(e: ProgressEvent): void {
    if (e.note) {
      // notes (span topic, why a cell has no breakdown) are kept, not overwritten
      this.done();
      process.stderr.write(`[${cellLabel(e.cell)}] ${e.phase}: ${e.detail}\n`);
      this.lastKey = "";
      return;
    }
    if (!this.tty) {
      // not a terminal: one line per phase and detail, so logs stay readable
      const key = `${e.cell} ${e.phase} ${e.detail}`;
      if (key !== this.lastKey) process.stderr.write(`[${cellLabel(e.cell)}] ${e.phase}: ${e.detail}\n`);
      this.lastKey = key;
      return;
    }
    const [where, ...rest] = describeProgress(e);
    const fraction = phaseFraction(e);
    const parts = [where, fraction === undefined ? "" : this.bar(fraction), ...rest].filter(Boolean);
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
