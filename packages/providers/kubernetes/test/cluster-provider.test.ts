/**
 * The kubernetes provider on a real cluster, with the Pulumi Automation API
 * and the API server faked (no Pulumi CLI, no cluster here) and everything
 * else real: the experiment engine runs its phases on the provider's target
 * unchanged, the TestRuns' runners are the real k6 running the real archives
 * with the program's runner arguments against a target on loopback, and their
 * logs come back through the runner-log split. Then: kill, restart and add a
 * node through the control, the cost from the pods' cgroups, destroy always,
 * and what a crash leaves behind the start-up sweep destroys, keyed by run id.
 */
import { spawnSync, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { rankable, type TargetManifest } from "@sfbench/core";
import { startMemoryTarget } from "@sfbench/conformance/testing";
import { aliveCheck, runBenchmark } from "@sfbench/engine";
import { k6Path } from "@sfbench/services";
import { k6Archive } from "../src/cluster/archive.ts";
import { clusterTargetControl } from "../src/cluster/control.ts";
import { readClusterEnv, readClusterSetting, type ClusterEnv } from "../src/cluster/env.ts";
import { needsClusterMessage, pulumiStacks } from "../src/cluster/index.ts";
import { clusterTargetProvider, ClusterProvisionError, type ClusterDeps, type ClusterRun } from "../src/cluster/provider.ts";
import { RunStackOutputs, StackOwners, stackName } from "../src/cluster/stacks.ts";
import { sweepClusterStacks } from "../src/cluster/sweep.ts";
import { FakeCluster, FakeStacks, tempDir } from "./cluster-fakes.ts";

const manifest = {
  name: "orleans",
  system: "Orleans",
  version: "0.1.0",
  port: 8080,
  health: "/health",
  services: ["postgres"],
  image: "ghcr.io/example/orleans:0.1.0",
  tracing: false,
  nodes: { max: 4, elastic: true },
} as unknown as TargetManifest;

const clusterEnv: ClusterEnv = {
  cluster: { kind: "kubeconfig", kubeconfig: "apiVersion: v1\nkind: Config\nclusters: []\n" },
  kubeconfigPath: "/dev/null",
  machineType: "n2-standard-4",
  maxNodes: 10,
  k6Parallelism: 1,
  pulumiPassphrase: "",
  kubectl: "kubectl",
};

function setup(o: { url?: string; runnerK6?: string } = {}) {
  const stacks = new FakeStacks();
  const cluster = new FakeCluster(o.url ?? "http://127.0.0.1:1", o.runnerK6);
  stacks.onLoad = (config) => cluster.startRunner(config);
  const owners = new StackOwners(join(tempDir("sfbench-cluster-"), "owners"));
  const archived: Array<{ script: unknown; env: Record<string, string> }> = [];
  const deps: ClusterDeps = {
    env: clusterEnv,
    stacks,
    cluster,
    owners,
    k6: o.runnerK6 ?? "k6",
    archive: async (script, env) => {
      archived.push({ script, env });
      return o.runnerK6 ? k6Archive(o.runnerK6, script, env) : "";
    },
    pollMs: 20,
    controlPollMs: 50,
  };
  const run: ClusterRun = { runId: randomUUID(), manifest, nodes: 2 };
  return { stacks, cluster, owners, archived, deps, run };
}

describe("a target on a cluster, measured by the engine", () => {
  it(
    "runs every phase of the throughput experiment unchanged: the knee bisected and confirmed, the stable phase, cost from the pods' cgroups, the audit; ranked by the same rule",
    { timeout: 600_000 },
    async () => {
      const target = await startMemoryTarget();
      const k6 = await k6Path();
      const { stacks, cluster, owners, archived, deps, run } = setup({ url: target.url, runnerK6: k6 });
      const provider = clusterTargetProvider(deps, run);
      const dir = tempDir("sfbench-cluster-run-");
      try {
        const t = await provider.start({ trace: false });
        expect(t.url).toBe(target.url);
        expect(t.environment).toMatchObject({ kind: "kubernetes", machineType: "n2-standard-4", cores: 8 });
        expect(t.generator).toBeDefined();
        const { doc } = await runBenchmark({
          target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: `sha256:${"c".repeat(64)}` },
          baseUrl: t.url,
          k6,
          profile: "quick",
          cells: [{ workload: "checkout", distribution: "uniform" }],
          seed: 3,
          repoRoot: process.cwd(),
          resultsDir: join(dir, "results"),
          rawRoot: join(dir, "raw"),
          targetPids: () => t.pids(),
          checkAlive: aliveCheck(() => t.exited()),
          control: t.control!,
          generator: t.generator!,
          place: t.environment!,
          nodes: run.nodes,
          ...(t.storage ? { storage: t.storage } : {}),
        });
        expect(doc.status, JSON.stringify(doc.error)).toBe("completed");
        expect(doc.environment).toMatchObject({ kind: "kubernetes", machineType: "n2-standard-4", nodes: 2, cost: { source: "cgroup" } });
        expect(doc.environment.storage?.postgres).toMatchObject({ instance: "dedicated", fsync: "on", synchronous_commit: "on" });
        const cell = doc.cells[0]!;
        // the same phases as a local run: a warm-up, steps, the confirmation, the stable phase, the audit
        expect(cell.maxThroughput!.steps.length).toBeGreaterThan(2);
        expect(cell.maxThroughput!.knee).toBeDefined();
        expect(cell.stable).toBeDefined();
        expect(cell.anomalies!.total).toBe(0);
        // judged by core's one rule: a quick profile's knee is never publishable, for a cluster cell as for a local one
        expect(rankable(cell).ok).toBe(false);
        // every k6 run was a TestRun of the stack, its archive pointed at the target's in-cluster Service
        const loads = stacks.ups.filter((c) => c.k6);
        expect(loads.length).toBe(archived.length);
        expect(loads[0]!.k6).toMatchObject({ name: "seed", parallelism: 1, image: "grafana/k6:1.8.1" });
        for (const a of archived) expect(a.env.BASE_URL).toBe(`http://target.sfbench-${run.runId}.svc.cluster.local:8080`);
        expect(loads.every((c) => c.nodes === 2 && c.target.image === manifest.image)).toBe(true);
        expect(cluster.forwards).toEqual([`sfbench-${run.runId}/target:8080`]);
      } finally {
        await provider.stop();
        await target.close();
      }
      expect(stacks.calls.slice(-2)).toEqual([`destroy ${stackName(run.runId)}`, `remove ${stackName(run.runId)}`]);
      expect(stacks.stacks.size).toBe(0);
      expect(owners.runs()).toEqual([]);
      expect(cluster.closed).toBe(1);
    },
  );

  it("reports a TestRun that ends in error with the stage and where its runners' logs are kept", async () => {
    const { cluster, deps, run } = setup();
    cluster.stageOf = () => "error";
    const provider = clusterTargetProvider(deps, run);
    const t = await provider.start({ trace: false });
    const out = await t.generator!({ k6: "k6", script: "seed", env: { SEED: "1" }, outDir: tempDir("sfbench-raw-"), name: "seed" });
    expect(out.exitCode).toBe(1);
    expect(out.stderrTail).toMatch(/the TestRun seed ended in stage "error" \(its runners' logs are kept in .*seed\.console\.log\)/);
    await provider.stop();
  });

  it("stops polling a TestRun at once when the run is interrupted", async () => {
    const { cluster, deps, run } = setup();
    cluster.stageOf = () => "started";
    const provider = clusterTargetProvider(deps, run);
    const t = await provider.start({ trace: false });
    const controller = new AbortController();
    setTimeout(() => controller.abort("the worker was stopped"), 100);
    const out = await t.generator!({
      k6: "k6",
      script: "checkout",
      env: { STEPS: "[]" },
      outDir: tempDir("sfbench-raw-"),
      name: "x",
      signal: controller.signal,
    });
    expect(out.exitCode).toBeNull();
    await provider.stop();
  });

  it("refuses a manifest without an image, or more nodes than the cluster allows, before creating anything", async () => {
    const a = setup();
    await expect(clusterTargetProvider(a.deps, { ...a.run, manifest: { ...manifest, image: undefined } }).start({ trace: false })).rejects.toThrow(
      ClusterProvisionError,
    );
    const b = setup();
    await expect(clusterTargetProvider(b.deps, { ...b.run, nodes: 11 }).start({ trace: false })).rejects.toThrow(/at most 10 \(SFBENCH_CLUSTER_MAX_NODES\)/);
    await clusterTargetProvider(b.deps, b.run).stop();
    expect([...a.stacks.calls, ...b.stacks.calls]).toEqual([]);
  });

  it("destroys the partial stack when pulumi up fails at provision", async () => {
    const { stacks, deps, run } = setup();
    stacks.failUp = () => "Deployment target: 0/2 pods ready: ImagePullBackOff";
    const provider = clusterTargetProvider(deps, run);
    await expect(provider.start({ trace: false })).rejects.toThrow("pulumi up failed: Deployment target: 0/2 pods ready: ImagePullBackOff");
    await provider.stop();
    expect(stacks.calls.slice(-2)).toEqual([`destroy ${stackName(run.runId)}`, `remove ${stackName(run.runId)}`]);
    expect(stacks.stacks.size).toBe(0);
  });

  it("leaves a stack whose destroy failed to the sweep, which destroys it later", async () => {
    const { stacks, owners, deps, run } = setup();
    stacks.failDestroy = 1;
    const lines: string[] = [];
    const provider = clusterTargetProvider({ ...deps, log: (l) => lines.push(l) }, run);
    await provider.start({ trace: false });
    await provider.stop();
    expect(lines.join("\n")).toMatch(/teardown failed, the start-up sweep will retry: the cluster is unreachable/);
    expect(stacks.stacks.get(stackName(run.runId))?.resources).toBe(true);
    const report = await sweepClusterStacks({ stacks, owners });
    expect(report).toEqual({ destroyed: [run.runId], skipped: [], failed: {} });
    expect(stacks.stacks.size).toBe(0);
  });
});

describe("the cluster control", () => {
  it("kills a node's pod (grace 0 for SIGKILL), waits for the Deployment's new pod on restart, adds a node through pulumi up, and keeps a deleted pod's CPU in the cost", async () => {
    const cluster = new FakeCluster("http://127.0.0.1:1");
    const scaled: number[] = [];
    const control = await clusterTargetControl({
      cluster,
      namespace: "ns",
      manifest,
      nodes: 2,
      scaleTo: async (n) => {
        scaled.push(n);
        cluster.pods_.push({ name: `target-z${n}`, phase: "Running", ready: true, restarts: 0, deleting: false });
        cluster.cpu.set(`target-z${n}`, 0);
      },
      pollMs: 10,
    });
    try {
      expect(control.cost!.source).toBe("cgroup");
      expect(control.cost!.cpuSeconds()).toBe(35);
      await control.kill(1, "SIGKILL");
      expect(cluster.deleted).toEqual(["target-bbb grace 0"]);
      await new Promise((r) => setTimeout(r, 60));
      // the killed pod's 20 s stay counted; its successor starts at 0
      expect(control.cost!.cpuSeconds()).toBe(35);
      const restarted = control.restart(1);
      setTimeout(() => (cluster.pods_ = cluster.pods_.map((p) => ({ ...p, ready: true }))), 100);
      await restarted;
      expect(control.exited()).toBeUndefined();
      await control.addNode();
      expect(scaled).toEqual([3]);
      expect(control.nodes()).toBe(3);
      await control.kill(0, "SIGTERM");
      expect(cluster.deleted.at(-1)).toBe("target-aaa grace 30");
    } finally {
      control.close();
    }
  });

  it("says the target died when a pod restarts or fails that nobody killed", async () => {
    const cluster = new FakeCluster("http://127.0.0.1:1");
    const control = await clusterTargetControl({ cluster, namespace: "ns", manifest, nodes: 2, scaleTo: async () => {}, pollMs: 10 });
    try {
      cluster.pods_[0] = { ...cluster.pods_[0]!, restarts: 1, lastTermination: "OOMKilled" };
      await new Promise((r) => setTimeout(r, 60));
      expect(control.exited()).toBe("pod target-aaa restarted (OOMKilled) while nobody killed it");
    } finally {
      control.close();
    }
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
    expect(readClusterSetting({}, read)).toBeUndefined();
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

  it("plays the cluster on this machine with SFBENCH_KUBE_PLAY=1, and refuses it beside a real cluster", () => {
    expect(readClusterSetting({ SFBENCH_KUBE_PLAY: "1" }, read)).toEqual({ kind: "kube-play", maxNodes: 10 });
    expect(readClusterSetting({ SFBENCH_KUBECONFIG: "/k" }, read)).toMatchObject({ kind: "cluster", env: { machineType: "n2-standard-4" } });
    expect(() => readClusterSetting({ SFBENCH_KUBE_PLAY: "1", SFBENCH_KUBECONFIG: "/k" }, read)).toThrow(
      /SFBENCH_KUBE_PLAY: 1 plays the cluster on this machine/,
    );
    expect(() => readClusterSetting({ SFBENCH_KUBE_PLAY: "yes" }, read)).toThrow(/SFBENCH_KUBE_PLAY/);
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
