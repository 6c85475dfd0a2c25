/**
 * A failed test's message with the end of the target's own output. A target
 * that dies mid-test says why only there (a launcher names the child that
 * exited and with what); the test itself sees just a lost connection or a
 * 503, and on a shared CI machine the run that failed cannot be repeated.
 */
import { existsSync, readFileSync } from "node:fs";
import { logEnd, parseSpanLine, type Span } from "@sfbench/core";

/** The last `chars` characters of each file that exists, each under its path (only the file's end is read: a traced target's log can be hundreds of MB). */
export function outputTail(files: readonly string[], chars = 4000): string {
  return [...new Set(files)]
    .filter((file) => existsSync(file))
    .map((file) => {
      const text = logEnd(file, chars * 4) ?? "";
      const tail = text.length > chars ? `…${text.slice(-chars)}` : text;
      return `--- the end of ${file} ---\n${tail.trimEnd() || "(empty)"}`;
    })
    .join("\n");
}

/**
 * Runs `body`; if it throws, the error's message gains the tail of the files
 * `logs()` names at that moment (the error object is kept, so an assertion's
 * diff still shows).
 */
export async function withOutputOnFailure(logs: () => readonly string[], body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    let files: readonly string[] = [];
    try {
      files = logs();
    } catch {
      // no state left to name the logs (the target was stopped): the error alone
    }
    const tail = outputTail(files);
    if (tail && err instanceof Error) err.message = `${err.message}\n\nthe target's output:\n${tail}`;
    throw err;
  }
}

/** The span lines of one trace in a target's log, whichever of its processes wrote them. */
export function spansInLog(logFile: string, traceId: string): Span[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .map(parseSpanLine)
    .filter((s): s is Span => s !== null && s.traceId === traceId);
}
