/**
 * schemathesis (property-based tests from docs/openapi.json) against a running
 * target, with every check it has except the documented exclusions below. It
 * complements the conformance suite: the suite checks SPEC 2's semantics, this
 * checks that the generated document and the target's behaviour agree on
 * every status code, body and schema, for inputs nobody wrote down.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface SchemathesisExclusion {
  check: string;
  reason: string;
}

/** The checks of `--checks all` that are left out, and why. docs/conformance.md lists them. */
export const SCHEMATHESIS_EXCLUSIONS: readonly SchemathesisExclusion[] = [
  {
    check: "unsupported_method",
    reason:
      "SPEC 2 lets a target answer a method that a path does not have (TRACE, QUERY, DELETE, ...) with any 4xx: 404 or 405, or 400 where the gateway refuses the request before routing it. Gateways that route on method and path together cannot tell the cases apart; schemathesis wants 405 with an Allow header.",
  },
];

export const OPENAPI_FILE = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));

export interface SchemathesisOptions {
  /** the schemathesis command (`schemathesisPath()` of @sfbench/services installs the pinned one) */
  bin: string;
  /** the target's base URL */
  url: string;
  /** default docs/openapi.json */
  openapi?: string;
  /** test cases per operation and phase; default 25 (CI-sized) */
  maxExamples?: number;
  /** default 1: the same cases every run */
  seed?: number;
  timeoutMs?: number;
}

export interface SchemathesisOutcome {
  passed: boolean;
  /** the failure kinds schemathesis reported, e.g. "ST103 Undocumented status code: 2" */
  failures: string[];
  /** the FAILURES section (each failing request with a curl line to reproduce it), or the whole output */
  report: string;
  args: string[];
}

export function schemathesisArgs(opts: SchemathesisOptions): string[] {
  return [
    "run",
    opts.openapi ?? OPENAPI_FILE,
    "--url",
    opts.url,
    "--checks",
    "all",
    ...(SCHEMATHESIS_EXCLUSIONS.length ? ["--exclude-checks", SCHEMATHESIS_EXCLUSIONS.map((e) => e.check).join(",")] : []),
    "--max-examples",
    String(opts.maxExamples ?? 25),
    "--seed",
    String(opts.seed ?? 1),
    "--generation-database",
    "none",
    "--no-color",
  ];
}

/** Runs schemathesis against `url`; resolves with what failed (never rejects for failed checks). */
export function runSchemathesis(opts: SchemathesisOptions): Promise<SchemathesisOutcome> {
  const args = schemathesisArgs(opts);
  // schemathesis keeps replay data in its working directory: a scratch one, removed afterwards
  const cwd = mkdtempSync(join(tmpdir(), "sfbench-schemathesis-"));
  return new Promise<SchemathesisOutcome>((resolve, reject) => {
    const child = spawn(opts.bin, args, { cwd, stdio: ["ignore", "pipe", "pipe"], timeout: opts.timeoutMs ?? 300_000, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d));
    child.stderr.on("data", (d: Buffer) => (output += d));
    child.once("error", (e) => reject(new Error(`${opts.bin} did not start: ${e.message}`)));
    child.once("close", (code, signal) => {
      const failures = [...output.matchAll(/^\s*❌ (ST\d+ [^\n]*?: \d+)\s*$/gm)].map((m) => m[1]!);
      const passed = code === 0 && !signal;
      const section = output.indexOf("= FAILURES =");
      const report = section >= 0 ? output.slice(output.lastIndexOf("\n", section) + 1) : output;
      if (!passed && failures.length === 0) failures.push(signal ? `schemathesis was killed by ${signal}` : `schemathesis exited with code ${code}`);
      resolve({ passed, failures, report, args });
    });
  }).finally(() => rmSync(cwd, { recursive: true, force: true }));
}
