/**
 * One run of `sfbench run`: start the target (a bundled one, or its OCI image
 * in a container) or take the one at --url, verify it (a failing target gets
 * no numbers), measure, write the result document, stop what was started.
 * `sfbench run` calls it once (or once per node count); trials and campaigns
 * call it once per trial, each with a fresh target.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  manifestDigest,
  microOf,
  type CellChoice,
  type Experiment,
  type Profile,
  type ProgressEvent,
  type ResultDocument,
  type RunParameters,
  type TrialTag,
} from "@sfbench/core";
import { formatFailure, runConformance } from "@sfbench/conformance";
import {
  containerTargetControl,
  requireImage,
  startContainerTarget,
  teardownRun,
  type ContainerTargetControl,
  type MachineClass,
} from "@sfbench/provider-container";
import {
  findTarget,
  freePort,
  localTargetControl,
  nodeLogs,
  startTarget,
  stopTarget,
  storageFingerprint,
  type LocalTargetControl,
  type StartedTarget,
} from "@sfbench/provider-local";
import { kafkaBrokers, paths, status, up } from "@sfbench/services";
import { borrowForCommand } from "./borrowed.ts";
import { aliveCheck, failedRunDocument, runBenchmark, targetShare, writeResult, type MeasuredNodeCount, type ProfileSettings } from "@sfbench/engine";
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
}

export interface RunOnceOutcome {
  code: number;
  doc?: ResultDocument;
  /** the result document's file */
  file?: string;
}

