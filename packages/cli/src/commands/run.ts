/**
 * sfbench run (--target NAME | --url URL | --image REF (--manifest FILE | --target NAME)) [--workload ...] [--distribution ...] [--profile ...]:
 * verify first (a failing target gets no numbers), then the experiments, with
 * live progress and a summary table; one result document per run. With
 * --image the target runs from its OCI image in a podman container
 * (@sfbench/provider-container) with the machine class's CPU quota and memory.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { cellsOf, DISTRIBUTION_CHOICES, EXPERIMENTS, manifestDigest, microOf, nodeSupport, parametersOfChoice, PROFILES, WORKLOAD_CHOICES, type Profile, type ProgressEvent, type ResultDocument } from "@sfbench/core";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { containerTargetControl, parseMachineClass, requireImage, startContainerTarget, teardownRun, type ContainerTargetControl } from "@sfbench/provider-container";
import { findTarget, localTargetControl, nodeLogs, startTarget, stopTarget, storageFingerprint, type LocalTargetControl, type StartedTarget } from "@sfbench/provider-local";
import { k6Path, kafkaBrokers, paths, status, up } from "@sfbench/services";
import { aliveCheck, failedRunDocument, measuredNodeCount, runBenchmark, writeResult, type MeasuredNodeCount } from "@sfbench/workloads";
import { intFlag, oneOf, parseFlags, UsageError, urlFlag } from "../args.ts";
import { readManifest } from "../manifest-file.ts";
import { note } from "../progress.ts";
import { LiveLine } from "../live.ts";
import { summaryTable } from "../summary.ts";

export const runFlags = {
  target: { type: "string", value: "NAME", help: "a bundled target: started fresh, measured, stopped" },
  url: { type: "string", value: "URL", help: "a running target (no cost figures: its processes are unknown)" },
  image: { type: "string", value: "REF", help: "run the target from this OCI image in a podman container (sfbench image build; manifest from --manifest or --target)" },
  manifest: { type: "string", value: "FILE", help: "the target.json of the --image (default: --target's)" },
  cpus: { type: "string", value: "N", help: "with --image: the container's CPU quota in cores (default: the target's half of the cores)" },
  memory: { type: "string", value: "BYTES", help: "with --image: the container's memory limit, e.g. 4g (default: a quarter of the machine's)" },
  workload: { type: "string", value: WORKLOAD_CHOICES.join("|"), help: "default all" },
  distribution: { type: "string", value: DISTRIBUTION_CHOICES.join("|"), help: "default both" },
  profile: { type: "string", value: PROFILES.join("|"), help: "default quick" },
  experiment: { type: "string", value: EXPERIMENTS.join("|"), help: "the phases run per cell, default throughput (ramp, then stable load)" },
  seed: { type: "string", value: "N", help: "seeds every random choice, default 1" },
  results: { type: "string", value: "DIR", help: "where result documents go, default results/" },
  json: { type: "boolean", help: "print the result document instead of the summary" },
  "no-trace": { type: "boolean", help: "do not trace a target that supports it (no latency breakdown)" },
  nodes: { type: "string", value: "N[,N...]", help: "run the target as N processes (target.json nodes); several counts: the scalability experiment" },
} as const;

export async function run(argv: string[]): Promise<number> {
  const cmd = "sfbench run";
  const { values } = parseFlags(cmd, argv, runFlags);
  const url = urlFlag(cmd, "url", values.url);
  if (!url === !(values.target || values.image)) throw new UsageError(`${cmd}: give exactly one of --url URL, --target NAME or --image REF`);
  if (values.image && !values.manifest === !values.target) throw new UsageError(`${cmd}: --image needs exactly one of --manifest FILE or --target NAME (the target's manifest)`);
  if (!values.image && (values.manifest || values.cpus || values.memory)) throw new UsageError(`${cmd}: --manifest, --cpus and --memory go with --image REF`);
  if (values.image && values.nodes) throw new UsageError(`${cmd}: --nodes: a target from an image runs as one container`);
  let machine;
  try {
    machine = values.image ? parseMachineClass(values.cpus, values.memory) : undefined;
  } catch (e) {
    throw new UsageError(`${cmd}: ${(e as Error).message}`);
  }
  const workload = oneOf(cmd, "--workload", values.workload, WORKLOAD_CHOICES) ?? "all";
  const distribution = oneOf(cmd, "--distribution", values.distribution, DISTRIBUTION_CHOICES) ?? "both";
  const profile: Profile = oneOf(cmd, "--profile", values.profile, PROFILES) ?? "quick";
  const seed = intFlag(cmd, "seed", values.seed, 0, 2 ** 31 - 1) ?? 1;
  const resultsDir = values.results ?? join(paths.root, "results");
  const experiment = oneOf(cmd, "--experiment", values.experiment, EXPERIMENTS) ?? "throughput";
  const chosen = parametersOfChoice(workload, distribution);
  const cells = cellsOf(chosen);

  const k6 = await k6Path({ onProgress: (m) => note(`k6: ${m}`) });
  const nodeCounts = nodesFlag(cmd, values.nodes, values.target);

  /** One run: start the target (with `nodes` processes when given), verify, measure, stop. */
  const once = async (nodes: number | undefined, scalability?: { measured: MeasuredNodeCount[]; routing: "balancer" | "self" }): Promise<{ code: number; doc?: ResultDocument }> => {
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
    if (values.image) {
      const manifest = values.manifest ? readManifest(cmd, values.manifest).manifest : findTarget(values.target!).manifest;
      target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
      await requireImage(values.image);
      const tracing = manifest.tracing && !values["no-trace"] && (await kafkaUp());
      const runId = randomUUID();
      containerRun = runId;
      const c = await startContainerTarget({ runId, image: values.image, manifest, machine: machine!, trace: tracing, onProgress: note });
      const cc = await containerTargetControl(c, manifest, { onProgress: note });
      control = cc;
      baseUrl = c.url;
      note(`${manifest.name} is up at ${baseUrl} from ${values.image} (${machine!.cpus} CPU, ${Math.round(machine!.memoryBytes / 2 ** 20)} MiB)${tracing ? " (tracing: span lines from the container's output, shipped through Kafka)" : ""}`);
      if (tracing) trace = { logFile: c.nodes[0]!.log, logFiles: () => cc.logs(), brokers: kafkaBrokers() };
      pids = () => cc.pids();
      storage = storageFingerprint(c);
      microDeclared = manifest.micro === true;
      auditReadsPerSecond = manifest.audit?.readsPerSecond;
      systemVersion = [`${manifest.system} ${manifest.version}`, `image ${values.image} (${machine!.name})`, ...(c.postgres ? [`PostgreSQL ${c.postgres.settings.version}`] : [])].join("; ");
    } else if (values.target) {
      const { manifest } = findTarget(values.target);
      target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
      const tracing = manifest.tracing && !values["no-trace"] && (await kafkaUp());
      // scale-up adds a node to a target that runs as nodes: it starts as node 0 of 1
      const asNodes = experiment === "scale-up" && manifest.nodes?.elastic === true;
      const startNodes = nodes ?? (asNodes ? 1 : undefined);
      started = await startTarget(values.target, { onProgress: note, trace: tracing, ...(startNodes !== undefined ? { nodes: startNodes } : {}) });
      control = localTargetControl(started, { onProgress: note });
      baseUrl = started.url;
      note(`${values.target} is up at ${baseUrl}${tracing ? " (tracing: span lines to its log, shipped through Kafka)" : ""}`);
      // a multi-node target writes span lines to one log per node
      const name = values.target;
      if (tracing) trace = { logFile: started.log, logFiles: () => nodeLogs(name), brokers: kafkaBrokers() };
      // cost: the target and its own PostgreSQL; the shared servers (Redis, Kafka) also serve others and are not counted
      const shared = manifest.services.filter((s) => s !== "postgres");
      const services = shared.length ? await status(shared) : [];
      const t = started;
      // the processes and their liveness follow the state file: the resilience experiments kill and restart nodes
      const c = control;
      pids = () => c.pids();
      storage = storageFingerprint(t);
      microDeclared = manifest.micro === true;
      auditReadsPerSecond = manifest.audit?.readsPerSecond;
      systemVersion = [`${manifest.system} ${manifest.version}`, ...(t.postgres ? [`PostgreSQL ${t.postgres.settings.version}`] : []), ...services.map((s) => s.detail.split(" on ")[0])].join("; ");
    } else {
      baseUrl = url!;
      microDeclared = microOf(chosen) && (await answers(`${baseUrl}/micro/empty`));
      target = { name: new URL(baseUrl).host.replace(/[^a-z0-9-]/gi, "-").toLowerCase(), version: "0.0.0", system: `target at ${baseUrl}`, manifestDigest: `sha256:${"0".repeat(64)}` };
    }
    const checkAlive = aliveCheck(() => control?.exited());

    try {
      // 1. Verify before measuring.
      note(`verifying ${baseUrl} (conformance suite)`);
      const report = await runConformance(baseUrl, { micro: microDeclared });
      if (report.failed > 0) {
        for (const r of report.checks.filter((c) => !c.passed)) process.stderr.write(formatFailure(r) + "\n");
        const message = `${report.failed} of ${report.checks.length} conformance checks failed: ${report.checks.filter((c) => !c.passed).map((c) => c.id).slice(0, 10).join(", ")}`;
        const file = writeResult(resultsDir, failedRunDocument({ target, profile, startedAt: new Date(report.startedAt), stage: "verify", message, k6, repoRoot: paths.root, rawDir: join(paths.home, "runs") }));
        note(`verify failed: no numbers for a non-conformant target; failed run written to ${file}`);
        return { code: 1 };
      }
      note(`verify: ${report.passed} checks passed`);
      await up(["k6"]);

      // 2. The experiments.
      const live = new LiveLine();
      const outcome = await runBenchmark({
        target,
        baseUrl,
        k6,
        profile,
        cells,
        experiment,
        ...(control ? { control } : {}),
        ...(auditReadsPerSecond ? { auditReadsPerSecond } : {}),
        ...(microOf(chosen) ? { micro: { declared: microDeclared } } : {}),
        seed,
        repoRoot: paths.root,
        resultsDir,
        rawRoot: join(paths.home, "runs"),
        targetPids: pids,
        checkAlive,
        systemVersion,
        storage,
        trace,
        ...(nodes !== undefined ? { nodes } : {}),
        ...(containerRun ? { runId: containerRun } : {}),
        ...(scalability ? { scalability } : {}),
        onProgress: (e: ProgressEvent) => live.update(e),
      });
      live.done();
      process.stdout.write(values.json ? JSON.stringify(outcome.doc, null, 2) + "\n" : summaryTable(outcome.doc) + `\nresult: ${outcome.file}\nraw data: ${outcome.doc.rawData.dir}\n`);
      if (outcome.doc.status === "failed") {
        note(`run failed during ${outcome.doc.error!.stage}: ${outcome.doc.error!.message}`);
        return { code: 1, doc: outcome.doc };
      }
      return { code: 0, doc: outcome.doc };
    } finally {
      if (started) await stopTarget(values.target!);
      if (containerRun) await teardownRun(containerRun, { logsTo: join(paths.home, "runs", containerRun) });
    }
  };

  if (nodeCounts.length <= 1) return (await once(nodeCounts[0])).code;
  // the scalability experiment: the same cells once per node count, one document each; the last one holds the chart's points
  const routing = nodeSupport(findTarget(values.target!).manifest).routing;
  const measured: MeasuredNodeCount[] = [];
  for (const [i, n] of nodeCounts.entries()) {
    note(`scalability: ${n} node${n === 1 ? "" : "s"} (${i + 1} of ${nodeCounts.length})`);
    const r = await once(n, i === nodeCounts.length - 1 ? { measured, routing } : undefined);
    const point = r.doc ? measuredNodeCount(n, r.doc.cells) : undefined;
    if (r.code !== 0 || !point) {
      note(`scalability stopped at ${n} nodes: the run did not complete`);
      return r.code || 1;
    }
    measured.push(point);
  }
  return 0;
}

