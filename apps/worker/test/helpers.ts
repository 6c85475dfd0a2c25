/** Test helpers: a fresh database, a unique queue, run rows, a worker process. */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { manifestDigest, parseManifest } from "@sfbench/core";
import { createDb, migrate, type Db } from "@sfbench/db";
import { runningTarget } from "@sfbench/provider-local";
import { createDatabase, k6Path, redisUrl, up } from "@sfbench/services";
import { createRunPipeline, type PipelineDeps } from "../src/pipeline.ts";

export const FIXTURE_TARGETS = fileURLToPath(new URL("./fixtures/targets", import.meta.url));
export const BUNDLED_TARGETS = fileURLToPath(new URL("../../../packages/targets", import.meta.url));
const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

export async function freshDb(): Promise<{ db: Db; url: string }> {
  await up(["postgres", "redis"]);
  const url = await createDatabase(`test_worker_${randomUUID().slice(0, 8)}`, { fresh: true });
  await migrate(url);
  return { db: createDb(url), url };
}

/** The worker's pipeline over `db`, its results and raw data under `home`, targets from `targetsRoot` (the bundled ones unless given). */
export async function pipelineIn(db: Db, home: string, deps: Partial<PipelineDeps> = {}) {
  return createRunPipeline({
    db,
    k6: await k6Path(),
    repoRoot: home,
    resultsDir: join(home, "results"),
    rawRoot: join(home, "runs"),
    targetsRoot: BUNDLED_TARGETS,
    ...deps,
  });
}

export const uniqueQueue = () => `test-${randomUUID().slice(0, 8)}`;
export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

export function manifestOf(root: string, name: string) {
  const parsed = parseManifest(JSON.parse(readFileSync(join(root, name, "target.json"), "utf8")));
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.manifest;
}

/** A queued run of a target, as a submission would create it. */
export async function createRun(
  db: Db,
  manifest: unknown,
  opts: { digest?: string; parameters?: object; environmentKind?: "local" | "kubernetes" } = {},
): Promise<string> {
  const m = manifest as { name?: string; system?: string; version?: string };
  const parsed = parseManifest(manifest);
  const digest = opts.digest ?? (parsed.ok ? manifestDigest(parsed.manifest) : `sha256:${"f".repeat(64)}`);
  const slug = m.name ?? `invalid-${randomUUID().slice(0, 8)}`;
  const system = await db.system.upsert({ where: { slug }, update: {}, create: { slug, name: m.system ?? slug } });
  const version = await db.targetVersion.upsert({
    where: { systemId_manifestDigest: { systemId: system.id, manifestDigest: digest } },
    update: {},
    create: { systemId: system.id, version: m.version ?? "0.0.0", manifest: manifest as object, manifestDigest: digest },
  });
  const run = await db.run.create({
    data: {
      systemId: system.id,
      targetVersionId: version.id,
      environmentKind: opts.environmentKind ?? "local",
      nodes: 1,
      profile: "quick",
      parameters: opts.parameters ?? { workloads: ["checkout"], distributions: ["uniform"] },
    },
  });
  return run.id;
}

/**
 * Polls `fn` until it gives a value. The deadline is on the monotonic clock: a
 * wall clock set forward under a loaded or paused machine must not end a wait
 * early. `state` says, in the timeout's message, what was seen instead.
 */
export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 60_000,
  everyMs = 50,
  state?: () => Promise<string>,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${state ? `; instead: ${await state()}` : ""}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The real worker entry point as a child process (so tests can SIGKILL it). */
/**
 * Waits until the run is in `stage` with its bundled target launched; the
 * port the target got (a run takes a free one), to find free once it is gone.
 */
export async function stageWithTarget(db: Db, runId: string, stage: string, target: string): Promise<number> {
  const run = () => db.run.findUniqueOrThrow({ where: { id: runId } });
  await waitFor(
    `stage ${stage} with the target launched`,
    async () => (await run()).stage === stage && runningTarget(target) !== undefined,
    90_000,
    10,
    async () => {
      const r = await run();
      return `run ${r.status} at stage ${r.stage ?? "-"}${r.errorMessage ? ` (${r.errorStage}: ${r.errorMessage})` : ""}, target ${runningTarget(target) ? "launched" : "not launched"}`;
    },
  );
  return runningTarget(target)!.port;
}

export function startWorkerProcess(env: {
  DATABASE_URL: string;
  SFBENCH_QUEUE: string;
  SFBENCH_RESULTS_DIR: string;
  SFBENCH_TARGETS_DIR?: string;
  /** with NODE_OPTIONS="--import scripts/lib/record-imports.mjs": the file every module the worker loads is listed in */
  SFBENCH_IMPORTS_LOG?: string;
  NODE_OPTIONS?: string;
}): {
  child: ChildProcess;
  output: () => string;
} {
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], {
    env: { ...process.env, ...env, REDIS_URL: redisUrl() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => (output += d));
  child.stderr!.on("data", (d: Buffer) => (output += d));
  return { child, output: () => output };
}

/** Stops a worker started by startWorkerProcess and waits for its exit. */
export async function stopWorkerProcess(worker: { child: ChildProcess }): Promise<void> {
  if (worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const gone = new Promise((r) => worker.child.once("exit", r));
  worker.child.kill("SIGTERM");
  await gone;
}

/** Whether nothing listens on the loopback port. */
export const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer()
      .once("error", () => resolve(false))
      .listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });

/** The processes whose command line names the run's raw-data folder (its k6 runs), from /proc. */
export function processesOf(runId: string): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, "utf8").includes(`/runs/${runId}/`);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Every key path of a document (array items as [], their keys merged), sorted: its shape without its values. */
export function keyPaths(v: unknown, at = ""): string[] {
  if (Array.isArray(v)) return [...new Set(v.flatMap((x) => keyPaths(x, `${at}[]`)))].sort();
  if (v && typeof v === "object")
    return Object.entries(v)
      .flatMap(([k, x]) => [`${at}.${k}`, ...keyPaths(x, `${at}.${k}`)])
      .sort();
  return [];
}
