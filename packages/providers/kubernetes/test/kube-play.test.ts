/**
 * The cluster program runs what it renders, load included: node-postgres's
 * run (its image built offline by provider-container, PostgreSQL from its
 * local stand-in) started by kubePlayProvider answers the conformance suite
 * through the target Service's published loopback port, its pod's container
 * got the CPU and memory limits the program asked for, the target reaches
 * PostgreSQL by its Service name; the experiment engine's phases measure it
 * through the provider's control and generator unchanged, every k6 run a
 * runner pod rendered from the program's TestRun (k6 itself is a process in
 * a played container, on the run's network); a SIGKILLed target pod starts
 * again with nothing lost; and stopping leaves no pod, volume or network.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "@sfbench/conformance";
import { manifestDigest, type K6Invocation, type LoadGenerator, type RunningTarget } from "@sfbench/core";
import { aliveCheck, runBenchmark } from "@sfbench/engine";
import { targetPodResources } from "@sfbench/infra-pulumi/machine";
import { localImageRef, podman, userNamespaceBase } from "@sfbench/provider-container";
import { isAlive } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { k6Path, paths } from "@sfbench/services";
import { kubePlayHome } from "../src/kube-play/home.ts";
import { kubePlayProvider } from "../src/kube-play/provider.ts";

const runId = `kp-${randomUUID().slice(0, 8)}`;
const prefix = `sfbench-${runId}`;
const machineType = "kind";
const bundled = findTarget("node-postgres");
const { manifest } = bundled;
const provider = kubePlayProvider({ runId, manifest, machineType, onProgress: (m) => console.log(m) });
let target: RunningTarget | undefined;
const resultsDir = mkdtempSync(join(tmpdir(), "sfbench-kube-play-"));
const targetContainer = `${prefix}-target-pod-0-target`;
const postgresContainer = `${prefix}-postgres-pod-0-postgres`;

/** the run's pods, volumes or networks (another run's, given its prefix) */
const list = async (what: "pod" | "volume" | "network", of = prefix) =>
  (await podman([what, what === "pod" ? "ps" : "ls", "--format", "{{.Name}}"])).stdout.split("\n").filter((n) => n.startsWith(`${of}-`) || n === of);

// the provider builds the target's image (buildTargetImage): on a fresh machine, with its bases, most of this hook's time
beforeAll(async () => {
  target = await provider.start({ trace: false });
}, 1_800_000);

afterAll(async () => {
  await provider.stop();
  rmSync(resultsDir, { recursive: true, force: true });
}, 300_000);

/**
 * The command name of a runner container's process once runc has executed
 * the container's command in it, and its cgroup then: on a loaded machine the
 * generator can name the process while it is still runc's init (comm
 * "runc:[2:INIT]").
 */
