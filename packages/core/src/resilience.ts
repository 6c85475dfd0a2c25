/**
 * Resilience and scalability: what a target's manifest says
 * it supports, and the result parts of the fault, recovery, scale-up and
 * scalability experiments. The result document attaches these (result.ts);
 * they live here so that the experiments and the portal share one schema.
 *
 * Times are seconds (fractions allowed) relative to the event they follow
 * (the kill, the added node) unless a field says otherwise; rates are
 * requests per second; latencies are milliseconds.
 */
import { z } from "zod";
import { EnvironmentKind } from "./contract.ts";
import { NODE_ROUTING, type TargetManifest } from "./manifest.ts";

const count = z.number().int().nonnegative();
const nonneg = z.number().nonnegative();
const seconds = z.number().nonnegative();

/** How sfbench runs a target's nodes, with every absent manifest field resolved. */
export interface NodeSupport {
  /** the most nodes the target runs as locally; 1 for a single-process target */
  max: number;
  routing: (typeof NODE_ROUTING)[number];
  /** argv of nodes 1..n-1 (node 0 runs local.command) */
  memberCommand: string[] | undefined;
  /** a node can join while the target runs (elastic scale-up) */
  elastic: boolean;
  /** seconds allowed until health answers 200 after a restart with the kept data */
  restartTimeoutSeconds: number;
}

export function nodeSupport(manifest: TargetManifest): NodeSupport {
  const nodes = manifest.nodes;
  return {
    max: nodes?.max ?? 1,
    routing: nodes?.routing ?? "balancer",
    memberCommand: nodes?.command,
    elastic: nodes?.elastic ?? false,
    restartTimeoutSeconds: manifest.restart?.timeoutSeconds ?? manifest.local?.startupTimeoutSeconds ?? 60,
  };
}

/**
 * Where a run's CPU cost comes from: the target's process trees as sampled
 * from /proc, or a container's cgroup accounting (the kernel's own count of
 * everything in the container, whatever forked and exited between samples).
 */
export const COST_SOURCES = ["cgroup", "process-tree"] as const;
export const CostSource = z.enum(COST_SOURCES);
export type CostSource = z.infer<typeof CostSource>;

/** A target's CPU as its provider accounts it, read by the cost sampler at its sample times instead of the process trees. */
export interface TargetCost {
  source: CostSource;
  /** CPU seconds the target (every node and its own storage, nothing else) has used so far; never decreases, also across a node's kill and restart */
  cpuSeconds(): number;
}

/**
 * What the resilience experiments may do to a running target: the local
 * provider's localTargetControl (@sfbench/provider-local) implements it, the
 * phases of @sfbench/engine use it.
 */
export interface TargetControl {
  manifest: TargetManifest;
  /** nodes running now (killed ones included until they are restarted) */
  nodes(): number;
  /** the most nodes the target can run (target.json nodes.max, 1 without nodes) */
  maxNodes: number;
  /** whether a node can join while it runs (nodes.elastic) */
  elastic: boolean;
  /** kill node `index` (a single-process target: the whole target with its own storage); resolves with the epoch ms right before the signal */
  kill(index: number, signal: "SIGKILL" | "SIGTERM"): Promise<{ at: number }>;
  /** node `index` again with its data (the whole target for a single process); resolves when healthy */
  restart(index: number): Promise<void>;
  /** one more node; resolves when it is healthy and gets requests */
  addNode(): Promise<void>;
  /**
   * The CPUs that processes this control starts from now on (restarted or
   * added nodes, a restarted PostgreSQL) run on: a run pins the target to its
   * cores and itself to the generator's, and what it starts would otherwise
   * inherit the generator's. undefined: wherever the caller may run.
   */
  placeOn?(cpus: string | undefined): void;
  /** the target's CPU from its provider's accounting; absent: the cost is the process trees of the run's target pids */
  cost?: TargetCost;
}

export const RESILIENCE_EXPERIMENTS = ["fault", "recovery", "scale-up", "scalability"] as const;
export const ResilienceExperiment = z.enum(RESILIENCE_EXPERIMENTS);
export type ResilienceExperiment = z.infer<typeof ResilienceExperiment>;

/** Per experiment: supported, or the reason it is not (shown as "not supported" on the system page). */
export type ExperimentSupport = Record<ResilienceExperiment, { supported: true } | { supported: false; reason: string }>;

/** Which resilience experiments the local provider can run for a target, from its manifest alone. */
export function experimentSupport(manifest: TargetManifest): ExperimentSupport {
  const n = nodeSupport(manifest);
  const noLocal = manifest.local ? undefined : "the manifest has no local start command";
  const no = (reason: string) => ({ supported: false as const, reason });
  const yes = { supported: true as const };
  return {
    fault: noLocal ? no(noLocal) : yes,
    recovery: noLocal ? no(noLocal) : yes,
    "scale-up": noLocal
      ? no(noLocal)
      : !manifest.nodes
        ? no("single-process target (target.json declares no nodes)")
        : !n.elastic
          ? no("nodes cannot join a running target (target.json nodes.elastic is not true)")
          : yes,
    scalability: noLocal ? no(noLocal) : !manifest.nodes ? no("single-process target (target.json declares no nodes)") : yes,
  };
}

/** What was killed in a fault experiment. */
export const FaultKill = z.strictObject({
  /** the node killed; a single-process target is node 0 of 1 */
  node: count,
  nodes: z.number().int().positive(),
  signal: z.enum(["SIGKILL", "SIGTERM"]),
  /** seconds from the run's start (the series' t) to the kill */
  atS: seconds,
  /** the killed node was started again with its data right after the kill (always for a single-process target, which is down otherwise) */
  restarted: z.boolean(),
  /** seconds from the kill until the restarted node answered health 200; null when it did not within its timeout or was not restarted */
  restartHealthyAfterS: seconds.nullable(),
  /** why the restart failed, when it did */
  restartError: z.string().min(1).optional(),
});
export type FaultKill = z.infer<typeof FaultKill>;

