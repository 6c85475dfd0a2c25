/**
 * What each experiment (core EXPERIMENTS) runs: the phases of every cell, in
 * order, and the phases of the whole run after its cells (the recovery
 * measurement, the microbenchmarks), each adding its own part to the result
 * document. Listing a phase here is the only place an experiment changes.
 */
import type { Experiment, MicroResult, ResilienceResults, TargetControl } from "@sfbench/core";
import { runMicro } from "../micro/run-micro.ts";
import { runRecovery } from "../resilience/recovery-run.ts";
import type { CellState, Phase, RunContext } from "./phase.ts";
import { audit } from "./phases/audit.ts";
import { fault } from "./phases/fault.ts";
import { ramp } from "./phases/ramp.ts";
import { scaleUp } from "./phases/scale-up.ts";
import { snapshot } from "./phases/snapshot.ts";
import { stable } from "./phases/stable.ts";
import { traced } from "./phases/traced.ts";
import type { ProfileSettings } from "./profiles.ts";

/** What a run phase is given: the run's settings, the hands on the target, and whether the run asked for the microbenchmarks. */
export interface RunPhaseInput {
  settings: ProfileSettings;
  control?: TargetControl;
  /** absent: the run did not ask for them; `declared`: the target's manifest says `micro: true` */
  micro?: { declared: boolean };
}

/** A phase of the whole run, after every cell: its part of the document (nothing when the run did not ask for it). */
export interface RunPhase {
  name: "recovery" | "micro";
  run(ctx: RunContext, input: RunPhaseInput): Promise<{ micro?: MicroResult; resilience?: ResilienceResults }>;
}

/** kill and restart after loading each state size of the profile (the experiment is refused before this when the target has no control) */
const recovery: RunPhase = {
  name: "recovery",
  run: async (ctx, { settings, control }) => ({ resilience: { recovery: await runRecovery(ctx, control!, settings.recovery.stateSizes), unsupported: [] } }),
};

/** the invocation-overhead routes (docs/spec.md 8), when the run asked for them */
const micro: RunPhase = {
  name: "micro",
  run: async (ctx, input) => (input.micro ? { micro: await runMicro(ctx, input.settings.micro, input.micro.declared) } : {}),
};

export interface ExperimentPhases {
  /** every cell's phases, in order; none: the experiment runs no cells (nor seeds the catalogue for them) */
  cell: readonly Phase[];
  /** after the cells, in order */
  run: readonly RunPhase[];
}

export const EXPERIMENT_PHASES: Record<Experiment, ExperimentPhases> = {
  // the microbenchmarks belong to the throughput experiment: a fault or recovery run measures the target's processes, not its invocations
  // the traced phase after the stable one: the knee and the published latency are measured without spans
  throughput: { cell: [snapshot, ramp, stable, traced, audit], run: [micro] },
  fault: { cell: [snapshot, ramp, fault, audit], run: [] },
  "scale-up": { cell: [snapshot, ramp, scaleUp, audit], run: [] },
  recovery: { cell: [], run: [recovery] },
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