async function commOnceExecuted(pid: number): Promise<{ comm: string; cgroup: string }> {
  for (const deadline = performance.now() + 10_000; ;) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, "utf8").trim();
      if (!comm.startsWith("runc") || performance.now() > deadline) return { comm, cgroup: readFileSync(`/proc/${pid}/cgroup`, "utf8") };
    } catch {
      return { comm: "(exited before it was seen)", cgroup: "" };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("the rendered cluster program under podman kube play", () => {
  it("plays the target's and PostgreSQL's Deployments as pods, the target's Service published on loopback, its place a kubernetes one", async () => {
    const t = target!;
    expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await list("pod")).toEqual(expect.arrayContaining([`${prefix}-postgres-pod-0`, `${prefix}-target-pod-0`]));
    expect(t.environment).toEqual({ kind: "kubernetes", machineType });
    expect(t.log).toBeUndefined();
    const asked = targetPodResources(machineType);
    expect(t.versions[0]).toBe(`podman kube play of the cluster program (machine type ${machineType}: ${asked.cpu} CPU, ${asked.memory})`);
    expect(t.versions[1]).toMatch(/^PostgreSQL 15\.\d+.* \(its pod\)$/);
    expect(t.storage?.postgres).toMatchObject({ instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on" });
  });

  it("gives the target's container the CPU and memory limits the program asked for", async () => {
    const asked = targetPodResources(machineType);
    const [cpus, memory] = (await podman(["inspect", "--format", "{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}", targetContainer])).stdout
      .trim()
      .split(" ")
      .map(Number);
    expect(cpus).toBe(Number.parseInt(asked.cpu, 10) * 1e6);
    expect(memory).toBe(Number.parseInt(asked.memory, 10) * 2 ** 20);
  });

  it("confines the target's container as the program asked: its image read-only, no capabilities, none to gain, its ids the run's own", async () => {
    const { stdout } = await podman([
      "inspect",
      "--format",
      "{{.HostConfig.ReadonlyRootfs}} {{json .HostConfig.CapDrop}} {{json .HostConfig.SecurityOpt}}",
      targetContainer,
    ]);
    const [readOnly, capDrop, securityOpt] = stdout.trim().split(" ");
    expect(readOnly).toBe("true");
    expect(JSON.parse(capDrop!)).toEqual(expect.arrayContaining(["CAP_NET_RAW", "CAP_SYS_CHROOT", "CAP_KILL"]));
    expect(JSON.parse(securityOpt!)).toContain("no-new-privileges");
    // a user namespace of the run's own, in every pod: root inside is a host id above 2^24, owner of nothing outside
    const base = userNamespaceBase(runId);
    expect(base).toBeGreaterThanOrEqual(2 ** 24);
    for (const container of [targetContainer, postgresContainer])
      expect((await podman(["exec", container, "cat", "/proc/self/uid_map"])).stdout.trim().split(/\s+/).map(Number)).toEqual([0, base, 65536]);
  });

  it("answers the conformance suite from inside its pod, its state in the PostgreSQL pod it reaches by the Service's name", async () => {
    const report = await runConformance(target!.url, { micro: false });
    expect(
      report.failed,
      report.checks
        .filter((c) => !c.passed)
        .map((c) => `${c.id}: ${c.message ?? ""}`)
        .join("\n"),
    ).toBe(0);
    expect(report.passed).toBeGreaterThan(0);
    const env = (await podman(["exec", targetContainer, "printenv", "DATABASE_URL"])).stdout.trim();
    expect(env).toBe("postgres://postgres@postgres:5432/postgres");
    const tables = (await podman(["exec", postgresContainer, "psql", "-U", "postgres", "-Atc", "select count(*) from pg_stat_user_tables"])).stdout.trim();
    expect(Number(tables)).toBeGreaterThan(0);
  }, 900_000);

  it("is measured by the experiment engine's phases with k6 in runner pods of the program's TestRun, and a SIGKILLed target pod starts again with its state", async () => {
    const t = target!;
    const control = t.control!;
    // the cost's roots: the target's and PostgreSQL's containers' first processes
    expect(t.pids()).toHaveLength(2);
    // what each k6 run was, seen from podman while it ran: the real generator, watched
    const seen: Promise<{ name: string; pid: number; containers: string[]; comm: string; cgroup: string }>[] = [];
    const watched: LoadGenerator = (inv: K6Invocation) =>
      t.generator!({
        ...inv,
        onStart: (pid) => {
          inv.onStart?.(pid);
          seen.push(
            Promise.all([commOnceExecuted(pid), podman(["ps", "--filter", `name=^${prefix}-`, "--format", "{{.Names}}"])]).then(([proc, r]) => ({
              name: inv.name,
              pid,
              containers: r.stdout.split("\n").filter(Boolean),
              ...proc,
            })),
          );
        },
      });
    let liveTicks = 0;
    const { doc } = await runBenchmark({
      target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
      baseUrl: t.url,
      k6: await k6Path(),
      profile: "quick",
      cells: [{ workload: "checkout", distribution: "uniform" }],
      control,
      generator: watched,
      place: t.environment!,
      seed: 1,
      repoRoot: paths.root,
      resultsDir,
      rawRoot: join(resultsDir, "raw"),
      targetPids: () => t.pids(),
      checkAlive: aliveCheck(() => t.exited()),
      systemVersion: [`${manifest.system} ${manifest.version}`, ...t.versions].join("; "),
      ...(t.storage ? { storage: t.storage } : {}),
      onProgress: (e) => {
        if (e.live && e.live.requests > 0) liveTicks++;
      },
    });
    expect(doc.error).toBeUndefined();
    expect(doc.status).toBe("completed");
    expect(doc.environment).toMatchObject({ kind: "kubernetes", machineType });
    const cell = doc.cells[0]!;
    console.log(
      `kube-play cell: ${JSON.stringify({
        sustainableRate: cell.maxThroughput?.sustainableRate,
        steps: cell.maxThroughput?.steps.map((s) => [s.offeredRate, s.achievedRate]),
        stableP99: cell.stable?.latency.p99,
        cost: cell.cost,
        valid: cell.valid,
        invalidReason: cell.invalidReason,
      })}`,
    );
    expect(cell.maxThroughput?.steps.length).toBeGreaterThan(0);
    expect(cell.stable).toBeDefined();
    expect(cell.anomalies?.total).toBe(0);
    expect(cell.cost?.targetCpuSeconds ?? 0).toBeGreaterThan(0);

    // every k6 run (seed, warm-up, ramp steps, stable load) was k6 in a runner container of this run, named after the invocation's TestRun
    const runs = await Promise.all(seen);
    expect(runs.length).toBeGreaterThanOrEqual(3);
    for (const r of runs) {
      expect(r.comm).toBe("k6");
      expect(r.cgroup).toMatch(/libpod/);
      expect(
        r.containers.some((c) => c.startsWith(`${prefix}-`) && c.endsWith("-k6")),
        `${r.name}: ${r.containers.join(", ")}`,
      ).toBe(true);
    }
    expect(runs.map((r) => r.name)).toContain("seed");
    // the live figures came from the runners' REST API
    expect(liveTicks).toBeGreaterThan(0);
    // the raw output came back from the runners' logs
    for (const f of doc.rawData.files.filter((f) => f.endsWith(".csv.gz"))) expect(existsSync(join(doc.rawData.dir, f))).toBe(true);
    // and the runner pods are gone: only the run's own pods remain
    expect((await list("pod")).sort()).toEqual([`${prefix}-postgres-pod-0`, `${prefix}-target-pod-0`]);

    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status, `POST ${path}`).toBe(200);
      return (await res.json()) as string;
    };
    const user = await post("/users", { credits: 77 });
    const targetPid = Number((await podman(["inspect", "--format", "{{.State.Pid}}", targetContainer])).stdout.trim());
    expect(t.pids()).toContain(targetPid);
    await control.kill(0, "SIGKILL");
    expect(isAlive(targetPid)).toBe(false);
    expect(t.exited()).toBeUndefined();
    await control.restart(0);
    expect(t.exited()).toBeUndefined();
    expect(await (await fetch(`${t.url}/users/${user}`)).json()).toEqual({ id: user, credits: 77 });
  }, 1_200_000);

  it("kills its runner at once when the run is interrupted, and removes the runner pod", async () => {
    const t = target!;
    const outDir = mkdtempSync(join(resultsDir, "abort-"));
    const abort = new AbortController();
    const env = {
      BASE_URL: t.url,
      SEED: "1",
      PRODUCTS: "100",
      PRODUCT_PREFIX: "abort",
      DISTRIBUTION: "uniform",
      STEPS: JSON.stringify([{ rate: 5, duration: 120 }]),
    };
    const started = performance.now();
    const outcome = await t.generator!({
      k6: await k6Path(),
      script: "checkout",
      env: { ...env, PRE_VUS: "10", MAX_VUS: "100" },
      outDir,
      name: "aborted-step",
      signal: abort.signal,
      onStart: () => setTimeout(() => abort.abort(), 1000),
    });
    expect(outcome.exitCode).toBeNull();
    expect((performance.now() - started) / 1000).toBeLessThan(60);
    expect((await list("pod")).sort()).toEqual([`${prefix}-postgres-pod-0`, `${prefix}-target-pod-0`]);
  }, 300_000);

  it("stops: every pod, volume and network of the run removed, twice without error", async () => {
    await provider.stop();
    await provider.stop();
    expect(await list("pod")).toEqual([]);
    expect(await list("volume")).toEqual([]);
    expect(await list("network")).toEqual([]);
    expect(existsSync(join(kubePlayHome(), runId))).toBe(false);
  }, 300_000);
});

