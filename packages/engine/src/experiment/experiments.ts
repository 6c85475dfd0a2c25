/**
 * The phases of each experiment (core EXPERIMENTS), run in order for every
 * cell. Listing a phase here is the only place an experiment changes.
 */
import type { Experiment } from "@sfbench/core";
import type { CellState, Phase } from "./phase.ts";
import { audit } from "./phases/audit.ts";
import { fault } from "./phases/fault.ts";
import { ramp } from "./phases/ramp.ts";
import { scaleUp } from "./phases/scale-up.ts";
import { snapshot } from "./phases/snapshot.ts";
import { stable } from "./phases/stable.ts";

export const EXPERIMENT_PHASES: Record<Experiment, readonly Phase[]> = {
  throughput: [snapshot, ramp, stable, audit],
  fault: [snapshot, ramp, fault, audit],
  "scale-up": [snapshot, ramp, scaleUp, audit],
  // no cells: the run measures recovery time per state size (run.ts, resilience/recovery.ts)
  recovery: [],
};

/** Throws when a phase needs state that no earlier phase of the list adds (a mistake in the list, found before any load). */
export function checkPhases(phases: readonly Phase[]): void {
  const added = new Set<keyof CellState>();
  for (const p of phases) {
    const missing = p.needs.filter((k) => !added.has(k));
    if (missing.length) throw new Error(`phase ${p.name} needs ${missing.join(", ")}, which no earlier phase (${[...added].join(", ") || "none"}) adds`);
    for (const k of p.adds) added.add(k);
  }
}
