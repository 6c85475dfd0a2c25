/**
 * The kubernetes provider's lifecycle against a fake Automation API workspace
 * and a fake cluster (unit tests: no Pulumi CLI, no cluster here): up, the
 * phases as TestRuns, the runners' CSV analysed by the local analysis, and
 * destroy always (after success, after a failure mid-run, after an
 * interruption); what a crash or a SIGKILL leaves behind, the start-up sweep
 * destroys, keyed by run id, idempotently.
 */
import { spawnSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseResult, type TargetManifest } from "@sfbench/core";
import { describe, expect, it } from "vitest";
import { readClusterEnv, type ClusterEnv } from "../src/kubernetes/env.ts";
import { needsClusterMessage, pulumiStacks } from "../src/kubernetes/index.ts";
import { rampRates, runOnCluster, type ClusterDeps, type ClusterRun } from "../src/kubernetes/provider.ts";
import { RunStackOutputs, StackOwners, stackName } from "../src/kubernetes/stacks.ts";
import { sweepClusterStacks } from "../src/kubernetes/sweep.ts";
import { tempDir } from "./helpers.ts";
import { CSV_HEADER, FakeCluster, FakeStacks, rampCsv } from "./kubernetes-fakes.ts";

const manifest = {
  name: "orleans",
  system: "Orleans",
  version: "0.1.0",
  port: 8080,
  health: "/health",
  services: ["postgres"],
  image: "ghcr.io/example/orleans:0.1.0",
  tracing: false,
} as unknown as TargetManifest;

const clusterEnv: ClusterEnv = {
  cluster: { kind: "kubeconfig", kubeconfig: "apiVersion: v1\nkind: Config\nclusters: []\n" },
  kubeconfigPath: "/dev/null",
  machineType: "n2-standard-4",
  maxNodes: 10,
  k6Parallelism: 2,
  pulumiPassphrase: "",
  kubectl: "kubectl",
};

function setup(overrides: Partial<ClusterDeps> = {}) {
  const stacks = new FakeStacks();
  const cluster = new FakeCluster();
  const home = tempDir("sfbench-cluster-");
  const owners = new StackOwners(join(home, "owners"));
  const archives: Array<{ script: string; env: Record<string, string> }> = [];
  const stages: string[] = [];
  const deps: ClusterDeps = {
    env: clusterEnv,
    stacks,
    cluster,
    owners,
    k6: "k6",
    repoRoot: home,
    resultsDir: join(home, "results"),
    rawRoot: join(home, "runs"),
    verify: async () => ({ failed: 0, checks: [{ id: "health", passed: true, message: "ok" }] }),
    archive: async (script, env) => (archives.push({ script, env }), Buffer.from(`archive of ${script}`).toString("base64")),
    onStage: (stage) => stages.push(stage),
    pollMs: 1,
    ...overrides,
  };
  const run: ClusterRun = {
    runId: randomUUID(),
    manifest,
    manifestDigest: `sha256:${"a".repeat(64)}`,
    nodes: 2,
    profile: "quick",
    cells: [{ workload: "checkout", distribution: "uniform" }],
    seed: 7,
  };
  return { stacks, cluster, owners, archives, stages, deps, run, home };
}

