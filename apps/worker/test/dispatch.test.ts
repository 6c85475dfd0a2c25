/**
 * The worker process as the portal uses it: the portal only writes a queued
 * Run row; the worker's dispatcher queues it, the pipeline runs it. SIGTERM
 * stops the worker cleanly. A worker without a cluster to play never loads
 * the cluster program's renderer (Pulumi's SDK: seconds of every start).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@sfbench/db";
import { createRun, FIXTURE_TARGETS, freshDb, manifestOf, startWorkerProcess, tempDir, uniqueQueue, waitFor } from "./helpers.ts";

let db: Db;
let url: string;

beforeAll(async () => {
  ({ db, url } = await freshDb());
});
afterAll(() => db.$disconnect());

describe("the worker process", () => {
  it("runs a run the portal only wrote to the database, then stops on SIGTERM, and never loads Pulumi's SDK", async () => {
    const runId = await createRun(db, manifestOf(FIXTURE_TARGETS, "good"));
    const imports = join(tempDir("sfbench-dispatch-imports-"), "imports.log");
    const recorder = fileURLToPath(new URL("../../../scripts/lib/record-imports.mjs", import.meta.url));
    const worker = startWorkerProcess({
      DATABASE_URL: url,
      SFBENCH_QUEUE: uniqueQueue(),
      SFBENCH_RESULTS_DIR: tempDir("sfbench-dispatch-"),
      SFBENCH_TARGETS_DIR: FIXTURE_TARGETS,
      SFBENCH_IMPORTS_LOG: imports,
      NODE_OPTIONS: `--import ${recorder}`,
    });
    try {
      const run = await waitFor(
        "the run to finish",
        async () => {
          const r = await db.run.findUniqueOrThrow({ where: { id: runId } });
          return r.status === "completed" || r.status === "failed" ? r : undefined;
        },
        120_000,
        200,
      );
      expect(run.status, run.errorMessage ?? worker.output()).toBe("completed");
      expect(worker.output()).toMatch(/dispatcher: queued 1 run\(s\)/);
    } finally {
      const exited = new Promise<number | null>((r) => worker.child.once("exit", (code) => r(code)));
      worker.child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(worker.output()).toMatch(/SIGTERM: interrupting the current run \(it ends as interrupted\), then stopping/);
    }
    const loaded = readFileSync(imports, "utf8").split("\n");
    // the recorder saw the worker's own graph, the run's pipeline included...
    expect(loaded.some((u) => u.includes("/apps/worker/src/pipeline.ts"))).toBe(true);
    // ...and nothing of the renderer, which only a worker that plays cluster runs needs (where plays are kept, it may know)
    const renderer = /\/node_modules\/@pulumi\/|\/infra\/pulumi\/src\/render|\/providers\/kubernetes\/src\/kube-play\/(?!home\.ts$)/;
    expect(loaded.filter((u) => renderer.test(u))).toEqual([]);
  });
});
