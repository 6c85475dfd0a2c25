/**
 * A hostile team's image through the worker's pipeline, as a submission
 * would reach it: its archive (the container provider's hostile fixture,
 * built offline and cached, saved under the team's own name) is loaded and
 * run in a container of its run's own; before it serves, its entrypoint
 * tries the portal's PostgreSQL and the worker's queue (Redis), forks until
 * the kernel refuses and writes until its disk does. The run fails with a
 * named reason (it serves no shop, so verify refuses it), its log says
 * nothing answered and the kernel stopped it, and nothing outside it changed: the portal's rows of another system, its accounts, the queue's
 * waiting job, and no container of the run is left.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Job, Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseManifest } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { buildTargetImage, podman, runContainers } from "@sfbench/provider-container";
import { paths, ports, redisUrl } from "@sfbench/services";
import { createRunQueue, enqueueRun, redisConnection, type RunJob } from "../src/queue.ts";
import { BUNDLED_TARGETS, createRun, freshDb, manifestOf, pipelineIn, tempDir, uniqueQueue } from "./helpers.ts";

const FIXTURES = fileURLToPath(new URL("../../../packages/providers/container/test/fixtures", import.meta.url));
/** The run's disk here: small, so that writing past it is quick. */
const QUOTA_MIB = 128;
const quotaBefore = process.env.SFBENCH_RUN_DISK_MIB;
const home = tempDir("sfbench-hostile-image-");
const archive = join(home, "image.tar");
const system = `hostile-${randomUUID().slice(0, 8)}`;
const image = `localhost/${system}:0.0.1`;
let db: Db;
let queue: Queue<RunJob>;

beforeAll(async () => {
  ({ db } = await freshDb());
  queue = createRunQueue(redisConnection(redisUrl()), uniqueQueue());
  process.env.SFBENCH_RUN_DISK_MIB = String(QUOTA_MIB);
  const built = (await buildTargetImage("hostile", { targetsRoot: FIXTURES })).ref;
  await podman(["tag", built, image]);
  await podman(["save", "-o", archive, image], { timeoutMs: 600_000 });
  await podman(["untag", image, image]);
}, 1_200_000);

afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await db?.$disconnect();
  if (quotaBefore === undefined) delete process.env.SFBENCH_RUN_DISK_MIB;
  else process.env.SFBENCH_RUN_DISK_MIB = quotaBefore;
});

describe("a hostile image through the worker", () => {
  it("fails with a named reason and changes nothing outside its run: the portal's rows, its accounts, the queue", async () => {
    // what the portal holds before: another team's system with a completed run, an account, a job waiting in the queue
    const victimRun = await createRun(db, { ...manifestOf(BUNDLED_TARGETS, "node-postgres"), name: "victim" });
    await db.run.update({ where: { id: victimRun }, data: { status: "completed", finishedAt: new Date("2026-12-01T10:00:00Z") } });
    await db.user.create({ data: { email: "operator@example.com", passwordHash: "$argon2id$kept" } });
    const waiting = await createRun(db, { ...manifestOf(BUNDLED_TARGETS, "node-postgres"), name: "waiting" });
    await enqueueRun(queue, waiting);
    const portal = async () => ({
      systems: await db.system.findMany({ where: { slug: { not: system } }, orderBy: { slug: "asc" } }),
      runs: await db.run.findMany({ where: { id: { in: [victimRun, waiting] } }, orderBy: { id: "asc" } }),
      users: await db.user.findMany({ orderBy: { email: "asc" } }),
      queue: (await queue.getJobs(["waiting"])).map((j) => ({ id: j.id, data: j.data })),
    });
    const before = await portal();
    expect(before.queue).toEqual([{ id: waiting, data: { runId: waiting } }]);

    const parsed = parseManifest({
      ...manifestOf(FIXTURES, "hostile"),
      name: system,
      image,
      local: {
        command: ["node", "hostile.mjs"],
        startupTimeoutSeconds: 120,
        env: {
          PROBE_PORTS: JSON.stringify({ "the portal's database": ports.postgres, "the worker's queue": ports.redis }),
          FILL_MAX_MIB: String(2 * QUOTA_MIB),
        },
      },
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const runId = await createRun(db, parsed.manifest);
    const { targetVersionId } = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const team = await db.user.create({ data: { email: "hostile@example.com", passwordHash: "x" } });
    await db.upload.create({
      data: { userId: team.id, kind: "image_archive", sha256: "sha256:0", size: 1, path: archive, references: [image], targetVersionId },
    });

    const pipeline = await pipelineIn(db, home);
    await expect(pipeline({ data: { runId } } as Job<RunJob>)).rejects.toThrow(/^verify: /);
    const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(row.status).toBe("failed");
    expect(row.errorStage).toBe("verify");

    // what it tried, as it printed it (the node's log, kept with the run's raw data): nothing answered, the kernel stopped it
    const log = readFileSync(join(paths.home, "runs", runId, "container-node-0.log"), "utf8");
    const report = JSON.parse(log.split("\n").find((l) => l.startsWith("{"))!) as {
      reached: Record<string, string>;
      forks: { refused?: string };
      disk: { refused?: string };
    };
    expect(Object.keys(report.reached)).toHaveLength(5);
    expect(Object.entries(report.reached).filter(([, how]) => how === "connected")).toEqual([]);
    expect(report.forks.refused).toBe("EAGAIN");
    expect(report.disk.refused).toBe("ENOSPC");
    // nothing outside its run changed, and nothing of it is left
    const after = await portal();
    expect({ ...after, users: after.users.filter((u) => u.id !== team.id) }).toEqual(before);
    expect(await runContainers(runId)).toEqual([]);
    await expect(podman(["image", "exists", image])).rejects.toThrow();
  });
});