describe("a cluster run", () => {
  it("deploys the manifest's image, runs each phase as a TestRun, analyses the runners' CSV like a local run, and destroys the stack", async () => {
    const { stacks, cluster, owners, archives, stages, deps, run } = setup();
    const rates = rampRates("quick");
    expect(rates).toEqual([40, 120, 360]);
    // two runners, each half of every step; the 360/s step answers 500
    cluster.logsOf = (tr) =>
      tr.endsWith("-ramp")
        ? [
            rampCsv(
              rates.map((r) => r / 2),
              2,
              180,
            ),
            rampCsv(
              rates.map((r) => r / 2),
              2,
              180,
              1_700_000_000_001,
            ),
          ]
        : [`${CSV_HEADER}\n`];
    const out = await runOnCluster(deps, run);

    expect(out.doc.status, JSON.stringify(out.doc.error)).toBe("completed");
    expect(out.destroyed).toBe(true);
    const name = stackName(run.runId);
    expect(stacks.calls).toEqual([`up ${name} -`, `up ${name} seed`, `up ${name} checkout-uniform-ramp`, `destroy ${name}`, `remove ${name}`]);
    expect(stacks.stacks.size).toBe(0);
    expect(owners.runs()).toEqual([]);
    expect(stages).toEqual(["provision", "verify", "seed", "load", "store", "teardown"]);

    // the stack: the manifest's image, one pod per node, the workers' machine type; the load: the real scripts with the in-cluster URL
    const [provision, seed, ramp] = stacks.ups;
    expect(provision!.target).toMatchObject({ image: "ghcr.io/example/orleans:0.1.0", port: 8080, services: ["postgres"] });
    expect(provision).toMatchObject({ nodes: 2, machineType: "n2-standard-4" });
    expect(provision!.k6).toBeUndefined();
    expect(seed!.k6).toMatchObject({ name: "seed", parallelism: 1 });
    expect(ramp!.k6).toMatchObject({ name: "checkout-uniform-ramp", parallelism: 2 });
    expect(archives.map((a) => a.script)).toEqual(["seed", "checkout"]);
    expect(archives[1]!.env).toMatchObject({ BASE_URL: `http://target.sfbench-${run.runId}.svc.cluster.local:8080`, DISTRIBUTION: "uniform", SEED: "7" });
    expect(JSON.parse(archives[1]!.env.STEPS!)).toEqual(rates.map((rate) => ({ rate, duration: 2 })));
    expect(cluster.forwards).toEqual([`sfbench-${run.runId}/target:8080`]);
    expect(cluster.closed).toBe(1);

    // the same judgement as a local run: 40 and 120 sustainable, 360 all errors
    const [cell] = out.doc.cells;
    expect(cell!.maxThroughput!.sustainableRate).toBe(120);
    expect(cell!.maxThroughput!.steps.map((s) => s.offeredRate)).toEqual(rates);
    expect(cell!.maxThroughput!.steps[2]!.failedBecause!.join(" ")).toMatch(/error rate 100%/);
    expect(cell!.maxThroughput!.knee).toMatchObject({
      stoppedBecause: "unsustainable-step-found",
      firstUnsustainableRate: 360,
      resolution: 2,
      targetResolution: null,
    });
    expect(cell!.setupOps!["create-user"]!.successful).toBe(rates.reduce((a, r) => a + r * 2, 0));
    expect(cell!.valid).toBe(true);

    // one result document, valid, recording the cluster
    const stored = parseResult(readFileSync(out.file, "utf8"));
    expect(stored.ok).toBe(true);
    expect(out.doc.environment).toMatchObject({
      kind: "kubernetes",
      nodes: 2,
      machineType: "n2-standard-4",
      cores: 8,
      k6Version: "1.8.1",
      storage: { postgres: { fsync: "on" } },
    });
    expect(out.doc.rawData.files).toEqual(["seed.csv.gz", "seed.console.log", "checkout-uniform-ramp.csv.gz", "checkout-uniform-ramp.console.log"]);
    for (const f of out.doc.rawData.files) expect(existsSync(join(out.doc.rawData.dir, f))).toBe(true);
  });

  it("still destroys the stack when a phase fails mid-run, and the run fails with that stage and the reason", async () => {
    const { stacks, deps, run } = setup();
    const cluster = deps.cluster as FakeCluster;
    cluster.stageOf = (tr) => (tr.endsWith("-ramp") ? "error" : "finished");
    cluster.logsOf = () => [`${CSV_HEADER}\n{"level":"error","msg":"GoError: dial tcp: lookup target"}\n`];
    const out = await runOnCluster(deps, run);
    expect(out.doc.status).toBe("failed");
    expect(out.doc.error).toMatchObject({ stage: "load" });
    expect(out.doc.error!.message).toMatch(/checkout-uniform-ramp TestRun ended in stage "error"/);
    expect(stacks.calls.slice(-2)).toEqual([`destroy ${stackName(run.runId)}`, `remove ${stackName(run.runId)}`]);
    expect(stacks.stacks.size).toBe(0);
    expect(parseResult(readFileSync(out.file, "utf8")).ok).toBe(true);
  });

  it("fails at verify without loading a target that does not conform, and destroys what it deployed", async () => {
    const { stacks, deps, run } = setup({
      verify: async () => ({ failed: 1, checks: [{ id: "checkout.total", passed: false, message: "total 0, expected 12" }] }),
    });
    const out = await runOnCluster(deps, run);
    expect(out.doc.error).toEqual({ stage: "verify", message: "1 of 1 conformance checks failed: checkout.total (total 0, expected 12)" });
    expect(stacks.calls).toEqual([`up ${stackName(run.runId)} -`, `destroy ${stackName(run.runId)}`, `remove ${stackName(run.runId)}`]);
  });

  it("destroys the partial stack when pulumi up fails at provision", async () => {
    const { stacks, deps, run } = setup();
    stacks.failUp = () => "Deployment target: 0/2 pods ready: ImagePullBackOff";
    const out = await runOnCluster(deps, run);
    expect(out.doc.error).toEqual({ stage: "provision", message: "pulumi up failed: Deployment target: 0/2 pods ready: ImagePullBackOff" });
    expect(stacks.calls.slice(-2)).toEqual([`destroy ${stackName(run.runId)}`, `remove ${stackName(run.runId)}`]);
    expect(stacks.stacks.size).toBe(0);
  });

  it("refuses a manifest without an image, or more nodes than the cluster allows, before creating anything", async () => {
    const a = setup();
    const noImage = await runOnCluster(a.deps, { ...a.run, manifest: { ...manifest, image: undefined } });
    expect(noImage.doc.error).toMatchObject({ stage: "provision", message: expect.stringMatching(/no image/) });
    const b = setup();
    const tooMany = await runOnCluster(b.deps, { ...b.run, nodes: 11 });
    expect(tooMany.doc.error!.message).toMatch(/at most 10 \(SFBENCH_CLUSTER_MAX_NODES\)/);
    expect([...a.stacks.calls, ...b.stacks.calls]).toEqual([]);
  });

  it("ends as interrupted when the worker stops mid-load, and still destroys the stack", async () => {
    const controller = new AbortController();
    const { stacks, deps, run } = setup();
    let polls = 0;
    (deps.cluster as FakeCluster).stageOf = (tr) => {
      if (tr.endsWith("-ramp") && ++polls === 3) controller.abort("the worker was stopped (SIGTERM)");
      return tr.endsWith("-ramp") ? "started" : "finished";
    };
    const out = await runOnCluster({ ...deps, signal: controller.signal }, run);
    expect(out.doc.status).toBe("interrupted");
    expect(out.doc.error).toEqual({ stage: "load", message: "interrupted during load: the worker was stopped (SIGTERM)" });
    expect(stacks.stacks.size).toBe(0);
  });

  it("leaves a stack whose destroy failed to the sweep, which destroys it later", async () => {
    const { stacks, owners, deps, run } = setup();
    stacks.failDestroy = 1;
    const lines: string[] = [];
    const out = await runOnCluster({ ...deps, log: (l) => lines.push(l) }, run);
    expect(out.doc.status).toBe("completed");
    expect(out.destroyed).toBe(false);
    expect(lines.join("\n")).toMatch(/teardown failed, the start-up sweep will retry: the cluster is unreachable/);
    expect(stacks.stacks.get(stackName(run.runId))?.resources).toBe(true);
    const report = await sweepClusterStacks({ stacks, owners });
    expect(report).toEqual({ destroyed: [run.runId], skipped: [], failed: {} });
    expect(stacks.stacks.size).toBe(0);
  });
});

