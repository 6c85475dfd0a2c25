/**
 * One run of `sfbench run`: chooses where the target runs (a bundled one as
 * processes, its OCI image in a container, the cluster program under podman
 * kube play, or the one at --url, which nothing starts) and hands that
 * provider to the engine's harness (measureTarget: start, verify, measure,
 * stop), then prints what came out. `sfbench run` calls it once (or once per
 * node count); trials and campaigns call it once per trial, each with a fresh
 * target.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  manifestDigest,
  urlTargetProvider,
  type CellChoice,
  type Experiment,
  type Profile,
  type PopulatedState,
  type ProgressEvent,
  type ResultDocument,
  type RunParameters,
  type TargetManifest,
  type TargetProvider,
  type TrialTag,
} from "@sfbench/core";
import { formatFailure } from "@sfbench/conformance";
import { imageTargetProvider, type MachineClass } from "@sfbench/provider-container";
import { localTargetProvider } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { kafkaBrokers, paths } from "@sfbench/services";
import { buildPopulated, measureTarget, nodesToStart, type MeasuredNodeCount, type MeasurePlan, type ProfileSettings } from "@sfbench/engine";
import { borrowForCommand } from "./borrowed.ts";
import { readManifest } from "./manifest-file.ts";
import { note } from "./progress.ts";
import { LiveLine } from "./live.ts";
import { summaryTable } from "./summary.ts";

export interface RunOnceOptions {
  /** the command, for error messages */
  cmd: string;
  target?: string;
  url?: string;
  image?: string;
  manifest?: string;
  machine?: MachineClass;
  /** the target as the cluster program's objects under podman kube play (with `target`) */
  kubePlay?: boolean;
  noTrace?: boolean;
  /** print the result document instead of the summary */
  json?: boolean;
  /** the workloads and distributions chosen (the micro routes go with every workload) */
  chosen: Pick<RunParameters, "workloads" | "distributions">;
  cells: CellChoice[];
  profile: Profile;
  experiment: Experiment;
  seed: number;
  resultsDir: string;
  k6: string;
  nodes?: number;
  scalability?: { measured: MeasuredNodeCount[]; routing: "balancer" | "self" };
  campaign?: TrialTag;
  /** the folder of target folders (default packages/targets): tests run copies of a bundled target under names of their own */
  targetsRoot?: string;
  /** changes to the profile's settings (tests of the campaign machinery, as bench:profiles does); they show in each cell's parameters */
  settings?: Partial<ProfileSettings>;
  /** start the target on this populated state (built by buildPopulatedOnce) instead of seeding it */
  populated?: { restore: string; state: PopulatedState };
  /** aborted: the run stops its target at once and its document says interrupted (interrupt.ts) */
  signal?: AbortSignal;
}

export interface RunOnceOutcome {
  code: number;
  doc?: ResultDocument;
  /** the result document's file */
  file?: string;
}

/** the machine type the played pods are sized for: the one whose pods fit a small machine (docs/cluster.md) */
const KUBE_PLAY_MACHINE_TYPE = "kind" as const;

/** What chooseProvider chose: the provider, and the target as its documents name it. */
interface ChosenProvider {
  provider: TargetProvider;
  manifest?: TargetManifest;
  target: ResultDocument["target"];
  nodes?: number;
}

/**
 * The provider for what the options name. The cluster program's provider is
 * loaded only when it is asked for: it brings Pulumi's SDK, which made every
 * `sfbench run` and `sfbench campaign` start up in 2.2 s instead of 1.3 s.
 */
async function chooseProvider(o: RunOnceOptions, runId: string): Promise<ChosenProvider> {
  if (o.url) {
    return {
      provider: urlTargetProvider(o.url),
      target: {
        name: new URL(o.url).host.replace(/[^a-z0-9-]/gi, "-").toLowerCase(),
        version: "0.0.0",
        system: `target at ${o.url}`,
        manifestDigest: `sha256:${"0".repeat(64)}`,
      },
    };
  }
  const manifest = o.image && o.manifest ? readManifest(o.cmd, o.manifest).manifest : findTarget(o.target!, o.targetsRoot).manifest;
  const target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
  const nodes = nodesToStart(manifest, o.experiment, o.nodes);
  const provider = o.image
    ? imageTargetProvider(runId, manifest, { stored: o.image }, { machine: o.machine!, nodes })
    : o.kubePlay
      ? (await import("@sfbench/provider-kubernetes")).kubePlayProvider({ runId, manifest, machineType: KUBE_PLAY_MACHINE_TYPE, onProgress: note })
      : localTargetProvider(manifest, { targetsRoot: o.targetsRoot, nodes });
  return { provider, manifest, target, ...(nodes !== undefined ? { nodes } : {}) };
}

