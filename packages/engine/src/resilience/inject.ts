/**
 * Injecting the fault into a running phase: which node to kill,
 * kill it at a planned instant, and start it again when the plan says so.
 * The node operations come from the provider (for the local provider:
 * killNode and restartNode / restartTarget of @sfbench/provider-local), so
 * this works the same for every provider that can kill and restart.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { nodeSupport, type FaultKill, type TargetManifest } from "@sfbench/core";
import { onSeriesClock } from "./k6-failures.ts";

export interface FaultPlan {
  /** the node to kill */
  node: number;
  nodes: number;
  /** the whole system crashes: every process of the target and its own storage (provider-local killTarget), not one node (killNode) */
  whole: boolean;
  /** start the killed node again right after the kill: always for a single node (the target is down otherwise) */
  restart: boolean;
}

/**
 * Whom the fault experiment kills: a single-process target whole, with its
 * own PostgreSQL (its storage is counted as the target's, and a system whose
 * storage is in-process, like Restate, loses that too), then restarted with
 * its data; of a multi-node target the last node (node 0 of a
 * self-routed target is its entry), left down unless `restartNode` is asked
 * for, so that the measurement shows the failover of the nodes that remain.
 */
export function planFault(manifest: TargetManifest, nodes: number, opts: { restartNode?: boolean } = {}): FaultPlan {
  const max = nodeSupport(manifest).max;
  if (!Number.isInteger(nodes) || nodes < 1 || nodes > max)
    throw new Error(`nodes: ${nodes} is not a node count ${manifest.name} supports (allowed: 1 to ${max})`);
  return nodes === 1 ? { node: 0, nodes: 1, whole: true, restart: true } : { node: nodes - 1, nodes, whole: false, restart: opts.restartNode ?? false };
}

export interface InjectFaultInput {
  plan: FaultPlan;
  /** epoch ms when to kill */
  atMs: number;
  /** the series' t = 0 in epoch ms (seriesOriginMs), to report the kill on the series' clock */
  originMs: number;
  signal?: "SIGKILL" | "SIGTERM";
  /** kills node `index` (plan.whole: the whole target, killTarget); resolves with the epoch ms right before the signal was sent (`at`) */
  kill: (index: number, signal: "SIGKILL" | "SIGTERM") => Promise<{ at: number }>;
  /** starts node `index` again with its data; resolves once its health answers 200 */
  restart: (index: number) => Promise<unknown>;
  /** aborts the wait for atMs (the phase ended early) */
  signalAbort?: AbortSignal;
}

/**
 * Waits until atMs, kills the planned node, restarts it if planned, and says
 * what happened on the series' clock. A restart that fails is reported as
 * restartHealthyAfterS null (the phase's series shows the rest), not thrown.
 */
export async function injectFault(input: InjectFaultInput): Promise<FaultKill> {
  const signal = input.signal ?? "SIGKILL";
  // A timer may fire a millisecond before the wall clock reaches atMs; the
  // fault must never land before its planned instant, so wait out the rest.
  for (let wait = input.atMs - Date.now(); wait > 0; wait = input.atMs - Date.now()) {
    try {
      await sleep(wait, undefined, { signal: input.signalAbort });
    } catch {
      throw new Error("the phase ended before the planned fault");
    }
  }
  const { at } = await input.kill(input.plan.node, signal);
  const base: FaultKill = {
    node: input.plan.node,
    nodes: input.plan.nodes,
    signal,
    atS: Math.max(0, onSeriesClock(at, input.originMs)),
    restarted: input.plan.restart,
    restartHealthyAfterS: null,
  };
  if (!input.plan.restart) return base;
  try {
    await input.restart(input.plan.node);
    return { ...base, restartHealthyAfterS: (Date.now() - at) / 1000 };
  } catch (e) {
    return { ...base, restartError: (e as Error).message };
  }
}
