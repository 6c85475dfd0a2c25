/**
 * The kubernetes provider: one run on a cluster, one Pulumi stack per run id.
 *
 *   provision  stack up: namespace, the manifest's image (one pod per node), its services
 *   verify     the conformance suite through a port-forward to the target's Service
 *   seed       a k6-operator TestRun of k6/seed.ts (populate before analytics)
 *   load       per cell, a TestRun of the coarse arrival-rate ramp; the runners'
 *              CSV comes back from their pods' logs and is analysed by the same
 *              code as a local run (aggregateK6, maxThroughputResult)
 *   store      one result document (environment kind "kubernetes")
 *   teardown   stack destroy and remove, always, in `finally`
 *
 * A failure at any stage still writes a document with the stage and the
 * reason; the stack is destroyed either way. What a crash leaves behind (the
 * worker SIGKILLed between up and destroy) the start-up sweep removes
 * (./sweep.ts), keyed by run id.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  RESULT_SCHEMA_VERSION,
  type Cell,
  type CellChoice,
  type Distribution,
  type Environment,
  type PipelineStage,
  type ResultDocument,
  type TargetManifest,
  type Workload,
} from "@sfbench/core";
import { MACHINE_TYPES } from "@sfbench/infra-pulumi/machine";
import type { RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import {
  aggregateK6,
  generatorSaturated,
  kneeResolution,
  maxThroughputResult,
  orderCells,
  PROFILE_SETTINGS,
  setupOpsResult,
  StageError,
  writeResult,
  type Profile,
} from "@sfbench/engine";
import type { Script } from "@sfbench/workloads";
import { k6Archive } from "./archive.ts";
import { FINAL_STAGES, type ClusterApi } from "./cluster-api.ts";
import type { ClusterEnv } from "./env.ts";
import { writeRunnerOutput } from "./runner-log.ts";
import type { RunStack, RunStackOutputs, RunStacks, StackOwners } from "./stacks.ts";

export interface ClusterRun {
  runId: string;
  manifest: TargetManifest;
  manifestDigest: string;
  /** target pods, one per node */
  nodes: number;
  profile: Profile;
  cells: CellChoice[];
  seed: number;
}

export interface ConformanceSummary {
  failed: number;
  checks: Array<{ id: string; passed: boolean; message?: string }>;
}

export interface ClusterDeps {
  env: ClusterEnv;
  stacks: RunStacks;
  cluster: ClusterApi;
  owners: StackOwners;
  /** the worker's k6: builds the archives */
  k6: string;
  repoRoot: string;
  resultsDir: string;
  rawRoot: string;
  /** the conformance suite against a URL (the pipeline passes runConformance) */
  verify: (url: string) => Promise<ConformanceSummary>;
  /** default: k6Archive with deps.k6 */
  archive?: (script: Script, env: Record<string, string>) => Promise<string>;
  /** the pipeline's progress: `(stage, pct) => void progress.set(stage, pct)` */
  onStage?: (stage: PipelineStage, progress: number) => void;
  log?: (line: string) => void;
  /** aborted when the worker stops: the run ends interrupted, the stack is still destroyed */
  signal?: AbortSignal;
  /** TestRun status polling, ms (default 5000) */
  pollMs?: number;
  /** extra time a TestRun may take beyond its planned load (pulls, scheduling), ms (default 15 min) */
  startupMarginMs?: number;
}

export interface ClusterOutcome {
  doc: ResultDocument;
  file: string;
  /** false when destroy failed: the stack is left for the sweep (logged) */
  destroyed: boolean;
}

/** The k6 image the runners use; its tag is the k6 version the result records. */
export const K6_RUNNER_IMAGE = "grafana/k6:1.8.1";

const MEASURED: Record<Workload, "checkout" | "freq-items"> = { checkout: "checkout", contention: "checkout", analytics: "freq-items" };

