/**
 * The engine's k6 invocations as the played run's own k6 runner pods: each
 * invocation (seed, populate, one step of a knee search, a stable phase) is
 * the script's `k6 archive` with its environment, BASE_URL pointed at the
 * target's in-cluster Service, rendered by the run's program as a TestRun of
 * `parallelism` runners (one for the setup scripts), translated to the pods
 * the k6-operator would run (translate.ts) and played beside the run on its
 * network. The runners' logs come back through `podman logs` and are split
 * into the same raw files as a local k6 run writes (the cluster's
 * runner-log.ts), so the engine analyses them unchanged. Unlike on a
 * cluster, each runner is a process on this machine: its pid is sampled and
 * pinned to the generator's cores (once it runs: kube play starts it), and
 * its REST API, at the pod's IP on the run's bridge, gives live figures. The
 * runner pods are removed after every invocation, whatever happened.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { K6Invocation, K6Outcome, LiveFigures, LoadGenerator } from "@sfbench/core";
import { pinTrees, watchLive } from "@sfbench/engine";
import { runNamespace } from "@sfbench/infra-pulumi/config";
import { renderRun, type KubeObject } from "@sfbench/infra-pulumi/render";
import { podman, podmanEnv } from "@sfbench/provider-container";
import { k6Archive } from "../cluster/archive.ts";
import { RunnerLogError, writeRunnerOutput } from "../cluster/runner-log.ts";
import { ensureK6Standin, STANDINS } from "./images.ts";
import { testRunName, runnersFor } from "../testrun.ts";
import { kubePlayHome } from "./home.ts";
import { hostInSubnet, NO_CLUSTER, PLAY_TIMEOUT_MS, type PlayedRun, type PlayOptions } from "./play.ts";
import { toKubePlay, type RunnerPod, type TestRunSpec } from "./translate.ts";

/** the port of k6's REST API in a runner (translate.ts makes every runner serve it) */
const API_PORT = 6565;
/** the last console lines a failed runner's message quotes */
const STDERR_LINES = 5;

export interface KubePlayGeneratorOptions {
  /** the run's stack configuration as played (playRun's `config`): the runners are rendered by the same program */
  config: PlayOptions["config"];
  /** runner pods per load step (the TestRun's parallelism; default 1): the operator's execution segments split the rate between them */
  parallelism?: number;
  onProgress?: (message: string) => void;
}

/** `podman logs` of a container, streamed (a runner's CSV can be far larger than podman()'s buffer). */
function containerLog(container: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("podman", ["logs", container], { env: podmanEnv(), stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (e) => reject(new Error(`podman logs ${container} could not start: ${e.message}`)));
    child.on("close", (code) => {
      const stderr = Buffer.concat(err).toString();
      if (code !== 0) reject(new Error(`podman logs ${container} failed (exit code ${code}): ${stderr.trim().split("\n").slice(-3).join(" ")}`));
      else resolve({ stdout: Buffer.concat(out).toString(), stderr });
    });
  });
}

/** One onTick per runner that reports all runners as one: counts and rates add up, the failed share is weighted by requests, p99 is the worst runner's. */
function combinedTicks(count: number, onTick: (live: LiveFigures) => void): ((live: LiveFigures) => void)[] {
  const latest: (LiveFigures | undefined)[] = Array.from({ length: count }, () => undefined);
  return latest.map((_, i) => (live: LiveFigures) => {
    latest[i] = live;
    const all = latest.filter((l): l is LiveFigures => l !== undefined);
    const requests = all.reduce((n, l) => n + l.requests, 0);
    const rates = all.map((l) => l.achievedRate).filter((r): r is number => r !== null);
    const p99s = all.map((l) => l.p99Ms).filter((p): p is number => p !== null);
    onTick({
      elapsedS: Math.max(...all.map((l) => l.elapsedS)),
      requests,
      iterations: all.reduce((n, l) => n + l.iterations, 0),
      achievedRate: rates.length ? rates.reduce((a, b) => a + b, 0) : null,
      dropped: all.reduce((n, l) => n + l.dropped, 0),
      failedShare: requests ? all.reduce((n, l) => n + l.failedShare * l.requests, 0) / requests : 0,
      p99Ms: p99s.length ? Math.max(...p99s) : null,
    });
  });
}

