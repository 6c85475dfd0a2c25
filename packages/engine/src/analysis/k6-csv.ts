/**
 * Streaming reader of k6's CSV output (`--out csv=<file>[.gz]`).
 *
 * What k6 v1.x writes (checked against k6 v1.8.1):
 * - the header lists only the system tags that are enabled (`systemTags`), in
 *   k6's fixed order, then `extra_tags,metadata`; columns are found by name;
 * - `timestamp` is when the sample was emitted, which for HTTP samples is the
 *   end of the request; its unit depends on K6_CSV_TIME_FORMAT: `unix`
 *   (seconds, the default), `unix_milli`, `unix_micro`, `unix_nano`,
 *   `rfc3339`, `rfc3339_nano`. All are read; use unix_milli (or finer);
 * - `extra_tags` is `k=v&k2=v2` with no escaping and in no stable order, so a
 *   tag value must not contain `&` (a value containing `=` is kept whole);
 * - fields containing a comma or quote are CSV-quoted.
 * Gzip is detected from the file's first bytes, not from its name.
 */
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

export interface K6Sample {
  metric: string;
  /** epoch milliseconds; for HTTP samples the end of the request */
  timeMs: number;
  /** ms for time metrics (http_req_duration), 1 for counters, 0/1 for rates */
  value: number;
  /** HTTP status; 0 for a timeout or connection error; null when the sample has none */
  status: number | null;
  scenario: string;
  /** k6's expected_response tag; null when the sample has none */
  expected: boolean | null;
  /** extra_tags plus every other non-empty system tag column (method, error_code, ...) */
  tags: Record<string, string>;
}

export interface K6CsvOptions {
  /** only samples of these metrics are parsed (the rest is skipped cheaply); default: all */
  metrics?: Iterable<string>;
}

export interface K6CsvStats {
  lines: number;
  samples: number;
}

/** Milliseconds from a k6 timestamp in any K6_CSV_TIME_FORMAT. */
export function parseK6Timestamp(text: string): number {
  const n = text === "" ? NaN : Number(text);
  if (Number.isFinite(n)) {
    if (n < 1e11) return n * 1000; // unix seconds (until year 5138)
    if (n < 1e14) return n; // unix_milli
    if (n < 1e17) return n / 1e3; // unix_micro
    return n / 1e6; // unix_nano (a double keeps it to about 0.3 us)
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new Error(`not a k6 timestamp: ${JSON.stringify(text)}`);
  // Date.parse keeps milliseconds only; rfc3339_nano's fraction below that is dropped
  return ms;
}

/** `op=checkout&cart_size=3` -> {op: "checkout", cart_size: "3"}. */
export function parseExtraTags(text: string, into: Record<string, string> = {}): Record<string, string> {
  if (!text) return into;
  for (const pair of text.split("&")) {
    const eq = pair.indexOf("=");
    if (eq > 0) into[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return into;
}

/** Splits one CSV line (RFC 4180 quoting, no embedded newlines). */
export function splitCsvLine(line: string): string[] {
  if (!line.includes('"')) return line.split(",");
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let field = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quoted field in CSV line: ${line.slice(0, 200)}`);
        field += line.slice(i, q);
        if (line[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      out.push(field);
      i++; // the comma
    } else {
      const c = line.indexOf(",", i);
      const end = c < 0 ? line.length : c;
      out.push(line.slice(i, end));
      i = end + 1;
    }
  }
  return out;
}

const CORE_COLUMNS = new Set(["metric_name", "timestamp", "metric_value", "status", "scenario", "expected_response", "extra_tags", "metadata"]);

/** Makes a parser for the lines that follow a header line; it returns null for skipped metrics. */
export function k6LineParser(header: string, options: K6CsvOptions = {}): (line: string) => K6Sample | null {
  const columns = splitCsvLine(header.trim());
  const col = (name: string) => columns.indexOf(name);
  const [iTime, iValue] = [col("timestamp"), col("metric_value")];
  if (col("metric_name") !== 0 || iTime < 0 || iValue < 0)
    throw new Error(`not a k6 CSV header (want metric_name,timestamp,metric_value,...): ${header.slice(0, 200)}`);
  const [iStatus, iScenario, iExpected, iExtra] = [col("status"), col("scenario"), col("expected_response"), col("extra_tags")];
  const other = columns.map((name, i) => [name, i] as const).filter(([name]) => !CORE_COLUMNS.has(name));
  const wanted = options.metrics ? new Set(options.metrics) : null;

  return (line) => {
    const comma = line.indexOf(",");
    if (comma <= 0) return null;
    const metric = line.slice(0, comma);
    if (wanted && !wanted.has(metric)) return null;
    const f = splitCsvLine(line);
    const status = iStatus >= 0 ? f[iStatus] : undefined;
    const expected = iExpected >= 0 ? f[iExpected] : undefined;
    const tags: Record<string, string> = {};
    for (const [name, i] of other) {
      const v = f[i];
      if (v) tags[name] = v;
    }
    if (iExtra >= 0) parseExtraTags(f[iExtra] ?? "", tags);
    return {
      metric,
      timeMs: parseK6Timestamp(f[iTime] ?? ""),
      value: Number(f[iValue]),
      status: status ? Number(status) : null,
      scenario: (iScenario >= 0 ? f[iScenario] : undefined) ?? "",
      expected: expected === "true" ? true : expected === "false" ? false : null,
      tags,
    };
  };
}

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, "r");
  try {
    const { bytesRead, buffer } = await fh.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

/** Calls onLine for every line of a (possibly gzipped) text file, streaming. */
export async function forEachLine(path: string, onLine: (line: string) => void): Promise<number> {
  const file = createReadStream(path, { highWaterMark: 1 << 20 });
  const stream: Readable = (await isGzip(path)) ? file.pipe(createGunzip({ chunkSize: 1 << 20 })) : file;
  file.on("error", (e) => stream.destroy(e));
  stream.setEncoding("utf8");
  let rest = "";
  let lines = 0;
  for await (const chunk of stream as AsyncIterable<string>) {
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      lines++;
      onLine(text.slice(start, end));
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest) {
    lines++;
    onLine(rest.endsWith("\r") ? rest.slice(0, -1) : rest);
  }
  return lines;
}

/** Streams a k6 CSV file (gzipped or not) and calls onSample for each kept sample; memory stays bounded. */
export async function streamK6Csv(path: string, onSample: (s: K6Sample) => void, options: K6CsvOptions = {}): Promise<K6CsvStats> {
  let parse: ((line: string) => K6Sample | null) | undefined;
  let samples = 0;
  const lines = await forEachLine(path, (line) => {
    if (!parse) {
      parse = k6LineParser(line, options);
      return;
    }
    if (!line) return;
    const s = parse(line);
    if (s) {
      samples++;
      onSample(s);
    }
  });
  if (!parse) throw new Error(`${path}: empty file, not k6 CSV output`);
  return { lines, samples };
}

/** Parses the whole text of a small k6 CSV file (tests, fixtures). */
export function parseK6Csv(text: string, options: K6CsvOptions = {}): K6Sample[] {
  const [header = "", ...lines] = text.split(/\r?\n/);
  const parse = k6LineParser(header, options);
  return lines.flatMap((line) => (line ? (parse(line) ?? []) : []));
}