/** --nodes N or N,N,...: node counts the target supports (target.json nodes.max), ascending, each once. */
function nodesFlag(cmd: string, raw: string | undefined, target: string | undefined): number[] {
  if (raw === undefined) return [];
  if (!target) throw new UsageError(`${cmd}: --nodes needs --target NAME (sfbench starts the nodes; a target given by --url runs as it is)`);
  const max = nodeSupport(findTarget(target).manifest).max;
  const counts = raw.split(",").map((x) => x.trim());
  const bad = counts.filter((c) => !/^\d+$/.test(c) || Number(c) < 1 || Number(c) > max);
  if (bad.length) throw new UsageError(`${cmd}: --nodes: ${bad.join(", ")} is not a node count ${target} supports (allowed: 1 to ${max}${max === 1 ? ", its target.json declares no nodes" : ""}), e.g. --nodes 1,2,4`);
  const n = [...new Set(counts.map(Number))].sort((a, b) => a - b);
  if (n.length !== counts.length) throw new UsageError(`${cmd}: --nodes: each node count once, got ${raw}`);
  return n;
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

/** Starts Kafka for the spans; false (with a note: the run goes on without a breakdown) when it cannot. */
async function kafkaUp(): Promise<boolean> {
  try {
    await up(["kafka"], { onProgress: (_s, m) => note(`kafka: ${m}`) });
    return true;
  } catch (e) {
    note(`tracing off, no latency breakdown: Kafka is not available: ${(e as Error).message}`);
    return false;
  }
}
