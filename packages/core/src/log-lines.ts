/**
 * The end of a log, for an error message or the raw data a failed run keeps:
 * only the file's last bytes are read, since a traced target's log holds a
 * span line per call and can be hundreds of megabytes.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** The last `maxBytes` of a file (fewer when it is shorter), from the first whole line in them; undefined when it cannot be read. */
export function logEnd(file: string, maxBytes = 64 * 1024): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const from = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - from);
    let read = 0;
    while (read < buf.length) {
      const n = readSync(fd, buf, read, buf.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
    const text = buf.subarray(0, read).toString("utf8");
    // a cut line's first half says nothing
    return from > 0 ? text.slice(text.indexOf("\n") + 1) : text;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The last `lines` lines of a log; undefined when it cannot be read or is empty. */
export function lastLines(file: string, lines = 15): string | undefined {
  const text = logEnd(file)?.trimEnd();
  return text ? text.split("\n").slice(-lines).join("\n") : undefined;
}

/** The last `lines` lines of a log, for an error message; "(no log)" when there is none. */
export function tail(file: string, lines = 15): string {
  return lastLines(file, lines) ?? "(no log)";
}
