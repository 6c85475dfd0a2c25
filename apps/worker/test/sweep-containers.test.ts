/**
 * The start-up sweep removes what a lost container run left: its labelled
 * containers and its state directory (the node logs kept with the run's raw
 * files), and ends the run as interrupted. The sweep of one lost run is called
 * directly with a lock record of a dead worker, so the test never touches the
 * machine's run lock, which other workers on this machine may hold.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@sfbench/db";
import { containerName, DEBIAN_BASE, ensureBaseImages, ensurePodman, podman, RUN_LABEL, runContainers, teardownRun } from "@sfbench/provider-container";
import { paths } from "@sfbench/services";
import { sweepLostRun } from "../src/sweep.ts";
import { createRun, FIXTURE_TARGETS, freshDb, manifestOf } from "./helpers.ts";

let db: Db;
let runId: string;

beforeAll(async () => {
  ({ db } = await freshDb());
  await ensurePodman();
  // the first run on a fresh checkout builds the Debian stand-in (minutes)
  await ensureBaseImages();
}, 1_200_000);

afterAll(async () => {
  if (runId) {
    await teardownRun(runId);
    rmSync(join(paths.home, "runs", runId), { recursive: true, force: true });
  }
  await db?.$disconnect();
});

/** A pid no process has: the lost worker's. */
function deadPid(): number {
  for (let pid = 4_000_000; ; pid--) if (!existsSync(`/proc/${pid}`)) return pid;
}

describe("the start-up sweep of a lost container run", () => {
  it("removes the run's containers and state, keeps its node log, and ends the run as interrupted", async () => {
    runId = await createRun(db, manifestOf(FIXTURE_TARGETS, "good"));
    await db.run.update({ where: { id: runId }, data: { status: "running", stage: "load" } });
    // what startContainerTarget leaves while it runs: a labelled container named after the run, a state directory, a node log
    const dir = join(paths.home, "containers", runId);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "node-0.log"), "node 0 was here\n");
    await podman([
      "run",
      "--detach",
      "--name",
      containerName(runId, 0),
      "--label",
      `${RUN_LABEL}=${runId}`,
      "--network=none",
      DEBIAN_BASE,
      "sleep",
      "infinity",
    ]);
    expect(await runContainers(runId)).toEqual([containerName(runId, 0)]);

    const report = await sweepLostRun(db, { pid: deadPid(), runId, target: "good", startedAt: new Date().toISOString() });

    expect(report.run).toBe(runId);
    expect(report.containersRemoved).toEqual([containerName(runId, 0)]);
    expect(await runContainers(runId)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(paths.home, "runs", runId, "container-node-0.log"), "utf8")).toBe("node 0 was here\n");
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe("interrupted");
    expect(run.errorMessage).toMatch(/worker lost during load/);
  });
});
