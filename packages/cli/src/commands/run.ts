/**
 * sfbench run (--target NAME | --url URL | --image REF (--manifest FILE | --target NAME)) [--workload ...] [--distribution ...] [--profile ...]:
 * verify first (a failing target gets no numbers), then the experiments, with
 * live progress and a summary table; one result document per run. With
 * --image the target runs from its OCI image in a podman container
 * (@sfbench/provider-container) with the machine class's CPU quota and memory.
 * With --trials N: N trials of a bundled target, each started fresh, and the
 * statistics over them (campaign-run.ts). With --kube-play the target runs as
 * the cluster program's pods under podman kube play (run-once.ts chooses the provider).
 */
import { join } from "node:path";
import {
  cellsOf,
  DISTRIBUTION_CHOICES,
  EXPERIMENT_TEXT,
  EXPERIMENTS,
  nodeSupport,
  parametersOfChoice,
  PROFILES,
  WORKLOAD_CHOICES,
  type Profile,
} from "@sfbench/core";
import { parseMachineClass } from "@sfbench/provider-container";
import { findTarget } from "@sfbench/catalogue";
import { k6Path, paths } from "@sfbench/services";
import { measuredNodeCount, type MeasuredNodeCount } from "@sfbench/engine";
import { intFlag, oneOf, parseFlags, UsageError, urlFlag } from "../args.ts";
import { BUSY_REPEATS, MAX_TRIALS, runCampaign } from "../campaign-run.ts";
import { commandSignal } from "../interrupt.ts";
import { note } from "../progress.ts";
import { runOnce } from "../run-once.ts";
import { readManifest } from "../manifest-file.ts";

export const runFlags = {
  target: { type: "string", value: "NAME", help: "a bundled target: started fresh, measured, stopped" },
  url: { type: "string", value: "URL", help: "a running target (no cost figures: its processes are unknown)" },
  image: {
    type: "string",
    value: "REF",
    help: "run the target from this OCI image in a podman container (sfbench image build; manifest from --manifest or --target)",
  },
  manifest: { type: "string", value: "FILE", help: "the target.json of the --image (default: --target's)" },
  cpus: { type: "string", value: "N", help: "with --image: the container's CPU quota in cores (default: the target's half of the cores)" },
  memory: { type: "string", value: "BYTES", help: "with --image: the container's memory limit, e.g. 4g (default: a quarter of the machine's)" },
  "kube-play": {
    type: "boolean",
    help: "with --target: run it as the cluster program's rendered objects under podman kube play, k6 as the TestRun's runner pods (docs/cluster.md)",
  },
  workload: { type: "string", value: WORKLOAD_CHOICES.join("|"), help: "default all" },
  distribution: { type: "string", value: DISTRIBUTION_CHOICES.join("|"), help: "default both" },
  profile: { type: "string", value: PROFILES.join("|"), help: "default quick" },
  experiment: {
    type: "string",
    value: EXPERIMENTS.join("|"),
    help: `the phases run per cell, default throughput (${EXPERIMENT_TEXT.throughput}); fault: ${EXPERIMENT_TEXT.fault}; scale-up: ${EXPERIMENT_TEXT["scale-up"]}; recovery: ${EXPERIMENT_TEXT.recovery}`,
  },
  seed: { type: "string", value: "N", help: "seeds every random choice, default 1" },
  results: { type: "string", value: "DIR", help: "where result documents go, default results/" },
  json: { type: "boolean", help: "print the result document instead of the summary" },
  "no-trace": { type: "boolean", help: "do not trace a target that supports it (no latency breakdown)" },
  "seed-each-trial": {
    type: "boolean",
    help: "with --trials: every trial seeds and populates its own target, instead of starting from a copy of the populated state built once",
  },
  nodes: { type: "string", value: "N[,N...]", help: "run the target as N processes (target.json nodes); several counts: the scalability experiment" },
  trials: {
    type: "string",
    value: "N",
    help: "N independent trials, each with a fresh target, and their median with its interval (a campaign of one target), default 1",
  },
  "busy-repeats": {
    type: "string",
    value: "N",
    help: `with --trials: repeat a trial taken while the machine was busy at most N times, default ${BUSY_REPEATS}`,
  },
} as const;