/** The fault experiment: a stable phase with one kill -9 in it. */
export const FaultResult = z.strictObject({
  kill: FaultKill,
  offeredRate: nonneg,
  /** mean successful requests per second over the seconds before the kill */
  baselineRate: nonneg,
  baselineSeconds: z.number().int().positive(),
  /** first and last failed request (no answer or an error status) after the kill, from the kill; null when none failed */
  errorWindow: z.strictObject({ startS: seconds, endS: seconds, durationS: seconds }).nullable(),
  /** from the kill until throughput stays within `tolerance` below the baseline for `sustainS` seconds; null when it never did */
  recoveredAfterS: seconds.nullable(),
  /** why recoveredAfterS is null: what the seconds after the kill showed against the threshold (absent when it recovered) */
  notRecovered: z.string().min(1).optional(),
  tolerance: z.number().positive().max(1),
  sustainS: z.number().int().positive(),
  /** requests after the kill that got no answer (status 0: connection refused or reset, timeout) */
  lost: count,
  /** requests after the kill answered with an error status (5xx, unexpected 4xx) */
  failed: count,
  /** iterations k6 could not start after the kill (open model: the load did not wait) */
  dropped: count,
  /** successful requests missing against the baseline between the kill and recovery (or the end) */
  missingSuccessful: nonneg,
  /** lowest throughput in a second after the kill */
  minRate: nonneg,
  /** median p99 of the seconds before the kill, and the worst p99 from the kill until recovery (or the end) */
  baselineP99Ms: nonneg.nullable(),
  peakP99Ms: nonneg.nullable(),
  /** consistency audit after the phase (SPEC 2.3 anomaly kinds; the same counts as a cell's anomalies) */
  anomalies: z.record(z.string(), count).optional(),
});
export type FaultResult = z.infer<typeof FaultResult>;

/** One point of recovery time vs state size. */
export const RecoveryPoint = z.strictObject({
  /** entities loaded before the kill */
  products: count,
  users: count,
  /** seconds from the kill until /health answered 200; null when it did not within the timeout */
  healthAfterS: seconds.nullable(),
  /** seconds from the kill until a checkout (with its user, credits and cart created after the restart) answered 200; null when none did */
  firstCheckoutAfterS: seconds.nullable(),
  /** entities read back after the restart: how many were checked, missing (404) or changed */
  checked: count,
  missing: count,
  changed: count,
  /** why no checkout succeeded, when none did */
  failure: z.string().min(1).optional(),
});
export type RecoveryPoint = z.infer<typeof RecoveryPoint>;

export const RecoveryResult = z.strictObject({
  points: z.array(RecoveryPoint).min(1),
});
export type RecoveryResult = z.infer<typeof RecoveryResult>;

/** Elastic scale-up: one node added during a stable phase above one node's sustainable rate. */
export const ScaleUpResult = z.strictObject({
  offeredRate: nonneg,
  nodesBefore: z.number().int().positive(),
  nodesAfter: z.number().int().positive(),
  /** seconds from the run's start to the addNode call */
  addedAtS: seconds,
  /** seconds from the call until the new node answered health 200 */
  nodeHealthyAfterS: seconds.nullable(),
  baselineRate: nonneg,
  /** mean throughput of the last settle seconds of the phase */
  settledRate: nonneg,
  settleSeconds: z.number().int().positive(),
  /** from the call until throughput stays at or above baseline + share x (settled - baseline); null when no gain showed */
  capacityShownAfterS: seconds.nullable(),
  /** (settled - baseline) / baseline */
  gain: z.number(),
  baselineP99Ms: nonneg.nullable(),
  /** worst p99 from the call until the capacity showed (or the end) */
  peakP99Ms: nonneg.nullable(),
  /** failed or unanswered requests from the call until the capacity showed (or the end) */
  errors: count,
});
export type ScaleUpResult = z.infer<typeof ScaleUpResult>;

/** Max throughput per node count: the scalability chart. */
export const ScalabilityPoint = z.strictObject({
  nodes: z.number().int().positive(),
  /** peak 10 s average and sustainable rate of the max-throughput experiment with this many nodes */
  maxThroughput: nonneg,
  sustainableRate: nonneg.nullable(),
  /** maxThroughput / (per-node throughput with the fewest nodes measured): with 1 node measured, maxThroughput / its maxThroughput */
  speedup: nonneg,
  /** speedup / nodes: 1 is linear */
  efficiency: nonneg,
});
export type ScalabilityPoint = z.infer<typeof ScalabilityPoint>;

export const ScalabilityResult = z.strictObject({
  /** "local": N processes on one machine (they share its cores); "kubernetes": N cluster nodes */
  environment: EnvironmentKind,
  /** how requests reached the nodes: sfbench's balancer or the target's own routing */
  routing: z.enum(NODE_ROUTING),
  points: z.array(ScalabilityPoint).min(1),
});
export type ScalabilityResult = z.infer<typeof ScalabilityResult>;

export const ResilienceResults = z.strictObject({
  fault: FaultResult.optional(),
  recovery: RecoveryResult.optional(),
  scaleUp: ScaleUpResult.optional(),
  scalability: ScalabilityResult.optional(),
  /** experiments asked for that the target cannot do, with the reason (never silently skipped) */
  unsupported: z.array(z.strictObject({ experiment: ResilienceExperiment, reason: z.string().min(1) })).default([]),
});
export type ResilienceResults = z.infer<typeof ResilienceResults>;
