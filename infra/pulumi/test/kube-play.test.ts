/**
 * The cluster program runs what it renders: the program of a node-postgres
 * run, rendered under Pulumi's mocks, played by `podman kube play` (its
 * image built offline by provider-container, PostgreSQL from its local
 * stand-in), answers the conformance suite through the target Service's
 * published loopback port, its pod's container got the CPU and memory limits
 * the program asked for, the target reaches PostgreSQL by its Service name;
 * the experiment engine's phases (the quick profile's knee with bisection and
 * confirmation, stable load, cost, audit) measure it through the kube-play
 * control unchanged, k6 on the host against the published port; a SIGKILLed
 * target pod starts again with nothing lost; and teardown leaves no pod,
 * volume or network.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "@sfbench/conformance";
import { buildTargetImage, podman } from "@sfbench/provider-container";
import { findTarget, isAlive, portFree } from "@sfbench/provider-local";
import { manifestDigest } from "@sfbench/core";
import { k6Path, paths, up } from "@sfbench/services";
import { aliveCheck, runBenchmark } from "@sfbench/engine";
import { kubePlayTargetControl, playedStorage } from "../src/kube-play/control.ts";
import { downRun, playRun, type PlayedRun } from "../src/kube-play/play.ts";
import { targetPodResources } from "../src/machine.ts";

/** this test's loopback ports (the project's range for it) */
const PORTS = Array.from({ length: 100 }, (_, i) => 21600 + i);
const runId = `kp-${randomUUID().slice(0, 8)}`;
const prefix = `sfbench-${runId}`;
const machineType = "kind";
const { manifest } = findTarget("node-postgres");
let played: PlayedRun | undefined;
const resultsDir = mkdtempSync(join(tmpdir(), "sfbench-kube-play-"));

const list = async (what: "pod" | "volume" | "network") =>
  (await podman([what, what === "network" ? "ls" : what === "pod" ? "ps" : "ls", "--format", "{{.Name}}"])).stdout
    .split("\n")
    .filter((n) => n.startsWith(prefix));

beforeAll(async () => {
  const image = (await buildTargetImage("node-postgres", { onProgress: (m) => console.log(m) })).ref;
  const hostPorts: number[] = [];
  for (const p of PORTS) if (hostPorts.length < 2 && (await portFree(p))) hostPorts.push(p);
  played = await playRun({
    runId,
    config: {
      nodes: 1,
      machineType,
      // no tracing: the program would add Kafka for spans, which has no local stand-in
      target: { name: manifest.name, image, port: manifest.port, health: manifest.health, services: manifest.services, tracing: false },
    },
    hostPorts,
    onProgress: (m) => console.log(m),
  });
}, 1_800_000);

afterAll(async () => {
  await downRun(runId);
  rmSync(resultsDir, { recursive: true, force: true });
}, 300_000);

describe("the rendered cluster program under podman kube play", () => {
  it("plays the target's and PostgreSQL's Deployments as pods, the Services' ports published on loopback", () => {
    const run = played!;
    expect(run.doc.pods.map((p) => p.from)).toEqual(["postgres", "target"]);
    expect(run.doc.published.map((p) => p.service)).toEqual(["postgres", "target"]);
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:216\d\d$/);
  });

  it("gives the target's container the CPU and memory limits the program asked for", async () => {
    const asked = targetPodResources(machineType);
    const [cpus, memory] = (await podman(["inspect", "--format", "{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}", played!.targetContainers[0]!])).stdout
      .trim()
      .split(" ")
      .map(Number);
    expect(cpus).toBe(Number.parseInt(asked.cpu, 10) * 1e6);
    expect(memory).toBe(Number.parseInt(asked.memory, 10) * 2 ** 20);
  });

  it("answers the conformance suite from inside its pod, its state in the PostgreSQL pod it reaches by the Service's name", async () => {
    const report = await runConformance(played!.url, { micro: false });
    expect(
      report.failed,
      report.checks
        .filter((c) => !c.passed)
        .map((c) => `${c.id}: ${c.message ?? ""}`)
        .join("\n"),
    ).toBe(0);
    expect(report.passed).toBeGreaterThan(0);
    const env = (await podman(["exec", played!.targetContainers[0]!, "printenv", "DATABASE_URL"])).stdout.trim();
    expect(env).toBe("postgres://postgres@postgres:5432/postgres");
    const [pgPod] = played!.doc.pods.filter((p) => p.from === "postgres");
    const tables = (await podman(["exec", pgPod!.containers[0]!, "psql", "-U", "postgres", "-Atc", "select count(*) from pg_stat_user_tables"])).stdout.trim();
    expect(Number(tables)).toBeGreaterThan(0);
  }, 900_000);

  it("is measured by the experiment engine's phases through the kube-play control, and a SIGKILLed target pod starts again with its state", async () => {
    const run = played!;
    const control = await kubePlayTargetControl(run, manifest, { onProgress: (m) => console.log(m) });
    // the cost's roots: the target's and PostgreSQL's containers' first processes
    expect(control.pids()).toHaveLength(2);
    await up(["k6"]);
    const { doc } = await runBenchmark({
      target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
      baseUrl: run.url,
      k6: await k6Path(),
      profile: "quick",
      cells: [{ workload: "checkout", distribution: "uniform" }],
      control,
      seed: 1,
      repoRoot: paths.root,
      resultsDir,
      rawRoot: join(resultsDir, "raw"),
      targetPids: () => control.pids(),
      checkAlive: aliveCheck(() => control.exited()),
      systemVersion: `${manifest.system} ${manifest.version}; podman kube play of the cluster program (machine type ${machineType})`,
      storage: await playedStorage(run),
    });
    expect(doc.error).toBeUndefined();
    expect(doc.status).toBe("completed");
    const cell = doc.cells[0]!;
    const figures = {
      sustainableRate: cell.maxThroughput?.sustainableRate,
      knee: cell.maxThroughput?.knee,
      stableP99: cell.stable?.latency.p99,
      cost: cell.cost,
      valid: cell.valid,
      invalidReason: cell.invalidReason,
    };
    console.log(`kube-play cell: ${JSON.stringify(figures)}`);
    expect(cell.anomalies?.total).toBe(0);
    expect(cell.cost?.targetCpuSeconds ?? 0).toBeGreaterThan(0);
    expect(doc.environment.storage?.postgres).toMatchObject({ instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on" });

    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${run.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status, `POST ${path}`).toBe(200);
      return (await res.json()) as string;
    };
    const user = await post("/users", { credits: 77 });
    const targetPid = Number((await podman(["inspect", "--format", "{{.State.Pid}}", run.targetContainers[0]!])).stdout.trim());
    expect(control.pids()).toContain(targetPid);
    await control.kill(0, "SIGKILL");
    expect(isAlive(targetPid)).toBe(false);
    expect(control.exited()).toBeUndefined();
    await control.restart(0);
    expect(control.exited()).toBeUndefined();
    expect(await (await fetch(`${run.url}/users/${user}`)).json()).toEqual({ id: user, credits: 77 });
  }, 1_200_000);

  it("tears down every pod, volume and network of the run, twice without error", async () => {
    await downRun(runId);
    await downRun(runId);
    expect(await list("pod")).toEqual([]);
    expect(await list("volume")).toEqual([]);
    expect(await list("network")).toEqual([]);
    expect(existsSync(played!.file)).toBe(false);
  }, 300_000);
});