describe("the start-up sweep of cluster stacks", () => {
  /** the pid of a process that has ended (what a SIGKILLed worker's owner record names) */
  const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid;

  it("destroys a stack a SIGKILLed worker left (its owner record names a dead process) and leaves a live worker's and other projects' stacks alone", async () => {
    const stacks = new FakeStacks();
    const owners = new StackOwners(join(tempDir("sfbench-sweep-"), "owners"));
    const [lost, orphan, live] = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of [lost, orphan, live])
      (await stacks.open(id)).up({ runId: id, cluster: clusterEnv.cluster, nodes: 1, machineType: "kind", target: { name: "t", image: "i", port: 8080 } });
    stacks.stacks.set("dev", { resources: true });
    owners.claim(lost, deadPid());
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      owners.claim(live, other.pid!);
      const report = await sweepClusterStacks({ stacks, owners });
      expect(report.destroyed.sort()).toEqual([lost, orphan].sort());
      expect(report.skipped).toEqual([live]);
      expect([...stacks.stacks.keys()].sort()).toEqual(["dev", stackName(live)].sort());
      expect(owners.runs()).toEqual([live]);
      // idempotent: nothing more to do
      const again = await sweepClusterStacks({ stacks, owners });
      expect(again).toEqual({ destroyed: [], skipped: [live], failed: {} });
    } finally {
      other.kill("SIGKILL");
    }
  });

  it("keeps a stack it could not destroy for the next sweep and says why", async () => {
    const stacks = new FakeStacks();
    const owners = new StackOwners(join(tempDir("sfbench-sweep-"), "owners"));
    const id = randomUUID();
    await (await stacks.open(id)).up({ runId: id, cluster: clusterEnv.cluster, nodes: 1, machineType: "kind", target: { name: "t", image: "i", port: 8080 } });
    stacks.failDestroy = 1;
    const first = await sweepClusterStacks({ stacks, owners });
    expect(first).toEqual({ destroyed: [], skipped: [], failed: { [id]: "the cluster is unreachable" } });
    expect(stacks.stacks.has(stackName(id))).toBe(true);
    expect((await sweepClusterStacks({ stacks, owners })).destroyed).toEqual([id]);
  });
});

