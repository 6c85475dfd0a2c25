/** Human-readable output of a conformance report: a table, then the failures in full. */
import type { ConformanceReport } from "./index.ts";
import type { CheckResult } from "./check.ts";

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 3) + "..." : s);

export function formatFailure(r: CheckResult): string {
  const lines = [`FAIL ${r.id}: ${r.title}`, `  ${r.message ?? ""}`];
  const x = r.exchange;
  if (x) {
    lines.push(`  request:  ${x.method} ${x.path}${x.requestBody !== undefined ? ` ${clip(x.requestBody, 300)}` : ""}`);
    lines.push(`  response: ${x.status || "(none)"} ${clip(x.responseBody.replace(/\s+/g, " "), 300)}`);
  }
  return lines.join("\n");
}

export function formatReport(report: ConformanceReport, opts: { color?: boolean } = {}): string {
  const paint = (code: number, s: string) => (opts.color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const idWidth = Math.min(48, Math.max(...report.checks.map((r) => r.id.length), 5));
  const rows = report.checks.map(
    (r) =>
      `${r.id.padEnd(idWidth)}  ${r.passed ? paint(32, "pass") : paint(31, "FAIL")}  ${String(Math.round(r.ms)).padStart(5)} ms  ${clip(r.passed ? r.title : (r.message ?? ""), 100)}`,
  );
  const header = `${"check".padEnd(idWidth)}  ${"result"}  ${"time".padStart(8)}  detail`;
  const failures = report.checks.filter((r) => !r.passed).map(formatFailure);
  const summary = `${report.passed} passed, ${report.failed} failed (${report.checks.length} checks against ${report.url} in ${(report.ms / 1000).toFixed(1)} s)`;
  return [header, "-".repeat(header.length + 40), ...rows, "", ...(failures.length ? [...failures, ""] : []), summary].join("\n");
}
