/**
 * What `npm test` runs around the tests (scripts/check.mjs, scripts/test-times.mjs):
 * every package's types and lint are checked by one of the check's jobs, the
 * target sources that declare their own globals apart, and the time table
 * reads the lines turbo and vitest print.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const node = (...args: string[]) => spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 60_000 });

interface Job {
  label: string;
  covers: string[];
  args: string[];
}

function workspaces(): { name: string; scripts: Record<string, string> }[] {
  const { workspaces } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
  const listed = spawnSync("npm", ["query", ".workspace"], { cwd: ROOT, encoding: "utf8" });
  const all = JSON.parse(listed.stdout) as { name: string; scripts?: Record<string, string> }[];
  expect(all.length).toBeGreaterThanOrEqual(workspaces.length);
  return all.map((w) => ({ name: w.name, scripts: w.scripts ?? {} }));
}

describe("the checks before the tests", () => {
  it("check every package that has a typecheck or lint script, each once", () => {
    const r = node("scripts/check.mjs", "--plan");
    expect(r.status, r.stderr).toBe(0);
    const jobs = JSON.parse(r.stdout) as Job[];
    const typed = jobs.filter((j) => j.label.startsWith("types of")).flatMap((j) => j.covers);
    const linted = jobs.filter((j) => j.label.startsWith("lint of")).flatMap((j) => j.covers);
    const packages = workspaces();
    expect(typed.sort()).toEqual(
      packages
        .filter((p) => p.scripts.typecheck)
        .map((p) => p.name)
        .sort(),
    );
    expect(linted.sort()).toEqual(
      packages
        .filter((p) => p.scripts.lint)
        .map((p) => p.name)
        .sort(),
    );
  });

  it("keep the targets whose own source declares globals apart from the shared program, and lint every folder a package names", () => {
    const jobs = JSON.parse(node("scripts/check.mjs", "--plan").stdout) as Job[];
    const joint = jobs.find((j) => j.label.includes("in one program"))!;
    for (const apart of ["@sfbench/target-node-postgres", "@sfbench/target-restate", "@sfbench/web"]) {
      expect(joint.covers).not.toContain(apart);
      expect(jobs.some((j) => j.label === `types of ${apart}`)).toBe(true);
    }
    const lint = jobs.find((j) => j.label.startsWith("lint of"))!;
    expect(lint.args).toEqual(expect.arrayContaining(["packages/workloads/k6", "apps/web/next.config.ts", "packages/core/test"]));
  });
});

describe("where the test time went", () => {
  it("lists each package's test task and the slowest files from turbo's summary and vitest's lines", () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-test-times-"));
    const summary = join(dir, "summary.json");
    writeFileSync(
      summary,
      JSON.stringify({
        tasks: [
          { taskId: "@sfbench/engine#test", execution: { startTime: 0, endTime: 125_000, exitCode: 0 } },
          { taskId: "@sfbench/core#test", execution: { startTime: 0, endTime: 9_500, exitCode: 1 } },
          { taskId: "@sfbench/core#typecheck", execution: { startTime: 0, endTime: 2_000, exitCode: 0 } },
        ],
      }),
    );
    const log = join(dir, "test.log");
    writeFileSync(
      log,
      [
        "@sfbench/engine:test:  \u001b[32m✓\u001b[39m test/knee.test.ts \u001b[2m(\u001b[22m\u001b[2m12 tests\u001b[22m\u001b[2m)\u001b[22m\u001b[33m 61021\u001b[2mms\u001b[22m\u001b[39m",
        "@sfbench/core:test:  ❯ test/stats.test.ts (3 tests | 1 failed) 120ms",
        "@sfbench/core:test:      ✓ a test line, not a file 459ms",
      ].join("\n"),
    );
    const r = node("scripts/test-times.mjs", "--step", "bootstrap=30", "--summary", summary, "--log", log);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("sfbench test: where the time went (2m47s in all)");
    expect(r.stdout).toMatch(/ 30\.0s {2}bootstrap\n/);
    expect(r.stdout).toMatch(/ 2\.0s {2}typecheck the tests waited for\n/);
    expect(r.stdout).toMatch(/2m05s {2}@sfbench\/engine\n +9\.5s {2}@sfbench\/core {2}\(exit 1\)\n/);
    expect(r.stdout).toMatch(/1m01s {2}@sfbench\/engine test\/knee\.test\.ts\n +0\.1s {2}@sfbench\/core test\/stats\.test\.ts/);
    expect(r.stdout).not.toContain("a test line");
  });
});