describe("the cluster configuration", () => {
  const kubeconfig = "apiVersion: v1\nkind: Config\nclusters:\n- name: kind-sfbench\n";
  const read = () => kubeconfig;

  it("is absent without SFBENCH_KUBECONFIG: runs that need a cluster wait, and the message says what the operator sets", () => {
    expect(readClusterEnv({}, read)).toBeUndefined();
    const m = needsClusterMessage("ghcr.io/example/orleans:0.1.0");
    expect(m.startsWith("this server has no cluster configured: image ghcr.io/example/orleans:0.1.0")).toBe(true);
    expect(m).toContain("SFBENCH_KUBECONFIG");
    expect(m).toContain("docs/cluster.md");
  });

  it("reads a kind kubeconfig or GKE settings", () => {
    expect(readClusterEnv({ SFBENCH_KUBECONFIG: "/k", SFBENCH_CLUSTER_MACHINE: "kind", SFBENCH_KUBE_CONTEXT: "kind-sfbench" }, read)).toMatchObject({
      cluster: { kind: "kubeconfig", kubeconfig, context: "kind-sfbench" },
      machineType: "kind",
      maxNodes: 10,
      k6Parallelism: 1,
    });
    expect(
      readClusterEnv({ SFBENCH_KUBECONFIG: "/k", SFBENCH_GKE_PROJECT: "sfbench-bench", SFBENCH_GKE_ZONE: "europe-west4-a", SFBENCH_K6_PARALLELISM: "4" }, read),
    ).toMatchObject({
      cluster: { kind: "gke", project: "sfbench-bench", zone: "europe-west4-a" },
      machineType: "n2-standard-4",
      k6Parallelism: 4,
    });
  });

  it("names every bad variable and what is allowed", () => {
    expect(() => readClusterEnv({ SFBENCH_KUBECONFIG: "/k", SFBENCH_CLUSTER_MACHINE: "n9-huge", SFBENCH_K6_PARALLELISM: "0" }, read)).toThrow(
      /invalid cluster configuration: SFBENCH_CLUSTER_MACHINE: .*"n2-standard-4".*"kind".*; SFBENCH_K6_PARALLELISM: .*>=1/,
    );
    expect(() => readClusterEnv({ SFBENCH_KUBECONFIG: "/k", SFBENCH_GKE_PROJECT: "sfbench-bench" }, read)).toThrow(
      "SFBENCH_GKE_ZONE: SFBENCH_GKE_PROJECT and SFBENCH_GKE_ZONE go together",
    );
    expect(() => readClusterEnv({ SFBENCH_GKE_PROJECT: "sfbench-bench", SFBENCH_GKE_ZONE: "europe-west4-a" }, read)).toThrow(
      /SFBENCH_KUBECONFIG: required with SFBENCH_GKE_PROJECT/,
    );
    expect(() => readClusterEnv({ SFBENCH_KUBECONFIG: "/nonexistent/kubeconfig" })).toThrow(/SFBENCH_KUBECONFIG: cannot read \/nonexistent\/kubeconfig/);
    expect(() => readClusterEnv({ SFBENCH_KUBECONFIG: "/k" }, () => "hello")).toThrow(/is not a kubeconfig/);
  });
});

describe("the real Automation API adapter", () => {
  it("reads the program's outputs as the stack returns them (an output left undefined comes back as null) and refuses what is not a run's", () => {
    const outputs = {
      namespace: "sfbench-x",
      targetUrl: "http://target.sfbench-x.svc.cluster.local:8080",
      testRun: null,
      storage: {},
      replicas: 2,
      resources: { cpu: "3500m", memory: "12288Mi" },
    };
    expect(RunStackOutputs.parse(outputs).testRun).toBeUndefined();
    expect(RunStackOutputs.safeParse({ ...outputs, targetUrl: "not a url" }).success).toBe(false);
  });

  it("says plainly that the Pulumi CLI is missing on this machine (it cannot be installed here)", async () => {
    const which = spawnSync("sh", ["-c", "command -v pulumi"]);
    if (which.status === 0) return; // an operator's machine with the CLI: nothing to show here
    const stacks = pulumiStacks({ backend: `file://${tempDir("sfbench-pulumi-")}`, passphrase: "" });
    await expect(stacks.list()).rejects.toThrow("the Pulumi CLI is not installed on the worker's machine (no pulumi on PATH); see docs/cluster.md");
  });
});