export async function run(argv: string[]): Promise<number> {
  const cmd = "sfbench run";
  const { values } = parseFlags(cmd, argv, runFlags);
  const url = urlFlag(cmd, "url", values.url);
  if (!url === !(values.target || values.image)) throw new UsageError(`${cmd}: give exactly one of --url URL, --target NAME or --image REF`);
  if (values.image && !values.manifest === !values.target)
    throw new UsageError(`${cmd}: --image needs exactly one of --manifest FILE or --target NAME (the target's manifest)`);
  if (!values.image && (values.manifest || values.cpus || values.memory)) throw new UsageError(`${cmd}: --manifest, --cpus and --memory go with --image REF`);
  if (values["kube-play"] && (!values.target || values.image || values.nodes || values.trials))
    throw new UsageError(`${cmd}: --kube-play needs --target NAME, without --image, --nodes or --trials (one target pod)`);
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
  const nodeCounts = nodesFlag(cmd, values.nodes, values.target, values.manifest);
  const trials = intFlag(cmd, "trials", values.trials, 1, MAX_TRIALS) ?? 1;
  const busyRepeats = intFlag(cmd, "busy-repeats", values["busy-repeats"], 0, MAX_TRIALS) ?? BUSY_REPEATS;

  const base = {
    cmd,
    ...(values.target ? { target: values.target } : {}),
    ...(url ? { url } : {}),
    ...(values.image ? { image: values.image } : {}),
    ...(values.manifest ? { manifest: values.manifest } : {}),
    ...(machine ? { machine } : {}),
    noTrace: Boolean(values["no-trace"]),
    json: Boolean(values.json),
    chosen,
    cells,
    profile,
    experiment,
    seed,
    resultsDir,
    k6,
    signal: commandSignal(),
  };
  const once = (nodes: number | undefined, scalability?: { measured: MeasuredNodeCount[]; routing: "balancer" | "self" }) =>
    runOnce({ ...base, ...(nodes !== undefined ? { nodes } : {}), ...(scalability ? { scalability } : {}) });

  if (values["kube-play"] && values.target) return (await runOnce({ ...base, kubePlay: true })).code;
  if (trials > 1) {
    if (!values.target || values.image || nodeCounts.length > 1)
      throw new UsageError(`${cmd}: --trials N (more than 1) needs --target NAME (each trial starts the target fresh), without --image or several --nodes`);
    return runCampaign({
      kind: "trials",
      targets: [values.target],
      trials,
      busyRepeats,
      orderSeed: seed,
      resultsRoot: resultsDir,
      run: base,
      ...(nodeCounts[0] !== undefined ? { nodes: nodeCounts[0] } : {}),
      ...(values["seed-each-trial"] ? { seedEachTrial: true } : {}),
    });
  }
  if (nodeCounts.length <= 1) return (await once(nodeCounts[0])).code;
  // the scalability experiment: the same cells once per node count, one document each; the last one holds the chart's points
  const routing = nodeSupport(manifestOf(cmd, values.target, values.manifest)).routing;
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

/** The manifest of a bundled target, or of --manifest FILE (an image's). */
function manifestOf(cmd: string, target: string | undefined, manifest: string | undefined) {
  return manifest ? readManifest(cmd, manifest).manifest : findTarget(target!).manifest;
}

/** --nodes N or N,N,...: node counts the target supports (target.json nodes.max), ascending, each once. */
function nodesFlag(cmd: string, raw: string | undefined, target: string | undefined, manifestFile?: string): number[] {
  if (raw === undefined) return [];
  if (!target && !manifestFile)
    throw new UsageError(
      `${cmd}: --nodes needs --target NAME or --image with --manifest FILE (sfbench starts the nodes; a target given by --url runs as it is)`,
    );
  const max = nodeSupport(manifestOf(cmd, target, manifestFile)).max;
  target ??= manifestOf(cmd, target, manifestFile).name;
  const counts = raw.split(",").map((x) => x.trim());
  const bad = counts.filter((c) => !/^\d+$/.test(c) || Number(c) < 1 || Number(c) > max);
  if (bad.length)
    throw new UsageError(
      `${cmd}: --nodes: ${bad.join(", ")} is not a node count ${target} supports (allowed: 1 to ${max}${max === 1 ? ", its target.json declares no nodes" : ""}), e.g. --nodes 1,2,4`,
    );
  const n = [...new Set(counts.map(Number))].sort((a, b) => a - b);
  if (n.length !== counts.length) throw new UsageError(`${cmd}: --nodes: each node count once, got ${raw}`);
  return n;
}
