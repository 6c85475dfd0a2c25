/**
 * What `npm test` runs around the tests (scripts/check.mjs, scripts/test-lanes.mjs,
 * scripts/test-times.mjs): every package's types and lint are checked by one
 * of the check's jobs, the target sources that declare their own globals
 * apart; every tested package is in one lane, every package whose tests run
 * podman in the lane that owns the podman storage; and the time table reads
 * the lines turbo and vitest print.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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

describe("the two lanes of the tests", () => {
  const lanes = (lane: string) => {
    const r = node("scripts/test-lanes.mjs", "--filters", lane);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.trim().split("\n");
  };

  it("hold every package with tests once, and every package whose tests run podman in the images lane", () => {
    const images = lanes("images");
    const processes = lanes("processes");
    const tested = workspaces().filter((w) => w.scripts.test);
    const listed = JSON.parse(spawnSync("npm", ["query", ".workspace"], { cwd: ROOT, encoding: "utf8" }).stdout) as {
      name: string;
      location: string;
    }[];
    const dirOf = new Map(listed.map((w) => [w.name, w.location]));
    for (const w of tested) {
      const filter = `--filter=./${dirOf.get(w.name)}`;
      expect([images.includes(filter), processes.includes(filter)].filter(Boolean), w.name).toHaveLength(1);
      const testDir = join(ROOT, dirOf.get(w.name)!, "test");
      const files = (readdirSync(testDir, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
        .filter((f) => f.isFile() && /\.tsx?$/.test(f.name))
        .map((f) => readFileSync(join(f.parentPath, f.name), "utf8"));
      // podman's storage lives under SFBENCH_HOME: a second lane would load every base image again
      if (files.some((text) => /podman|@sfbench\/provider-(container|kubernetes)/.test(text))) expect(images, w.name).toContain(filter);
    }
    expect(images.length).toBeGreaterThan(0);
    expect(processes.length).toBeGreaterThan(images.length);
  });

  it("refuses a lane it does not know, naming the lanes there are", () => {
    const r = node("scripts/test-lanes.mjs", "--filters", "gpu");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("lanes: images, processes");
  });
});

describe("where the test time went", () => {
  it("lists each lane's package test tasks and the slowest files from turbo's summaries and vitest's lines", () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-test-times-"));
    const images = join(dir, "images.json");
    writeFileSync(
      images,
      JSON.stringify({
        tasks: [
          { taskId: "@sfbench/engine#test", execution: { startTime: 0, endTime: 125_000, exitCode: 0 } },
          { taskId: "@sfbench/core#test", execution: { startTime: 0, endTime: 9_500, exitCode: 1 } },
        ],
      }),
    );
    const processes = join(dir, "processes.json");
    writeFileSync(
      processes,
      JSON.stringify({
        tasks: [
          { taskId: "@sfbench/db#test", execution: { startTime: 0, endTime: 40_000, exitCode: 0 } },
          { taskId: "@sfbench/db#generate", execution: { startTime: 0, endTime: 2_000, exitCode: 0 } },
        ],
      }),
    );
    const log = join(dir, "images.log");
    writeFileSync(
      log,
      [
        "@sfbench/engine:test:  \u001b[32m✓\u001b[39m test/knee.test.ts \u001b[2m(\u001b[22m\u001b[2m12 tests\u001b[22m\u001b[2m)\u001b[22m\u001b[33m 61021\u001b[2mms\u001b[22m\u001b[39m",
        "@sfbench/core:test:  ❯ test/stats.test.ts (3 tests | 1 failed) 120ms",
        "@sfbench/core:test:      ✓ a test line, not a file 459ms",
      ].join("\n"),
    );
    const log2 = join(dir, "processes.log");
    writeFileSync(log2, "@sfbench/db:test:  ✓ test/schema.test.ts (2 tests) 39.5s\n");
    const r = node(
      "scripts/test-times.mjs",
      ...["--step", "bootstrap=30", "--step", "checks=119.7", "--step", "tests, two lanes at once=140"],
      ...["--lane", `images=${images}`, "--lane", `processes=${processes}`, "--log", log, "--log", log2],
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    // the whole is the steps' wall time, not the lanes' sum
    expect(lines[0]).toBe("sfbench test: where the time went (4m50s in all)");
    expect(r.stdout).toMatch(/ 30\.0s {2}bootstrap\n/);
    // a time just short of a whole minute rounds up into it, never to "1m60s"
    expect(r.stdout).toMatch(/ 2m00s {2}checks\n/);
    expect(r.stdout).toMatch(/2m15s {2}lane "images", by package:\n +2m05s {2}@sfbench\/engine\n +9\.5s {2}@sfbench\/core {2}\(exit 1\)\n/);
    expect(r.stdout).toMatch(/42\.0s {2}lane "processes", by package:\n +40\.0s {2}@sfbench\/db\n/);
    expect(r.stdout).toMatch(
      /1m01s {2}@sfbench\/engine test\/knee\.test\.ts\n +39\.5s {2}@sfbench\/db test\/schema\.test\.ts\n +0\.1s {2}@sfbench\/core test\/stats\.test\.ts/,
    );
    expect(r.stdout).not.toContain("a test line");
  });
});
