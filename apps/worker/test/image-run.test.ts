/**
 * A submitted image runs on this machine: a run whose target version has a
 * stored image archive is not needs_cluster; the worker `podman load`s the
 * archive into the project's podman storage and runs it in a container
 * (@sfbench/provider-container) through the same pipeline as a bundled
 * target: verify, the quick profile, store, teardown. The archive is
 * node-postgres's image (built offline and cached by the container provider)
 * under a tag of this test's own, saved with `podman save` and untagged, so
 * that only loading the archive brings the tag back; submitted under
 * another name.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResult } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { buildTargetImage, podman, runContainers } from "@sfbench/provider-container";
import { readFileSync } from "node:fs";
import type { RunJob } from "../src/queue.ts";
import { BUNDLED_TARGETS, createRun, freshDb, manifestOf, pipelineIn, tempDir } from "./helpers.ts";

// in this package's test port range, away from a bundled node-postgres on its own port
const PORT = 19231;
let db: Db;
let image: string;
const home = tempDir("sfbench-image-run-");
const archive = join(home, "image.tar");

beforeAll(async () => {
  ({ db } = await freshDb());
  const built = (await buildTargetImage("node-postgres")).ref;
  // in the namespace of the system it runs as, as the worker requires of an archive
  image = `localhost/np-from-archive:${randomUUID().slice(0, 8)}`;
  await podman(["tag", built, image]);
  await podman(["save", "-o", archive, image], { timeoutMs: 600_000 });
  await podman(["untag", image, image]);
}, 1_200_000);
afterAll(async () => {
  await podman(["untag", image, image]).catch(() => {});
  await db?.$disconnect();
});

describe("a run of a stored image archive", () => {
  it("loads the archive, runs the image in a container through the pipeline and stores a completed result", async () => {
    await expect(podman(["image", "exists", image])).rejects.toThrow();
    const manifest = { ...manifestOf(BUNDLED_TARGETS, "node-postgres"), name: "np-from-archive", image, port: PORT };
    const runId = await createRun(db, manifest);
    const { targetVersionId } = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const user = await db.user.create({ data: { email: "archive@example.com", passwordHash: "x" } });
    await db.upload.create({
      data: { userId: user.id, kind: "image_archive", sha256: "sha256:0", size: 1, path: archive, references: [image], targetVersionId },
    });

    const pipeline = await pipelineIn(db, home);
    const outcome = await pipeline({ data: { runId } } as Job<RunJob>);
    const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(outcome.status, row.errorMessage ?? "").toBe("completed");
    expect(row.status).toBe("completed");
    const doc = parseResult(readFileSync((outcome as { resultPath: string }).resultPath, "utf8"));
    expect(doc.ok && doc.result.environment.systemVersion).toContain(`image ${image}`);
    expect(await runContainers(runId)).toEqual([]);
    // the team's image lived only as long as its run: the next run loads the archive again
    await expect(podman(["image", "exists", image])).rejects.toThrow();
  });
});