/** k6's own last messages in a runner's stderr, without the script's console output (the audit records), as runK6's stderr tail has them */
function k6Messages(stderr: string, count: number): string[] {
  const lines = stderr.trimEnd().split("\n");
  const out: string[] = [];
  for (let i = lines.length - 1; i >= 0 && out.length < count; i--) {
    const line = lines[i]!;
    if (line.trim() && !line.includes('"source":"console"')) out.unshift(line);
  }
  return out;
}

/** fn's answer, asked once; a failure is not kept, so the next call asks again */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () =>
    (answer ??= fn().catch((e: unknown) => {
      answer = undefined;
      throw e;
    }));
}

const ipNumber = (ip: string) => ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);

/** The next `count` addresses of the run's subnet after its pods' (the runners' static IPs). */
function nextIps(subnet: string, taken: readonly string[], count: number): string[] {
  const network = ipNumber(hostInSubnet(subnet, 1)) - 1;
  const last = Math.max(...taken.map((ip) => ipNumber(ip) - network));
  return Array.from({ length: count }, (_, i) => hostInSubnet(subnet, last + 1 + i));
}

export function kubePlayGenerator(played: PlayedRun, opts: KubePlayGeneratorOptions): LoadGenerator {
  const parallelism = opts.parallelism ?? 1;
  const prefix = runNamespace(played.runId);
  const render = (k6?: { name: string; parallelism: number; archiveBase64: string; env: Record<string, string> }) =>
    renderRun({ ...opts.config, runId: played.runId, cluster: NO_CLUSTER, ...(k6 ? { k6 } : {}) });
  const testRunOf = (objects: KubeObject[]) => {
    const testRun = objects.find((o) => o.kind === "TestRun");
    if (!testRun) throw new Error(`the program rendered no TestRun for run ${played.runId}'s load`);
    return testRun.spec as TestRunSpec;
  };
  // once per run: the URL the program gives the runners (its target Service in the run's namespace), the network's subnet, the runner image
  const inClusterUrl = once(async () => {
    const objects = await render({ name: "load", parallelism: 1, archiveBase64: "-", env: {} });
    const url = testRunOf(objects).runner?.env?.find((e) => e.name === "BASE_URL")?.value;
    if (!url) throw new Error(`the program's TestRun sets no BASE_URL for its runners (run ${played.runId})`);
    return url;
  });
  const networkSubnet = once(async () => {
    const inspected = await podman(["network", "inspect", "--format", "{{range .Subnets}}{{.Subnet}} {{end}}", played.network]);
    const subnet = inspected.stdout.trim().split(" ")[0];
    if (!subnet) throw new Error(`podman network ${played.network} has no subnet: is run ${played.runId} still playing?`);
    return subnet;
  });
  const standin = once(() => ensureK6Standin(opts.onProgress));

  return async (inv: K6Invocation): Promise<K6Outcome> => {
    const csv = join(inv.outDir, `${inv.name}.csv.gz`);
    const consoleFile = join(inv.outDir, `${inv.name}.console.log`);
    const name = testRunName(inv.name);
    const dir = join(kubePlayHome(), played.runId);
    mkdirSync(dir, { recursive: true });
    const work = mkdtempSync(join(dir, `k6-${name}-`));
    let runners: RunnerPod[] = [];
    let aborted = inv.signal?.aborted ?? false;
    // the runners are killed only once kube play has returned: a kill while it still starts them can hang podman (see provider.ts)
    let runnersUp = false;
    const kill = async () => {
      if (runnersUp && runners.length) await podman(["kill", "--signal", "KILL", ...runners.map((r) => r.container)]).catch(() => undefined);
    };
    const onAbort = () => {
      aborted = true;
      void kill();
    };
    inv.signal?.addEventListener("abort", onAbort, { once: true });
    let started = performance.now();
    let stopLive = () => {};
    try {
      const [url, net] = await Promise.all([inClusterUrl(), networkSubnet(), standin()]);
      const env = { ...inv.env, BASE_URL: url };
      const archiveBase64 = await k6Archive(inv.k6, inv.script, env);
      const runnerCount = runnersFor(inv.script, parallelism);
      const objects = await render({ name, parallelism: runnerCount, archiveBase64, env });
      const { configMap } = testRunOf(objects).script;
      // the archive where the runners mount the ConfigMap: readable by the runner image's unprivileged user
      const scriptDir = join(work, "script");
      mkdirSync(scriptDir);
      chmodSync(work, 0o755);
      chmodSync(scriptDir, 0o755);
      writeFileSync(join(scriptDir, configMap.file), Buffer.from(archiveBase64, "base64"), { mode: 0o644 });
      // the run's pods keep their IPs (the Services' hostAliases name them); the runners take the next ones
      const runIps = played.doc.pods.map((p) => p.ip);
      const doc = toKubePlay(objects, {
        prefix,
        hostPorts: played.doc.published.map((p) => p.hostPort),
        podIps: [...runIps, ...nextIps(net, runIps, runnerCount)],
        images: STANDINS,
        files: { [configMap.name]: scriptDir },
      });
      runners = doc.runners;
      const file = join(work, "runners.yaml");
      writeFileSync(file, runners.map((r) => r.yaml).join("---\n"));
      if (aborted) return { exitCode: null, csv, console: consoleFile, stderrTail: "interrupted before its runners started", wallS: 0 };
      started = performance.now();
      await podman(["kube", "play", "--network", played.network, ...runners.flatMap((r) => ["--ip", r.ip]), file], { timeoutMs: PLAY_TIMEOUT_MS });
      runnersUp = true;
      if (aborted) await kill();
      const pids = await Promise.all(runners.map(async (r) => Number((await podman(["inspect", "--format", "{{.State.Pid}}", r.container])).stdout.trim())));
      // the sampler takes one process: the first runner's (with one runner, the default, that is all of the generator)
      if (pids[0]! > 0) inv.onStart?.(pids[0]!);
      if (inv.cpus) for (const pid of pids.filter((p) => p > 0)) pinTrees([pid], inv.cpus);
      const ticks = inv.onTick && runners.length > 1 ? combinedTicks(runners.length, inv.onTick) : runners.map(() => inv.onTick);
      const stops = runners.map((r, i) => watchLive(`http://${r.ip}:${API_PORT}`, ticks[i]));
      stopLive = () => stops.forEach((stop) => stop());
      const codes = (await podman(["wait", ...runners.map((r) => r.container)])).stdout.trim().split("\n").map(Number);
      const wallS = (performance.now() - started) / 1000;
      stopLive();
      const exitCode = aborted ? null : (codes.find((c) => c !== 0) ?? 0);
      const logs = await Promise.all(runners.map((r) => containerLog(r.container)));
      const texts = logs.map((l) => `${l.stdout}\n${l.stderr}`);
      try {
        writeRunnerOutput(texts, csv, consoleFile);
      } catch (e) {
        // k6 wrote no CSV (it failed before its first sample): its log is the console, for the error message
        if (!(e instanceof RunnerLogError) || exitCode === 0) throw e;
        writeFileSync(consoleFile, texts.join("\n"));
      }
      const stderrTail = logs
        .flatMap((l) => k6Messages(l.stderr, STDERR_LINES))
        .slice(-STDERR_LINES)
        .join("\n");
      return { exitCode, csv, console: consoleFile, stderrTail, wallS };
    } catch (e) {
      throw new Error(`k6 runner pod(s) of ${inv.name} in run ${played.runId}: ${(e as Error).message}`, { cause: e });
    } finally {
      stopLive();
      inv.signal?.removeEventListener("abort", onAbort);
      if (runners.length) await podman(["pod", "rm", "-f", "-i", ...runners.map((r) => r.pod)], { timeoutMs: PLAY_TIMEOUT_MS }).catch(() => undefined);
      rmSync(work, { recursive: true, force: true });
    }
  };
}