/** The harness's plan for these options (a trial's and a populated state's build alike). */
function planOf(o: RunOnceOptions, runId: string, chosen: ChosenProvider, live: LiveLine): MeasurePlan {
  const { manifest, target } = chosen;
  return {
    runId,
    target,
    ...(manifest ? { manifest } : {}),
    profile: o.profile,
    chosen: o.chosen,
    cells: o.cells,
    experiment: o.experiment,
    seed: o.seed,
    k6: o.k6,
    repoRoot: paths.root,
    resultsDir: o.resultsDir,
    rawRoot: join(paths.home, "runs"),
    ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
    ...(o.scalability ? { scalability: o.scalability } : {}),
    ...(o.campaign ? { campaign: o.campaign } : {}),
    ...(o.settings ? { settings: o.settings } : {}),
    // the played cluster program has no Kafka for the spans (kubePlayProvider says why)
    ...(o.noTrace || o.kubePlay ? {} : { kafka: kafkaUp }),
    onNote: note,
    onProgress: (e: ProgressEvent) => live.update(e),
    ...(o.signal ? { signal: o.signal } : {}),
  };
}

export async function runOnce(o: RunOnceOptions): Promise<RunOnceOutcome> {
  const runId = randomUUID();
  const chosen = await chooseProvider(o, runId);
  const live = new LiveLine();
  const outcome = await measureTarget(chosen.provider, { ...planOf(o, runId, chosen, live), ...(o.populated ? { populated: o.populated } : {}) });
  live.done();
  if (outcome.status === "interrupted") return { code: 130 };
  if (outcome.status === "not-measured") {
    for (const r of outcome.report?.checks.filter((c) => !c.passed) ?? []) process.stderr.write(formatFailure(r) + "\n");
    note(
      outcome.stage === "verify"
        ? `verify failed: no numbers for a non-conformant target; failed run written to ${outcome.file}`
        : `the target did not start: ${outcome.doc.error?.message}; failed run written to ${outcome.file}`,
    );
    return { code: 1, doc: outcome.doc, file: outcome.file };
  }
  return reportRun(outcome, o.json);
}

/**
 * The populated state of the target these options name, built into `dir`
 * (campaign-run.ts builds one per target before the first round). Throws
 * when its provider cannot copy a target's data, or the build failed.
 */
export async function buildPopulatedOnce(o: RunOnceOptions, dir: string): Promise<PopulatedState> {
  const runId = randomUUID();
  const chosen = await chooseProvider(o, runId);
  const live = new LiveLine();
  try {
    const state = await buildPopulated(chosen.provider, planOf(o, runId, chosen, live), dir);
    if (!state) throw new Error("the build was interrupted");
    return state;
  } finally {
    live.done();
  }
}

/** A measured run as `sfbench run` prints it: its document (--json) or its summary table and files; exit 1 when it failed. */
export function reportRun(outcome: { doc: ResultDocument; file: string }, json: boolean | undefined): RunOnceOutcome {
  process.stdout.write(
    json ? JSON.stringify(outcome.doc, null, 2) + "\n" : summaryTable(outcome.doc) + `\nresult: ${outcome.file}\nraw data: ${outcome.doc.rawData.dir}\n`,
  );
  if (outcome.doc.status === "failed") {
    note(`run failed during ${outcome.doc.error!.stage}: ${outcome.doc.error!.message}`);
    return { code: 1, doc: outcome.doc, file: outcome.file };
  }
  if (outcome.doc.status === "interrupted") {
    note(`run ${outcome.doc.error?.message ?? "interrupted"}; its target was stopped`);
    return { code: 130, doc: outcome.doc, file: outcome.file };
  }
  return { code: 0, doc: outcome.doc, file: outcome.file };
}

/**
 * Kafka for the spans, borrowed until the command ends (stopped then if it
 * started it); rejects when it cannot (the harness notes it and the run goes on without a breakdown).
 */
async function kafkaUp(): Promise<string[]> {
  await borrowForCommand("kafka", (m) => note(`kafka: ${m}`));
  return kafkaBrokers();
}
