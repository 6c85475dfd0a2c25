/**
 * A k6 runner pod's log is its stdout and stderr in one stream: CSV samples
 * (`--out csv=/dev/stdout`: a header line `metric_name,timestamp,...`, then one
 * line per sample) and JSON log lines (`--log-format=json`: console output,
 * i.e. the audit records, and k6's own messages), told apart by the first
 * character. The runners' CSV is merged into one file with one header, so the
 * same analysis as a local run (aggregateK6) reads it; timestamps are absolute,
 * so merging runners that each ran an execution segment gives the whole load.
 */
import { writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

export interface RunnerLog {
  /** the CSV header line */
  header: string;
  /** sample lines, in the order the runner wrote them */
  samples: string[];
  /** JSON log lines (console output and k6 messages) */
  console: string[];
}

export class RunnerLogError extends Error {}

/** a CSV sample line starts with a k6 metric name */
const SAMPLE = /^[a-z_][a-z0-9_]*,/;

export function splitRunnerLog(text: string, pod = "runner"): RunnerLog {
  let header: string | undefined;
  const samples: string[] = [];
  const console: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (!line) continue;
    if (line.startsWith("{")) console.push(line);
    else if (line.startsWith("metric_name,")) {
      if (header !== undefined && header !== line) throw new RunnerLogError(`${pod}: a second, different CSV header in one log`);
      header = line;
    } else if (header !== undefined && SAMPLE.test(line)) samples.push(line);
    else console.push(line); // a plain-text message (a banner, a deprecation warning) is kept with the console, never read as data
  }
  if (header === undefined) {
    const first = text.slice(0, 120).split("\n")[0] ?? "";
    throw new RunnerLogError(
      `${pod}: no k6 CSV header in the runner's log (${text.length} bytes, first line ${JSON.stringify(first)}); ` +
        "k6 did not start, or the kubelet rotated the log away (containerLogMaxSize): raise the node pool's log size or use fewer samples per runner",
    );
  }
  return { header, samples, console };
}

export interface MergedRunnerOutput {
  csvFile: string;
  consoleFile: string;
  samples: number;
  runners: number;
}

/** Writes the runners' CSV as one gzipped file (one header) and their console lines as one log. */
export function writeRunnerOutput(logs: readonly string[], csvFile: string, consoleFile: string): MergedRunnerOutput {
  if (logs.length === 0) throw new RunnerLogError("the TestRun has no runner pods (their logs are gone, or the operator never started them)");
  const parts = logs.map((text, i) => splitRunnerLog(text, `runner ${i + 1}`));
  const header = parts[0]!.header;
  const other = parts.findIndex((p) => p.header !== header);
  if (other >= 0) throw new RunnerLogError(`runner ${other + 1} wrote a different CSV header than runner 1: were they different k6 versions?`);
  const lines = [header, ...parts.flatMap((p) => p.samples)];
  writeFileSync(csvFile, gzipSync(lines.join("\n") + "\n"));
  writeFileSync(consoleFile, parts.flatMap((p) => p.console).join("\n") + "\n");
  return { csvFile, consoleFile, samples: lines.length - 1, runners: parts.length };
}
