/**
 * The run contract's lists (src/lists.ts) are written out once: every other
 * source file derives them. This test reads the sources of the whole
 * repository and fails on a list typed again by hand (two neighbouring members
 * of one list as string literals, or a hand-written <option> of one).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  cellsOf,
  describeProgress,
  DISTRIBUTION_CHOICES,
  microOf,
  parametersOfChoice,
  WORKLOAD_CHOICES,
  PHASE_STAGE,
  PIPELINE_STAGES,
  ProgressEvent,
  RunParameters,
  stageOf,
} from "../src/contract.ts";
import * as lists from "../src/lists.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const SOURCE_DIRS = ["packages", "apps", "scripts", "infra"];
const SKIP_DIRS = new Set(["node_modules", "test", "tests", "__tests__", "fixtures", "generated", ".next", "dist", "gotest", "target"]);
const HOME = "packages/core/src/lists.ts";

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!SKIP_DIRS.has(name) && !name.startsWith(".")) sources(p, out);
    } else if (/\.(ts|tsx|mts|mjs)$/.test(name) && !/\.test\.tsx?$/.test(name)) out.push(p);
  }
  return out;
}

const LISTS: Record<string, readonly string[]> = {
  WORKLOADS: lists.WORKLOADS,
  DISTRIBUTIONS: lists.DISTRIBUTIONS,
  PROFILES: lists.PROFILES,
  ENVIRONMENT_KINDS: lists.ENVIRONMENT_KINDS,
  PIPELINE_STAGES: lists.PIPELINE_STAGES,
};

/** Where a source file writes two members of one list next to each other as string literals. */
export function handWrittenLists(text: string): string[] {
  const found: string[] = [];
  for (const [name, members] of Object.entries(LISTS)) {
    for (let i = 0; i + 1 < members.length; i++) {
      for (let j = 0; j < members.length; j++) {
        if (i === j) continue;
        const pair = new RegExp(`["'\`]${members[i]}["'\`]\\s*[,|]\\s*["'\`]${members[j]}["'\`]`);
        if (pair.test(text)) found.push(`${name} ("${members[i]}", "${members[j]}")`);
      }
    }
    const options = members.filter((m) => new RegExp(`<option[^>]*value=["']${m}["']`).test(text));
    if (options.length >= 2) found.push(`${name} as <option>s (${options.join(", ")})`);
  }
  return [...new Set(found)];
}

describe("the run contract is written once", () => {
  it("the detector finds a list typed by hand, in arrays, unions and <option>s", () => {
    expect(handWrittenLists(`z.enum(["checkout", "analytics", "contention"])`)).toEqual([
      'WORKLOADS ("checkout", "analytics")',
      'WORKLOADS ("analytics", "contention")',
    ]);
    expect(handWrittenLists(`type D = "uniform" | "zipf";`)).toEqual(['DISTRIBUTIONS ("uniform", "zipf")']);
    expect(handWrittenLists(`<option value="quick">q</option><option value="thesis">t</option>`)).toEqual(["PROFILES as <option>s (quick, thesis)"]);
    expect(handWrittenLists(`const DEMO = { profile: "standard", workload: "checkout", distribution: "uniform" }`)).toEqual([]);
  });

  it("no source file outside src/lists.ts types a list of workloads, distributions, profiles, environments or stages", () => {
    const offenders: string[] = [];
    for (const dir of SOURCE_DIRS) {
      for (const file of sources(join(root, dir))) {
        const rel = relative(root, file);
        if (rel === HOME) continue;
        for (const f of handWrittenLists(readFileSync(file, "utf8"))) offenders.push(`${rel}: ${f}`);
      }
    }
    expect(offenders, "import the list from @sfbench/core (or @sfbench/core/contract in the browser) instead").toEqual([]);
  });
});

describe("the docs' flag table", () => {
  it("lists exactly the choices the CLI takes (docs/running.md)", () => {
    const doc = readFileSync(join(root, "docs/running.md"), "utf8");
    const row = (flag: string) => doc.match(new RegExp(`^\\| \`--${flag}\` \\| ([^|]+) \\|`, "m"))?.[1]?.trim();
    expect(row("workload")).toBe(WORKLOAD_CHOICES.join(", "));
    expect(row("distribution")).toBe(DISTRIBUTION_CHOICES.join(", "));
    expect(row("profile")).toBe(lists.PROFILES.join(", "));
    expect(row("experiment")).toBe(lists.EXPERIMENTS.join(", "));
  });
});

describe("run parameters and cells", () => {
  it("absent lists mean every workload and distribution, workloads outer", () => {
    expect(cellsOf({}).map((c) => `${c.workload}/${c.distribution}`)).toEqual(lists.WORKLOADS.flatMap((w) => lists.DISTRIBUTIONS.map((d) => `${w}/${d}`)));
    expect(cellsOf(parametersOfChoice("checkout", "both"))).toEqual([
      { workload: "checkout", distribution: "uniform" },
      { workload: "checkout", distribution: "zipf" },
    ]);
    expect(parametersOfChoice("all", "zipf")).toEqual({ distributions: ["zipf"] });
    // micro: the microbenchmarks only; all: every workload and the microbenchmarks
    expect(parametersOfChoice("micro", "both")).toEqual({ workloads: [], micro: true });
    expect(cellsOf(parametersOfChoice("micro", "both"))).toEqual([]);
    expect(microOf(parametersOfChoice("all", "both"))).toBe(true);
    expect(microOf(parametersOfChoice("checkout", "both"))).toBe(false);
    expect(RunParameters.safeParse({ workloads: [] }).error?.issues[0]).toMatchObject({
      path: ["workloads"],
      message: expect.stringContaining("unless micro is true"),
    });
  });

  it("refuse an unknown workload, an empty list and unknown fields, naming them", () => {
    const bad = RunParameters.safeParse({ workloads: ["checkout", "nope"], distributions: [], extra: 1 });
    expect(bad.success).toBe(false);
    const paths = bad.error!.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["workloads.1", "distributions", ""]));
  });
});

describe("progress events", () => {
  it("every phase belongs to a pipeline stage", () => {
    for (const stage of Object.values(PHASE_STAGE)) expect(PIPELINE_STAGES).toContain(stage);
    expect(stageOf({ phase: "populate" })).toBe("seed");
    expect(stageOf({ phase: "ramp" })).toBe("load");
    expect(stageOf({ phase: "audit" })).toBe("audit");
  });

  it("are described the same way everywhere: where, what, offered, achieved, p99, errors", () => {
    const e = ProgressEvent.parse({
      cell: "checkout/zipf",
      phase: "ramp",
      detail: "fine step 4 at 150/s",
      offeredRate: 150,
      stepS: 6,
      live: { elapsedS: 3, requests: 900, iterations: 450, dropped: 2, achievedRate: 149.6, failedShare: 0.004, p99Ms: 12.34 },
    });
    expect(describeProgress(e)).toEqual([
      "[checkout/zipf] ramp",
      "fine step 4 at 150/s · offered 150/s",
      "achieved 150/s",
      "p99 12.3 ms",
      "errors 0.4%",
      "dropped 2",
    ]);
    expect(describeProgress({ cell: "-", phase: "seed", detail: "5000 products" })).toEqual(["[all cells] seed", "5000 products"]);
  });
});
