/** A one-line progress bar on stderr when it is a terminal; silent otherwise. */
export class Progress {
  private readonly tty = Boolean(process.stderr.isTTY);
  private lastLine = 0;

  constructor(
    private readonly total: number,
    private readonly label: string,
  ) {}

  update(done: number, detail: string, failed = 0): void {
    if (!this.tty) return;
    const width = 30;
    const filled = Math.round((done / Math.max(1, this.total)) * width);
    const bar = "#".repeat(filled) + "-".repeat(width - filled);
    const line = `${this.label} [${bar}] ${done}/${this.total}${failed ? ` (${failed} failed)` : ""} ${detail}`;
    const cols = process.stderr.columns || 100;
    process.stderr.write(`\r${line.slice(0, cols - 1).padEnd(Math.min(this.lastLine, cols - 1))}`);
    this.lastLine = Math.min(line.length, cols - 1);
  }

  done(): void {
    if (this.tty && this.lastLine) process.stderr.write(`\r${" ".repeat(this.lastLine)}\r`);
    this.lastLine = 0;
  }
}

/** Status lines for steps (services, targets) on stderr, so stdout stays clean for --json. */
export const note = (message: string) => process.stderr.write(`${message}\n`);
