/**
 * The hands a run's experiments have on a target this process started:
 * kill a node, start it again, add one, and, since those change
 * the processes, the liveness check and the cost pids follow the state file
 * instead of the first process. The fault, recovery and scale-up phases of
 * @sfbench/engine take this as their RunContext `target`.
 */
import { nodeSupport, type TargetControl } from "@sfbench/core";
import { findTarget, TargetError } from "@sfbench/catalogue";
import { addNode, killNode, killTarget, restartNode, restartTarget, targetPids } from "./nodes.ts";
import type { StartedTarget } from "./run.ts";
import { isAlive, nodeRuns, nodesOf, readState } from "./target-process.ts";

export interface LocalTargetControl extends TargetControl {
  name: string;
  /** how the target died, when a node that was not killed on purpose is gone; undefined while it is fine */
  exited(): string | undefined;
  /** pids whose CPU and memory are the target's cost: every live node and its own PostgreSQL, Kafka and Redis */
  pids(): number[];
}

export function localTargetControl(started: StartedTarget, opts: { onProgress?: (m: string) => void } = {}): LocalTargetControl {
  const { name } = started;
  const manifest = findTarget(name, started.targetsRoot).manifest;
  const support = nodeSupport(manifest);
  // until a node is killed on purpose, the first process says best how it ended (its exit code)
  let touched = false;
  let cpus: string | undefined;
  const nodeOps = () => ({ ...opts, ...(cpus ? { cpus } : {}) });
  return {
    name,
    manifest,
    maxNodes: support.max,
    elastic: support.elastic,
    nodes: () => nodesOf(readState(name) ?? started).length,
    async kill(index, signal) {
      touched = true;
      // a single-process target dies whole, storage included: its own PostgreSQL is part of it (and of its cost)
      if (nodesOf(readState(name) ?? started).length === 1) return { at: (await killTarget(name, signal)).at };
      const k = await killNode(name, index, signal);
      return { at: k.at };
    },
    async restart(index) {
      const state = readState(name) ?? started;
      if (nodesOf(state).length === 1) await restartTarget(name, nodeOps());
      else await restartNode(name, index, nodeOps());
    },
    async addNode() {
      touched = true;
      await addNode(name, nodeOps());
    },
    placeOn(list) {
      cpus = list;
    },
    exited() {
      if (!touched) return started.exited() ?? (isAlive(started.pid) ? undefined : "an unknown code");
      const state = readState(name);
      if (!state) return "its state file is gone (stopped)";
      const killed = new Set(state.killed ?? []);
      const gone = nodesOf(state).filter((n) => !killed.has(n.index) && !nodeRuns(n));
      return gone.length ? `node ${gone.map((n) => `${n.index} (pid ${n.pid})`).join(", ")} gone` : undefined;
    },
    pids() {
      // stopped (its state file removed, also while a sampler still ticks after an interruption): nothing of it runs
      if (!readState(name)) return [];
      let p: ReturnType<typeof targetPids>;
      try {
        p = targetPids(name);
      } catch (e) {
        if (e instanceof TargetError) return [];
        throw e;
      }
      return [
        ...p.nodes.filter((n) => n.alive).map((n) => n.pid),
        ...(p.postgres ? [p.postgres] : []),
        ...(p.kafka ? [p.kafka] : []),
        ...(p.redis ? [p.redis] : []),
      ];
    },
  };
}
