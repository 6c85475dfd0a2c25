/**
 * The pipeline's needs-cluster branch and the sweep's follow-up on the real
 * database: without a cluster a run stays needs_cluster with the reason the
 * run page shows; with one (here the provider over a fake workspace and a
 * fake cluster) it runs, and its result is stored like a local run's; runs
 * whose stacks the start-up sweep destroyed end as interrupted.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manifestDigest } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { interruptSweptRuns, runNeedingCluster, runOnCluster, StackOwners, type ClusterEnv, type ClusterProvider } from "../src/kubernetes/index.ts";
import { BUNDLED_TARGETS, createRun, freshDb, manifestOf, tempDir } from "./helpers.ts";
import { CSV_HEADER, FakeCluster, FakeStacks, rampCsv } from "./kubernetes-fakes.ts";

let db: Db;
const manifest = manifestOf(BUNDLED_TARGETS, "node-postgres");

beforeAll(async () => {
  ({ db } = await freshDb());
}, 120_000);

afterAll(async () => {
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

const input = (runId: string) => ({
  runId,
  manifest,
  manifestDigest: manifestDigest(manifest),
  nodes: 1,
  profile: "quick" as const,
  cells: [{ workload: "checkout" as const, distribution: "uniform" as const }],
  seed: 3,
});

describe("the needs-cluster branch", () => {
  it("keeps the run needs_cluster, saying this server has no cluster configured, when the worker has none", async () => {
    const runId = await createRun(db, manifest, { environmentKind: "kubernetes" });
    const out = await runNeedingCluster(db, undefined, input(runId));
    expect(out.status).toBe("needs-cluster");
    const row = await db.run.findUniqueOrThrow({ where: { id: runId }, select: { status: true, errorMessage: true, stage: true } });
    expect(row.status).toBe("needs_cluster");
    expect(row.stage).toBeNull();
    expect(row.errorMessage!.startsWith(`this server has no cluster configured: image ${manifest.image} runs only on Kubernetes`)).toBe(true);
  });

  it("runs it on the cluster when the worker has one, and stores its result like a local run's", async () => {
    const runId = await createRun(db, manifest, { environmentKind: "kubernetes" });
    const stacks = new FakeStacks();
    const cluster = new FakeCluster();
    cluster.logsOf = (tr) => (tr.endsWith("-ramp") ? [rampCsv([40, 120, 360], 2, 1000)] : [`${CSV_HEADER}\n`]);
    const home = tempDir("sfbench-branch-");
    const owners = new StackOwners(join(home, "owners"));
    const seenStages: string[] = [];
    const provider: ClusterProvider = {
      run: (run, o) =>
        runOnCluster(
          {
            env,
            stacks,
            cluster,
            owners,
            k6: "k6",
            repoRoot: home,
            resultsDir: join(home, "results"),
            rawRoot: join(home, "runs"),
            archive: async () => "YQ==",
            pollMs: 1,
            ...o,
            verify: async () => ({ failed: 0, checks: [] }),
            onStage: (s, p) => (seenStages.push(s), o.onStage?.(s, p)),
          },
          run,
        ),
      sweep: async () => ({ destroyed: [], skipped: [], failed: {} }),
    };
    const out = await runNeedingCluster(db, provider, input(runId));
    expect(out.status).toBe("completed");
    expect(seenStages).toEqual(["provision", "verify", "seed", "load", "store", "teardown"]);
    const row = await db.run.findUniqueOrThrow({
      where: { id: runId },
      select: { status: true, stage: true, progress: true, document: { select: { document: true } } },
    });
    expect(row).toMatchObject({ status: "completed", stage: null, progress: 100 });
    const doc = row.document!.document as {
      environment: { kind: string; nodes: number; machineType: string };
      cells: Array<{ maxThroughput: { sustainableRate: number } }>;
    };
    expect(doc.environment).toMatchObject({ kind: "kubernetes", nodes: 1, machineType: "kind" });
    expect(doc.cells[0]!.maxThroughput.sustainableRate).toBe(360);
    expect(stacks.stacks.size).toBe(0);
  });
});

describe("runs whose cluster stacks the sweep destroyed", () => {
  it("end as interrupted during their stage when still running, and keep their outcome when they already ended", async () => {
    const [lost, done] = [await createRun(db, manifest, { environmentKind: "kubernetes" }), await createRun(db, manifest, { environmentKind: "kubernetes" })];
    await db.run.update({ where: { id: lost }, data: { status: "running", stage: "load", startedAt: new Date() } });
    await db.run.update({ where: { id: done }, data: { status: "completed", finishedAt: new Date() } });

    const ended = await interruptSweptRuns(db, { destroyed: [lost, done, "00000000-0000-4000-8000-000000000000"], skipped: [], failed: {} });
    expect(ended).toEqual([lost]);
    expect(await db.run.findUnique({ where: { id: lost }, select: { status: true, stage: true, errorStage: true, errorMessage: true } })).toEqual({
      status: "interrupted",
      stage: null,
      errorStage: "load",
      errorMessage: "worker lost during load: its cluster stack was destroyed by the start-up sweep",
    });
    expect((await db.run.findUnique({ where: { id: done }, select: { status: true } }))!.status).toBe("completed");
    // idempotent
    expect(await interruptSweptRuns(db, { destroyed: [lost], skipped: [], failed: {} })).toEqual([]);
  });
});