describe("a played run whose TestRuns have two runners", () => {
  const twoRunId = `kp2-${randomUUID().slice(0, 8)}`;
  const twoPrefix = `sfbench-${twoRunId}`;
  // the image the first run's provider built (a second build check could rebuild it while its sources are being edited)
  const two = kubePlayProvider({ runId: twoRunId, manifest, image: localImageRef(bundled), machineType, parallelism: 2 });
  afterAll(() => two.stop(), 300_000);

  it("splits each k6 run between two runner pods by execution segments, their samples merged into one raw file, their live figures into one", async () => {
    const t = await two.start({ trace: false });
    const outDir = mkdtempSync(join(resultsDir, "two-"));
    const k6 = await k6Path();
    const base = { BASE_URL: t.url, SEED: "1", PRODUCTS: "100", PRODUCT_PREFIX: "two" };
    const seed = await t.generator!({ k6, script: "seed", env: base, outDir, name: "seed" });
    expect(seed.exitCode, seed.stderrTail).toBe(0);
    const runners: string[][] = [];
    const ticks: number[] = [];
    const rate = 20;
    const step = await t.generator!({
      k6,
      script: "checkout",
      env: { ...base, DISTRIBUTION: "uniform", STEPS: JSON.stringify([{ rate, duration: 4 }]), PRE_VUS: "10", MAX_VUS: "100" },
      outDir,
      name: "checkout-uniform-ramp-0",
      onStart: () =>
        void podman(["ps", "--filter", `name=^${twoPrefix}-`, "--format", "{{.Names}}"]).then((r) =>
          runners.push(r.stdout.split("\n").filter((n) => n.endsWith("-k6"))),
        ),
      onTick: (live) => ticks.push(live.requests),
    });
    expect(step.exitCode, step.stderrTail).toBe(0);
    expect(runners[0]?.sort()).toEqual([`${twoPrefix}-checkout-uniform-ramp-0-1-k6`, `${twoPrefix}-checkout-uniform-ramp-0-2-k6`]);
    // one header, then both runners' samples: each runner made half the step's iterations
    const lines = gunzipSync(readFileSync(step.csv)).toString().trim().split("\n");
    expect(lines.filter((l) => l.startsWith("metric_name,"))).toHaveLength(1);
    const iterations = lines.filter((l) => l.startsWith("iterations,")).length;
    expect(iterations).toBeGreaterThan(rate * 4 * 0.75);
    expect(iterations).toBeLessThanOrEqual(rate * 4 + 2);
    expect(ticks.length).toBeGreaterThan(0);
    await two.stop();
    expect(await list("pod", twoPrefix)).toEqual([]);
    expect(await list("network", twoPrefix)).toEqual([]);
  }, 600_000);
});

