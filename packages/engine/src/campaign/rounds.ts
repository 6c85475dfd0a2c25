/**
 * Randomised interleaved rounds (Abedi & Brecht, ICPE 2017): every round runs
 * one trial of each target, in an order shuffled by a seeded generator, so
 * that the machine's drift over a campaign (other work starting, thermal
 * state, caches) falls on every target alike instead of on whichever ran
 * last. The seed is recorded in the campaign document: the order can be
 * replayed.
 */
import { permutation, rngFor } from "@sfbench/workloads";

export interface Round {
  /** 1-based */
  round: number;
  /** the targets in the order they run in this round */
  order: string[];
}

export function interleavedRounds(targets: readonly string[], rounds: number, seed: number): Round[] {
  if (new Set(targets).size !== targets.length) throw new Error(`each target once per round, got ${targets.join(",")}`);
  return Array.from({ length: rounds }, (_, i) => {
    const p = permutation(targets.length, rngFor(seed, "campaign-round", i + 1));
    return { round: i + 1, order: Array.from(p, (j) => targets[j]!) };
  });
}
