/**
 * Runs that need a cluster, through the worker's one pipeline on the real
 * database: without a cluster a run stays needs_cluster with the reason the
 * run page shows; with one (here the kubernetes provider over a fake Pulumi
 * workspace and a fake API server whose runners are the real k6, against a
 * target on loopback) the run goes through the same stages as a local run,
 * verify and the engine's phases included, and its result is stored and
 * judged like a local run's; runs whose stacks the start-up sweep destroyed
 * end as interrupted.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseManifest } from "@sfbench/core";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import type { Db } from "@sfbench/db";
import { runNamespace } from "@sfbench/infra-pulumi/config";
import { podman } from "@sfbench/provider-container";
import {
  clusterTargetProvider,
  createKubePlayPlace,
  k6Archive,
  kubePlayHome,
  StackOwners,
  type ClusterEnv,
  type ClusterPlace,
} from "@sfbench/provider-kubernetes";
import { k6Path } from "@sfbench/services";
import { FakeCluster, FakeStacks } from "../../../packages/providers/kubernetes/test/cluster-fakes.ts";
import type { RunJob } from "../src/queue.ts";
import { interruptSweptRuns } from "../src/sweep.ts";
import { BUNDLED_TARGETS, createRun, freshDb, keyPaths, manifestOf, pipelineIn, tempDir } from "./helpers.ts";

let db: Db;
let target: MemoryTarget;
// a submitted image that is not bundled: node-postgres's manifest under another name, without micro routes (the loopback stand-in has none)
const parsed = parseManifest({
  ...manifestOf(BUNDLED_TARGETS, "node-postgres"),
  name: "orleans",
  system: "Orleans",
  image: "ghcr.io/example/orleans:0.1.0",
  micro: false,
});
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const manifest = parsed.manifest;

beforeAll(async () => {
  ({ db } = await freshDb());
  target = await startMemoryTarget();
}, 120_000);

afterAll(async () => {
  await target?.close();
  await db?.$disconnect();
});

const env: ClusterEnv = {
  cluster: { kind: "kubeconfig", kubeconfig: "apiVersion: v1\nkind: Config\nclusters: []\n" },
  kubeconfigPath: "/dev/null",
  machineType: "kind",
  maxNodes: 4,
  k6Parallelism: 1,
  pulumiPassphrase: "",
  kubectl: "kubectl",
};

const pipelineWith = (cluster: ClusterPlace | undefined) => pipelineIn(db, tempDir("sfbench-cluster-runs-"), cluster ? { cluster } : {});

describe("a run of a submitted image whose archive retention removed", () => {
  it("fails at provision naming the setting and what to do, before anything is started", async () => {
    // a version of its own: the other runs here are of a version with no archive
    const runId = await createRun(db, { ...manifest, version: "0.1.1" });
    const { targetVersionId } = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const user = await db.user.create({ data: { email: `pruned-${randomUUID().slice(0, 8)}@example.com`, passwordHash: "x" } });
    const prunedAt = new Date("2026-11-30T12:00:00Z");
    await db.upload.create({
      data: { userId: user.id, kind: "image_archive", sha256: "sha256:0", size: 1, path: "/nonexistent/image.tar", references: [], targetVersionId, prunedAt },
    });
    await expect((await pipelineWith(undefined))({ data: { runId } } as Job<RunJob>)).rejects.toThrow(/was removed on 2026-11-30/);
    const row = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, errorMessage: true, errorStage: true } });
    expect(row).toEqual({
      status: "failed",
      errorStage: "provision",
      errorMessage:
        "the image archive of orleans 0.1.1 was removed on 2026-11-30 by the portal's retention (SFBENCH_KEEP_IMAGE_ARCHIVES: the newest versions' archives are kept); submit this version again with the same archive, or a newer version",
    });
  });
});

describe("a run that needs a cluster", () => {
  it("stays needs_cluster, saying this server has no cluster configured, when the worker has none", async () => {
    const runId = await createRun(db, manifest, { environmentKind: "kubernetes" });
    const out = await (await pipelineWith(undefined))({ data: { runId } } as Job<RunJob>);
    expect(out.status).toBe("needs-cluster");
    const row = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, errorMessage: true, stage: true } });
    expect(row.status).toBe("needs_cluster");
    expect(row.stage).toBeNull();
    expect(row.errorMessage!.startsWith(`this server has no cluster configured: image ${manifest.image} runs only on Kubernetes`)).toBe(true);
  });

  it(
    "goes through the same pipeline as a local run when the worker has one: verified, measured by the engine's phases, stored and judged",
    { timeout: 600_000 },
    async () => {
      const runId = await createRun(db, manifest, { environmentKind: "kubernetes" });
      const k6 = await k6Path();
      const stacks = new FakeStacks();
      const cluster = new FakeCluster(target.url, k6);
      stacks.onLoad = (config) => cluster.startRunner(config);
      const owners = new StackOwners(join(tempDir("sfbench-owners-"), "owners"));
      const asked: unknown[] = [];
      const place: ClusterPlace = {
        describe: "a fake cluster",
        provider: (run) => (
          asked.push(run),
          clusterTargetProvider({ env, stacks, cluster, owners, k6, archive: (script, e) => k6Archive(k6, script, e), pollMs: 50, controlPollMs: 200 }, run)
        ),
        sweep: async () => [],
      };
      const out = await (await pipelineWith(place))({ data: { runId } } as Job<RunJob>);
      const row = await db.run.findUniqueOrThrow({
        where: { id: runId },
        select: { status: true, stage: true, progress: true, errorMessage: true, document: { select: { document: true } }, cells: true },
      });
      expect(out.status, row.errorMessage ?? "").toBe("completed");
      expect(asked).toEqual([{ runId, manifest, nodes: 1, bundled: false }]);
      expect(row).toMatchObject({ status: "completed", stage: null, progress: 100 });
      const doc = row.document!.document as { environment: { kind: string; nodes: number; machineType: string; cost?: { source: string } }; cells: unknown[] };
      expect(doc.environment).toMatchObject({ kind: "kubernetes", nodes: 1, machineType: "kind", cost: { source: "cgroup" } });
      // judged at import by the same rule as every cell: a quick profile's knee is never ranked, and the reason says so
      expect(row.cells).toHaveLength(1);
      expect(row.cells[0]!.ranked).toBe(false);
      expect(row.cells[0]!.unrankedBecause).toMatch(/knee|invalid/);
      expect(stacks.stacks.size).toBe(0);
      expect(cluster.closed).toBe(1);
    },
  );
});

describe("a run for Kubernetes on a worker that plays the cluster here (SFBENCH_KUBE_PLAY=1)", () => {
  it(
    "runs the bundled target's cluster program as pods, k6 as its runner pods, through the same pipeline, removes every pod, and writes the document a local run of it writes",
    { timeout: 900_000 },
    async () => {
      const np = manifestOf(BUNDLED_TARGETS, "node-postgres");
      const runId = await createRun(db, np, { environmentKind: "kubernetes" });
      const out = await (await pipelineWith(createKubePlayPlace({ maxNodes: 1 })))({ data: { runId } } as Job<RunJob>);
      const row = await db.run.findUniqueOrThrow({
        where: { id: runId },
        select: { status: true, errorMessage: true, document: { select: { document: true } }, cells: true },
      });
      expect(out.status, row.errorMessage ?? "").toBe("completed");
      const doc = row.document!.document as {
        environment: { kind: string; machineType: string; systemVersion: string };
        cells: Array<{ maxThroughput?: { steps: unknown[] } }>;
      };
      expect(doc.environment).toMatchObject({ kind: "kubernetes", machineType: "kind" });
      expect(doc.environment.systemVersion).toContain("podman kube play");
      expect(doc.cells[0]!.maxThroughput!.steps.length).toBeGreaterThan(1);
      expect(row.cells[0]!.ranked).toBe(false);
      expect(existsSync(join(kubePlayHome(), runId))).toBe(false);
      expect((await podman(["pod", "ps", "--filter", `name=^${runNamespace(runId)}-`, "--format", "{{.Name}}"])).stdout.trim()).toBe("");

      // the same target run as processes through the same pipeline writes a document with the same fields, but for
      // where it ran: a cluster's machine type, a machine's split of its cores between generator and target
      const localId = await createRun(db, np);
      const local = await (await pipelineWith(undefined))({ data: { runId: localId } } as Job<RunJob>);
      const localRow = await db.run.findUniqueOrThrow({ where: { id: localId }, select: { errorMessage: true, document: { select: { document: true } } } });
      expect(local.status, localRow.errorMessage ?? "").toBe("completed");
      const localDoc = localRow.document!.document as Record<string, unknown>;
      const place = new Set([".environment.machineType", ".environment.cpuSplit", ".environment.cpuSplit.generator", ".environment.cpuSplit.target"]);
      // a cell's figures depend on what the machine allowed (a missed stable rate has no stable part): compared apart from the cells
      const shape = (d: Record<string, unknown>) => keyPaths({ ...d, cells: undefined }).filter((k) => !k.startsWith(".cells") && !place.has(k));
      expect(shape(doc as unknown as Record<string, unknown>)).toEqual(shape(localDoc));
      // both count the target's own PostgreSQL in its cost, from the same source: the played pods' processes are this machine's
      type Env = { cost?: { source: string }; storage?: { postgres?: Record<string, string> } };
      const storage = (e: Env) => ({ ...e.storage?.postgres, version: undefined });
      const [played, processes] = [doc.environment as unknown as Env, localDoc.environment as Env];
      expect(storage(played)).toEqual(storage(processes));
      expect(storage(played)).toMatchObject({ instance: "dedicated", fsync: "on", synchronous_commit: "on" });
      expect(played.cost).toEqual(processes.cost);
      expect(played.cost).toEqual({ source: "process-tree" });
    },
  );
});

describe("runs whose cluster stacks the sweep destroyed", () => {
  it("end as interrupted during their stage when still running, and keep their outcome when they already ended", async () => {
    const [lost, done] = [await createRun(db, manifest, { environmentKind: "kubernetes" }), await createRun(db, manifest, { environmentKind: "kubernetes" })];
    await db.run.update({ where: { id: lost }, data: { status: "running", stage: "load", startedAt: new Date() } });
    await db.run.update({ where: { id: done }, data: { status: "completed", finishedAt: new Date() } });

    const ended = await interruptSweptRuns(db, [lost, done, randomUUID()]);
    expect(ended).toEqual([lost]);
    expect(await db.run.findUnique({ where: { id: lost }, select: { status: true, stage: true, errorStage: true, errorMessage: true } })).toEqual({
      status: "interrupted",
      stage: null,
      errorStage: "load",
      errorMessage: "worker lost during load: its cluster stack was destroyed by the start-up sweep",
    });
    expect((await db.run.findUnique({ where: { id: done }, select: { status: true } }))!.status).toBe("completed");
    // idempotent
    expect(await interruptSweptRuns(db, [lost])).toEqual([]);
  });
});