describe("a played run stopped while it starts", () => {
  // the stop comes while kube play creates the pods: removing them then would deadlock podman, so the stop waits for the start to fail
  it("stops a start half way: the start fails, the stop ends after it, and nothing of the run is left", async () => {
    const midRunId = `kp3-${randomUUID().slice(0, 8)}`;
    const ended: string[] = [];
    let stopping: Promise<void> | undefined;
    const mid = kubePlayProvider({
      runId: midRunId,
      manifest,
      image: localImageRef(bundled),
      machineType,
      onProgress: (m) => {
        if (m.startsWith("podman kube play")) stopping ??= mid.stop().then(() => void ended.push("stop"));
      },
    });
    const starting = mid.start({ trace: false }).finally(() => ended.push("start"));
    await expect(starting).rejects.toThrow(`run ${midRunId} was stopped while it was starting`);
    expect(stopping).toBeDefined();
    await stopping;
    expect(ended).toEqual(["start", "stop"]);
    const midPrefix = `sfbench-${midRunId}`;
    expect(await list("pod", midPrefix)).toEqual([]);
    expect(await list("volume", midPrefix)).toEqual([]);
    expect(await list("network", midPrefix)).toEqual([]);
    expect(existsSync(join(kubePlayHome(), midRunId))).toBe(false);
  }, 600_000);
});