export async function runOnce(o: RunOnceOptions): Promise<RunOnceOutcome> {
  let started: StartedTarget | undefined;
  let control: LocalTargetControl | ContainerTargetControl | undefined;
  // a container target is keyed by the run's id: the document, its raw data and its containers share it
  let containerRun: string | undefined;
  let target: ResultDocument["target"];
  let baseUrl: string;
  let pids: () => number[] = () => [];
  let systemVersion: string | undefined;
  let storage: ReturnType<typeof storageFingerprint>;
  let trace: { logFile: string; logFiles?: () => string[]; brokers: string[] } | undefined;
  // the micro routes: what the manifest declares; a target given by URL is asked
  let microDeclared = false;
  let auditReadsPerSecond: number | undefined;
  if (o.image) {
    const manifest = o.manifest ? readManifest(o.cmd, o.manifest).manifest : findTarget(o.target!).manifest;
    target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
    await requireImage(o.image);
    const tracing = manifest.tracing && !o.noTrace && (await kafkaUp());
    const runId = randomUUID();
    containerRun = runId;
    // scale-up adds a node to a target that runs as nodes: it starts as node 0 of 1
    const asNodes = o.experiment === "scale-up" && manifest.nodes?.elastic === true;
    const nodes = o.nodes ?? (asNodes ? 1 : undefined);
    const c = await startContainerTarget({
      runId,
      image: o.image,
      manifest,
      machine: o.machine!,
      // on the host's network: a free port, so the run never meets whatever holds the manifest's
      port: await freePort(),
      trace: tracing,
      onProgress: note,
      ...(nodes !== undefined ? { nodes } : {}),
    });
    const cc = await containerTargetControl(c, manifest, { onProgress: note });
    control = cc;
    baseUrl = c.url;
    note(
      `${manifest.name} is up at ${baseUrl} from ${o.image} (${o.machine!.cpus} CPU, ${Math.round(o.machine!.memoryBytes / 2 ** 20)} MiB)${tracing ? " (tracing: span lines from the container's output, shipped through Kafka)" : ""}`,
    );
    if (tracing) trace = { logFile: c.nodes[0]!.log, logFiles: () => cc.logs(), brokers: kafkaBrokers() };
    pids = () => cc.pids();
    storage = storageFingerprint(c);
    microDeclared = manifest.micro === true;
    auditReadsPerSecond = manifest.audit?.readsPerSecond;
    systemVersion = [
      `${manifest.system} ${manifest.version}`,
      `image ${o.image} (${o.machine!.name})`,
      ...(c.postgres ? [`PostgreSQL ${c.postgres.settings.version}`] : []),
    ].join("; ");
  } else if (o.target) {
    const { manifest } = findTarget(o.target, o.targetsRoot);
    target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
    const tracing = manifest.tracing && !o.noTrace && (await kafkaUp());
    // scale-up adds a node to a target that runs as nodes: it starts as node 0 of 1
    const asNodes = o.experiment === "scale-up" && manifest.nodes?.elastic === true;
    const startNodes = o.nodes ?? (asNodes ? 1 : undefined);
    // started on the cores the run gives it, and told how many, before it sizes itself
    const cores = targetShare();
    started = await startTarget(o.target, {
      onProgress: note,
      port: "free",
      forRun: true,
      trace: tracing,
      ...(cores ? { cores } : {}),
      ...(o.targetsRoot ? { targetsRoot: o.targetsRoot } : {}),
      ...(startNodes !== undefined ? { nodes: startNodes } : {}),
    });
    control = localTargetControl(started, { onProgress: note });
    baseUrl = started.url;
    note(`${o.target} is up at ${baseUrl}${tracing ? " (tracing: span lines to its log, shipped through Kafka)" : ""}`);
    // a multi-node target writes span lines to one log per node
    const name = o.target;
    if (tracing) trace = { logFile: started.log, logFiles: () => nodeLogs(name), brokers: kafkaBrokers() };
    // cost: the target and its own PostgreSQL and Kafka; the shared Redis also serves others and is not counted
    const shared = manifest.services.filter((s) => s !== "postgres" && s !== "kafka");
    const services = shared.length ? await status(shared) : [];
    const t = started;
    // the processes and their liveness follow the state file: the resilience experiments kill and restart nodes
    const c = control;
    pids = () => c.pids();
    storage = storageFingerprint(t);
    microDeclared = manifest.micro === true;
    auditReadsPerSecond = manifest.audit?.readsPerSecond;
    systemVersion = [
      `${manifest.system} ${manifest.version}`,
      ...(t.postgres ? [`PostgreSQL ${t.postgres.settings.version}`] : []),
      ...(t.kafka ? [`Kafka ${t.kafka.version} (its own broker)`] : []),
      ...services.map((s) => s.detail.split(" on ")[0]),
    ].join("; ");
  } else {
    baseUrl = o.url!;
    microDeclared = microOf(o.chosen) && (await answers(`${baseUrl}/micro/empty`));
    target = {
      name: new URL(baseUrl).host.replace(/[^a-z0-9-]/gi, "-").toLowerCase(),
      version: "0.0.0",
      system: `target at ${baseUrl}`,
      manifestDigest: `sha256:${"0".repeat(64)}`,
    };
  }
  const checkAlive = aliveCheck(() => control?.exited());

  try {
    // 1. Verify before measuring.
    note(`verifying ${baseUrl} (conformance suite)`);
    const report = await runConformance(baseUrl, { micro: microDeclared });
    if (report.failed > 0) {
      for (const r of report.checks.filter((c) => !c.passed)) process.stderr.write(formatFailure(r) + "\n");
      const message = `${report.failed} of ${report.checks.length} conformance checks failed: ${report.checks
        .filter((c) => !c.passed)
        .map((c) => c.id)
        .slice(0, 10)
        .join(", ")}`;
      const file = writeResult(o.resultsDir, {
        ...failedRunDocument({
          target,
          profile: o.profile,
          startedAt: new Date(report.startedAt),
          stage: "verify",
          message,
          k6: o.k6,
          repoRoot: paths.root,
          rawDir: join(paths.home, "runs"),
        }),
        ...(o.campaign ? { campaign: o.campaign } : {}),
      });
      note(`verify failed: no numbers for a non-conformant target; failed run written to ${file}`);
      return { code: 1, file };
    }
    note(`verify: ${report.passed} checks passed`);
    await up(["k6"]);

    // 2. The experiments.
    const live = new LiveLine();
    const outcome = await runBenchmark({
      target,
      baseUrl,
      k6: o.k6,
      profile: o.profile,
      cells: o.cells,
      experiment: o.experiment,
      ...(control ? { control } : {}),
      ...(auditReadsPerSecond ? { auditReadsPerSecond } : {}),
      ...(microOf(o.chosen) ? { micro: { declared: microDeclared } } : {}),
      seed: o.seed,
      repoRoot: paths.root,
      resultsDir: o.resultsDir,
      rawRoot: join(paths.home, "runs"),
      targetPids: pids,
      checkAlive,
      systemVersion,
      storage,
      trace,
      ...(o.nodes !== undefined ? { nodes: o.nodes } : {}),
      ...(containerRun ? { runId: containerRun } : {}),
      ...(o.scalability ? { scalability: o.scalability } : {}),
      ...(o.campaign ? { campaign: o.campaign } : {}),
      ...(o.settings ? { settings: o.settings } : {}),
      onProgress: (e: ProgressEvent) => live.update(e),
    });
    live.done();
    return reportRun(outcome, o.json);
  } finally {
    if (started) await stopTarget(o.target!);
    if (containerRun) await teardownRun(containerRun, { logsTo: join(paths.home, "runs", containerRun) });
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
  return { code: 0, doc: outcome.doc, file: outcome.file };
}

/** Whether a GET answers 200 within 5 s (a target given by URL that implements the micro routes). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Kafka for the spans, borrowed until the command ends (stopped then if it
 * started it); false (with a note: the run goes on without a breakdown) when it cannot.
 */
async function kafkaUp(): Promise<boolean> {
  try {
    await borrowForCommand("kafka", (m) => note(`kafka: ${m}`));
    return true;
  } catch (e) {
    note(`tracing off, no latency breakdown: Kafka is not available: ${(e as Error).message}`);
    return false;
  }
}
