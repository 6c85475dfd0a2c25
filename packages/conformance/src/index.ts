/**
 * runConformance(url): black-box checks of SPEC 2 over HTTP, so that the
 * same suite checks every target. A check that cannot fail is not a check:
 * test/ runs it against deliberately broken targets.
 */
import { runCheck, type CheckResult } from "./check.ts";
import { Client } from "./client.ts";
import { suite, type SuiteOptions } from "./suite.ts";

export type { CheckResult } from "./check.ts";
export { formatReport, formatFailure } from "./report.ts";
export * from "./micro.ts";
export { MICRO_BAD_CASES } from "./suites/micro.ts";
export {
  OPENAPI_FILE,
  runSchemathesis,
  SCHEMATHESIS_EXCLUSIONS,
  schemathesisArgs,
  type SchemathesisOptions,
  type SchemathesisOutcome,
} from "./schemathesis.ts";

export interface ConformanceReport {
  url: string;
  startedAt: string;
  ms: number;
  passed: number;
  failed: number;
  checks: CheckResult[];
}

export interface ConformanceOptions extends Partial<SuiteOptions> {
  /** per-request timeout */
  timeoutMs?: number;
  /** only run checks whose id starts with one of these (e.g. "checkout", "analytics.cycle") */
  only?: string[];
  /** called after each check, for progress output */
  onCheck?: (result: CheckResult, done: number, total: number) => void;
  /** the whole suite's time budget; checks not started by then fail as not run (default 10 min) */
  budgetMs?: number;
}

/** How many checks the suite has (for progress bars). */
export function countChecks(opts: ConformanceOptions = {}): number {
  return plan(opts).length;
}

function plan(opts: ConformanceOptions) {
  const groups = suite({ quietMs: opts.quietMs ?? 10_000, micro: opts.micro ?? false });
  return groups
    .flatMap(({ group, checks }) => checks.map((check) => ({ group, check })))
    .filter(({ group, check }) => !opts.only?.length || opts.only.some((o) => `${group}.${check.id}`.startsWith(o)));
}

export async function runConformance(url: string, opts: ConformanceOptions = {}): Promise<ConformanceReport> {
  const base = url.replace(/\/+$/, "");
  const client = new Client(base, opts.timeoutMs ?? 10_000);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const checks = plan(opts);
  const results: CheckResult[] = [];
  const deadline = performance.now() + (opts.budgetMs ?? 600_000);
  let notRun: string | undefined;
  for (const { group, check } of checks) {
    const result = notRun
      ? { id: `${group}.${check.id}`, group, title: check.title, passed: false, ms: 0, message: notRun }
      : await runCheck(group, check, client);
    results.push(result);
    opts.onCheck?.(result, results.length, checks.length);
    // a target that is not healthy fails everything else at once, without a timeout per check
    if (!notRun && group === "health" && !result.passed) notRun = `not run: the target's /health did not answer 200 (${result.message})`;
    if (!notRun && performance.now() > deadline) notRun = `not run: the suite's time budget of ${Math.round((opts.budgetMs ?? 600_000) / 1000)} s ran out`;
  }
  const failed = results.filter((r) => !r.passed).length;
  return { url: base, startedAt, ms: performance.now() - started, passed: results.length - failed, failed, checks: results };
}
