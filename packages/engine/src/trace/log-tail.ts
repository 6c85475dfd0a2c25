/**
 * Reading a growing log file from a byte offset, line by line: only complete
 * lines (ending in "\n") are returned; a partial last line waits for its end.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from "node:fs";

/** The file's current size: the offset from which a tail sees only what is written next (0 when missing). */
export function logOffset(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

export class LogTail {
  private fd: number | undefined;
  /** bytes read past the last complete line */
  private partial = Buffer.alloc(0);

  constructor(
    readonly file: string,
    /** the byte offset of the next read */
    public offset = 0,
  ) {}

  /**
   * Every complete line written since the last read (without the "\n"). At most
   * `maxBytes` are read per call, so a huge backlog comes in slices.
   */
  read(maxBytes = 16 * CHUNK): string[] {
    if (this.fd === undefined) {
      try {
        this.fd = openSync(this.file, "r");
      } catch {
        return []; // not written yet
      }
    }
    const size = fstatSync(this.fd).size;
    // truncated (the target was restarted into the same file): start over
    if (size < this.offset) {
      this.offset = 0;
      this.partial = Buffer.alloc(0);
    }
    const lines: string[] = [];
    let budget = maxBytes;
    while (this.offset < size && budget > 0) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, size - this.offset, budget));
      const n = readSync(this.fd, buf, 0, buf.length, this.offset);
      if (n <= 0) break;
      this.offset += n;
      budget -= n;
      this.split(buf.subarray(0, n), lines);
    }
    return lines;
  }

  /** The partial last line, if any (once the writer has stopped, it is a line without "\n"). */
  rest(): string | undefined {
    if (this.partial.length === 0) return undefined;
    const line = this.partial.toString("utf8");
    this.partial = Buffer.alloc(0);
    return line;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** Splits on "\n" at the byte level, so a multi-byte character cut by a read is decoded whole. */
  private split(chunk: Buffer, lines: string[]): void {
    const data = this.partial.length ? Buffer.concat([this.partial, chunk]) : chunk;
    let start = 0;
    for (let nl = data.indexOf(NEWLINE, start); nl !== -1; nl = data.indexOf(NEWLINE, start)) {
      const end = nl > start && data[nl - 1] === 0x0d ? nl - 1 : nl;
      lines.push(data.toString("utf8", start, end));
      start = nl + 1;
    }
    // a copy, so that the (up to 1 MiB) chunk it came from can be collected
    this.partial = start < data.length ? Buffer.from(data.subarray(start)) : Buffer.alloc(0);
  }
}