/** The coarse ramp of a profile's knee plan: startRate x factor^i, at most maxCoarseSteps, up to maxRate. */
export function rampRates(profile: Profile): number[] {
  const { knee } = PROFILE_SETTINGS[profile];
  const rates: number[] = [];
  for (let r = knee.startRate; rates.length < knee.maxCoarseSteps && r <= knee.maxRate; r *= knee.factor) rates.push(Math.round(r));
  return rates;
}

function environment(run: ClusterRun, env: ClusterEnv, outputs: RunStackOutputs | undefined): Environment {
  const m = MACHINE_TYPES[env.machineType];
  const pg = outputs?.storage.postgres;
  return {
    kind: "kubernetes",
    nodes: run.nodes,
    machineType: env.machineType,
    // declared by the machine type, not read from the nodes
    cpuModel: `${env.machineType} (${m.vcpus} vCPUs, ${m.memoryGiB} GiB per node)`,
    cores: m.vcpus * run.nodes,
    memoryBytes: m.memoryGiB * 2 ** 30 * run.nodes,
    os: env.cluster.kind === "gke" ? `GKE ${env.cluster.project}/${env.cluster.zone}` : "Kubernetes (kubeconfig)",
    node: process.version,
    k6Version: K6_RUNNER_IMAGE.split(":")[1]!,
    systemVersion: `${run.manifest.system} ${run.manifest.version}; image ${run.manifest.image}${outputs ? `; pods ${outputs.resources.cpu} CPU, ${outputs.resources.memory}` : ""}`,
    ...(pg
      ? {
          storage: {
            postgres: {
              instance: "dedicated" as const,
              fsync: pg.fsync ?? "on",
              synchronous_commit: pg.synchronous_commit ?? "on",
              full_page_writes: pg.full_page_writes ?? "on",
            },
          },
        }
      : {}),
  };
}

/** One cell of a cluster run from its ramp's aggregate: the same judgement of steps as a local run. */
export function rampCell(
  workload: Workload,
  distribution: Distribution,
  seed: number,
  rates: readonly number[],
  stepS: number,
  agg: Awaited<ReturnType<typeof aggregateK6>>,
): Cell {
  const max = maxThroughputResult(agg);
  const firstBad = max.steps.filter((s) => s.failedBecause && (max.sustainableRate === null || s.offeredRate > max.sustainableRate)).map((s) => s.offeredRate);
  const bad = firstBad.length ? Math.min(...firstBad) : null;
  const stoppedBecause = max.sustainableRate === null ? "first-step-unsustainable" : bad === null ? "max-steps-reached" : "unsustainable-step-found";
  const saturated = generatorSaturated({ droppedIterations: agg.droppedIterations, iterations: agg.iterations });
  const problems = [
    ...(agg.missingSteps.length ? [`the runners' output has no sample of ${agg.missingSteps.join(", ")}`] : []),
    ...(agg.overall.requests === 0 ? ["no measured request was made"] : []),
    ...saturated.reasons,
  ];
  return {
    workload,
    distribution,
    parameters: { environment: "kubernetes", rampRates: [...rates], stepS },
    seed,
    maxThroughput: {
      ...max,
      knee: { stoppedBecause, firstUnsustainableRate: bad, resolution: kneeResolution(max.sustainableRate, bad), targetResolution: null },
    },
    series: agg.perSecond,
    setupOps: setupOpsResult(agg),
    valid: problems.length === 0,
    ...(problems.length ? { invalidReason: problems.join("; ") } : {}),
  };
}

