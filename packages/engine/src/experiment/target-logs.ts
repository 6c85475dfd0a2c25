/**
 * A failed run keeps the end of its target's logs with its raw data: why a
 * target answered 500 or exited is in its own log, not in k6's, and the next
 * start of the same target begins its log afresh.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { logEnd } from "@sfbench/core";

/** enough for the lines before a crash, also when a traced target writes a span line per call */
const KEPT_BYTES = 1024 * 1024;

/**
 * Copies the last KEPT_BYTES of each log into <rawDir>/target-logs/ and
 * returns the copies' paths (a log that cannot be read is left out).
 */
export function keepTargetLogs(logs: readonly string[], rawDir: string, maxBytes = KEPT_BYTES): string[] {
  const kept: string[] = [];
  for (const log of new Set(logs)) {
    const text = logEnd(log, maxBytes);
    if (text === undefined) continue;
    const dir = join(rawDir, "target-logs");
    mkdirSync(dir, { recursive: true });
    const to = join(dir, basename(log));
    writeFileSync(to, text);
    kept.push(to);
  }
  return kept;
}

/** What an error without a document says of the logs kept ("" when none was). */
export function keptLogsNote(kept: readonly string[]): string {
  return kept.length ? ` (the end of the target's log is kept in ${dirname(kept[0]!)})` : "";
}
