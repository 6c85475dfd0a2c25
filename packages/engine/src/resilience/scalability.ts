/**
 * The scalability experiment's points: max throughput per node
 * count, with the speedup over the fewest nodes measured (scaled to one node)
 * and the efficiency (1 = linear).
 */
import type { ScalabilityPoint } from "@sfbench/core";

export interface MeasuredNodeCount {
  nodes: number;
  /** the max-throughput experiment's peak 10 s average with this many nodes */
  maxThroughput: number;
  sustainableRate: number | null;
}

export function scalabilityPoints(measured: readonly MeasuredNodeCount[]): ScalabilityPoint[] {
  if (!measured.length) throw new Error("measured: no node count was measured");
  const sorted = [...measured].sort((a, b) => a.nodes - b.nodes);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.nodes === sorted[i - 1]!.nodes) throw new Error(`measured: node count ${sorted[i]!.nodes} appears twice; measure each count once`);
  }
  const base = sorted[0]!;
  if (!(base.maxThroughput > 0)) throw new Error(`measured: the fewest nodes (${base.nodes}) reached no throughput, so there is nothing to compare with`);
  const perNode = base.maxThroughput / base.nodes;
  return sorted.map((m) => {
    const speedup = m.maxThroughput / perNode;
    return { nodes: m.nodes, maxThroughput: m.maxThroughput, sustainableRate: m.sustainableRate, speedup, efficiency: speedup / m.nodes };
  });
}