export async function runOnCluster(deps: ClusterDeps, run: ClusterRun): Promise<ClusterOutcome> {
  const startedAt = new Date();
  const rawDir = join(deps.rawRoot, run.runId);
  mkdirSync(rawDir, { recursive: true });
  const settings = PROFILE_SETTINGS[run.profile];
  const archive = deps.archive ?? ((script, env) => k6Archive(deps.k6, script, env));
  const onStage = deps.onStage ?? (() => {});
  const log = deps.log ?? (() => {});
  const pollMs = deps.pollMs ?? 5000;
  const rawFiles: string[] = [];
  const cells: Cell[] = [];
  let outputs: RunStackOutputs | undefined;
  let error: ResultDocument["error"];
  let stack: RunStack | undefined;
  let destroyed = true;

  const checkAbort = (stage: string) => {
    if (deps.signal?.aborted) throw new StageError(stage, `interrupted during ${stage}: ${String(deps.signal.reason ?? "the worker was stopped")}`);
  };
  const base: RunStackConfigInput = {
    runId: run.runId,
    cluster: deps.env.cluster,
    nodes: run.nodes,
    machineType: deps.env.machineType,
    target: {
      name: run.manifest.name,
      image: run.manifest.image ?? "",
      port: run.manifest.port,
      health: run.manifest.health,
      services: run.manifest.services,
      // span shipping from the cluster is not built: no breakdown in cluster runs
      tracing: false,
    },
    durable: true,
  };

  /** One TestRun: up with the phase's load, wait for it to end, collect the runners' output. */
  async function phase(stage: string, name: string, script: Script, env: Record<string, string>, plannedS: number, parallelism: number): Promise<string> {
    checkAbort(stage);
    const fullEnv = { ...env, BASE_URL: outputs!.targetUrl };
    const archiveBase64 = await archive(script, fullEnv).catch((e: Error) => {
      throw new StageError(stage, e.message);
    });
    const out = await stack!.up({ ...base, k6: { name, parallelism, archiveBase64, env: fullEnv, image: K6_RUNNER_IMAGE } }).catch((e: Error) => {
      throw new StageError(stage, `pulumi up of the ${name} TestRun failed: ${e.message}`);
    });
    const testRun = out.testRun ?? name;
    const deadline = Date.now() + plannedS * 1000 + (deps.startupMarginMs ?? 15 * 60_000);
    let stageNow: string | undefined;
    for (;;) {
      checkAbort(stage);
      stageNow = await deps.cluster.testRunStage(out.namespace, testRun).catch((e: Error) => (log(`run ${run.runId}: ${e.message}`), undefined));
      if (stageNow && FINAL_STAGES.includes(stageNow)) break;
      if (Date.now() > deadline)
        throw new StageError(
          stage,
          `the ${name} TestRun did not finish in time (stage ${stageNow ?? "unknown"} after ${Math.round(plannedS)} s of planned load plus the start-up margin)`,
        );
      await new Promise((r) => setTimeout(r, pollMs));
    }
    const csv = join(rawDir, `${name}.csv.gz`);
    const consoleFile = join(rawDir, `${name}.console.log`);
    try {
      writeRunnerOutput(await deps.cluster.runnerLogs(out.namespace, testRun), csv, consoleFile);
    } catch (e) {
      throw new StageError(stage, `${name}: ${(e as Error).message}`);
    }
    rawFiles.push(csv, consoleFile);
    if (stageNow !== "finished") throw new StageError(stage, `the ${name} TestRun ended in stage "${stageNow}" (its runners' logs are kept in ${consoleFile})`);
    return csv;
  }

  deps.owners.claim(run.runId);
  try {
    if (!run.manifest.image) throw new StageError("provision", "the manifest has no image: the kubernetes provider deploys the manifest's `image`");
    if (run.nodes > deps.env.maxNodes)
      throw new StageError(
        "provision",
        `the run asks for ${run.nodes} nodes; this server's cluster allows at most ${deps.env.maxNodes} (SFBENCH_CLUSTER_MAX_NODES)`,
      );
    onStage("provision", 1);
    stack = await deps.stacks.open(run.runId);
    outputs = await stack.up(base).catch((e: Error) => {
      throw new StageError("provision", `pulumi up failed: ${e.message}`);
    });
    checkAbort("provision");

    onStage("verify", 5);
    const fwd = await deps.cluster.forward(outputs.namespace, "target", run.manifest.port).catch((e: Error) => {
      throw new StageError("verify", e.message);
    });
    let report: ConformanceSummary;
    try {
      report = await deps.verify(fwd.url);
    } finally {
      fwd.close();
    }
    if (report.failed > 0) {
      const failed = report.checks.filter((c) => !c.passed);
      throw new StageError(
        "verify",
        `${failed.length} of ${report.checks.length} conformance checks failed: ${failed
          .map((c) => `${c.id} (${c.message ?? "failed"})`)
          .slice(0, 5)
          .join("; ")}`,
      );
    }

    const productPrefix = `r${run.runId.slice(0, 8)}`;
    const common = { SEED: String(run.seed), PRODUCTS: String(settings.products), PRODUCT_PREFIX: productPrefix };
    onStage("seed", 10);
    // planned seconds of the setup phases: a generous bound (50 products/s, 100 checkouts/s) for the TestRun's deadline
    await phase("seed", "seed", "seed", common, settings.products / 50, 1);
    const ordered = orderCells(run.cells);
    const rates = rampRates(run.profile);
    let populated = false;
    for (const [i, { workload, distribution }] of ordered.entries()) {
      if (workload === "contention") {
        // its hot products and scarce stock are set up by the local provider's cell code, which does not run in the cluster yet
        cells.push({
          workload,
          distribution,
          parameters: { environment: "kubernetes" },
          seed: run.seed,
          series: [],
          valid: false,
          invalidReason: "not run: the contention workload's stock setup runs only with the local provider so far",
        });
        continue;
      }
      if (workload === "analytics" && !populated) {
        onStage("seed", 10 + Math.round((i / ordered.length) * 80));
        await phase("seed", "populate", "populate", { ...common, POPULATE: String(settings.populate) }, settings.populate / 100, 1);
        populated = true;
      }
      onStage("load", 10 + Math.round((i / ordered.length) * 80));
      const steps = rates.map((rate) => ({ rate, duration: settings.stepS }));
      const top = Math.max(...rates);
      const env = {
        ...common,
        DISTRIBUTION: distribution,
        STEPS: JSON.stringify(steps),
        PRE_VUS: String(Math.max(10, Math.ceil(top * 0.25))),
        MAX_VUS: String(Math.max(100, Math.ceil(top * 2.5))),
      };
      const csv = await phase("load", `${workload}-${distribution}-ramp`, workload, env, rates.length * settings.stepS, deps.env.k6Parallelism);
      const agg = await aggregateK6(csv, { op: MEASURED[workload], stepRates: rates, stepDurationsS: rates.map(() => settings.stepS) });
      cells.push(rampCell(workload, distribution, run.seed, rates, settings.stepS, agg));
    }
    onStage("store", 95);
  } catch (e) {
    const stage = e instanceof StageError ? e.stage : "run";
    error = {
      stage,
      message:
        deps.signal?.aborted && !(e as Error).message.startsWith("interrupted")
          ? `interrupted during ${stage}: ${String(deps.signal.reason ?? "the worker was stopped")}`
          : (e as Error).message,
    };
  } finally {
    onStage("teardown", 98);
    if (stack) {
      try {
        await stack.destroy();
        await deps.stacks.remove(stack.name);
      } catch (e) {
        destroyed = false;
        log(`run ${run.runId}: teardown failed, the start-up sweep will retry: ${(e as Error).message}`);
      }
    }
    // a stack left behind is now the sweep's: no live owner
    deps.owners.release(run.runId);
  }
  const doc: ResultDocument = {
    schemaVersion: RESULT_SCHEMA_VERSION,
    runId: run.runId,
    status: error ? (deps.signal?.aborted ? "interrupted" : "failed") : "completed",
    ...(error ? { error } : {}),
    target: { name: run.manifest.name, version: run.manifest.version, system: run.manifest.system, manifestDigest: run.manifestDigest },
    environment: environment(run, deps.env, outputs),
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    profile: run.profile,
    cells,
    rawData: { dir: rawDir, files: rawFiles.map((f) => f.slice(rawDir.length + 1)) },
  };
  return { doc, file: writeResult(deps.resultsDir, doc), destroyed };
}
