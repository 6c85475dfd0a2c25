/**
 * A failed test's message with the end of the target's own output. A target
 * that dies mid-test says why only there (a launcher names the child that
 * exited and with what); the test itself sees just a lost connection or a
 * 503, and on a shared CI machine the run that failed cannot be repeated.
 * Span lines are left out: a traced target writes them by the thousand, and
 * the last few kilobytes of its log would hold nothing else.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { logEnd, parseSpanLine, type Span } from "@sfbench/core";

/** The prefix of each line of a dead target's last words in a failure's message; `npm test` repeats such lines at its end. */
export const SAID = "target said: ";

/** The end of a log without its span lines: at most `chars` characters, whole lines (read from further back while spans fill the end, up to 16 MiB). */
function endWithoutSpans(file: string, chars: number): string {
  const size = statSync(file).size;
  let kept: string[] = [];
  for (let maxBytes = 256 * 1024; ; maxBytes *= 4) {
    const lines = (logEnd(file, maxBytes) ?? "").split("\n");
    // a read that began inside the file began inside a line
    if (size > maxBytes) lines.shift();
    kept = lines.filter((line) => !line.startsWith('{"sfbench":"span"'));
    if (size <= maxBytes || maxBytes >= 16 * 1024 * 1024 || kept.join("\n").length >= chars) break;
  }
  let out = "";
  for (let i = kept.length - 1; i >= 0; i--) {
    const next = out ? `${kept[i]}\n${out}` : kept[i]!;
    if (next.length > chars) return out ? `…${out}` : `…${kept[i]!.slice(-chars)}`;
    out = next;
  }
  return out;
}

/** The last `chars` characters of each file that exists, span lines left out, each under its path (only the file's end is read: a traced target's log can be hundreds of MB). */
export function outputTail(files: readonly string[], chars = 4000): string {
  return [...new Set(files)]
    .filter((file) => existsSync(file))
    .map((file) => `--- the end of ${file} ---\n${endWithoutSpans(file, chars).trimEnd() || "(empty)"}`)
    .join("\n");
}

/** Lines that say why a process ended, whichever system wrote them (a launcher's "<child> exited with", a panic, a fatal error, a signal). */
const ENDING = /exited with|received SIG|\bSIG(TERM|KILL|ABRT|SEGV)\b|panic|fatal|out of memory|OutOfMemoryError|Killed/i;

/**
 * A dead target's last words from each log, span lines left out, each prefixed with SAID: the lines that say why a
 * process ended (up to 4) and the last `count` lines, in the order written. After a child's death its peers' retries
 * fill the log's end, so the cause is usually further up.
 */
function lastWords(files: readonly string[], count: number): string[] {
  return [...new Set(files)]
    .filter((file) => existsSync(file))
    .flatMap((file) => {
      const lines = endWithoutSpans(file, 1_000_000)
        .replace(/^…/, "")
        .split("\n")
        .filter((line) => line.trim());
      const endings = lines.flatMap((line, i) => (ENDING.test(line) ? [i] : [])).slice(-4);
      const last = lines.map((_, i) => i).slice(-count);
      return [...new Set([...endings, ...last])].sort((a, b) => a - b).map((i) => lines[i]!);
    })
    .map((line) => `  ${SAID}${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
}

/**
 * Runs `body`; if it throws, the error's message gains the tail of the files
 * `logs()` names at that moment (the error object is kept, so an assertion's
 * diff still shows). If `stopped()` then says the target is no longer running,
 * the message starts with that and the target's last lines: the first lines of
 * a message are what a truncated CI log keeps.
 */
export async function withOutputOnFailure(
  logs: () => readonly string[],
  body: () => Promise<void>,
  stopped?: () => Promise<string | undefined>,
): Promise<void> {
  try {
    await body();
  } catch (err) {
    let files: readonly string[] = [];
    try {
      files = logs();
    } catch {
      // no state left to name the logs (the target was stopped): the error alone
    }
    if (err instanceof Error) {
      const why = await stopped?.().catch(() => undefined);
      if (why) err.message = [`${why}; the last lines it wrote (span lines left out):`, ...lastWords(files, 4), "", err.message].join("\n");
      const tail = outputTail(files);
      if (tail) err.message = `${err.message}\n\nthe target's output:\n${tail}`;
    }
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
