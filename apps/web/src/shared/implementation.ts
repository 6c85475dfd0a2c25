/**
 * Implementation class and guarantees as the board shows them. A target.json
 * declares itself idiomatic (the system used the way its documentation
 * teaches; also when the field is absent) or tuned (optimised for this
 * benchmark). The leaderboard and compare show idiomatic implementations and
 * hide tuned ones unless `?tuned=1`, so that the default ranking compares
 * like with like. Stored manifests are read through core's schema: a row whose
 * manifest is unknown (a result imported without it) counts as idiomatic and
 * has no guarantees to show.
 */
import { IMPLEMENTATION, TargetManifest, type Durability, type Implementation } from "@sfbench/core/manifest";
import { z } from "zod";

export type Guarantees = TargetManifest["guarantees"];

export interface ImplementationClass {
  implementation: Implementation;
  guarantees: Guarantees | null;
}

const ImplementationField = z.enum(IMPLEMENTATION);

/** The class and guarantees of a stored manifest (JSON as read from the database). */
export function implementationClass(stored: { implementation?: unknown; guarantees?: unknown } | null): ImplementationClass {
  const implementation = ImplementationField.safeParse(stored?.implementation ?? "idiomatic");
  const guarantees = TargetManifest.shape.guarantees.safeParse(stored?.guarantees);
  return { implementation: implementation.success ? implementation.data : "idiomatic", guarantees: guarantees.success ? guarantees.data : null };
}

/** `?tuned=1` (or true/yes/on; true from the API) shows tuned implementations; anything else hides them. */
export const ShowTuned = z.union([z.boolean(), z.stringbool()]).default(false);

/** The rows a view shows, and how many tuned ones it hides. */
export function byImplementation<T extends { implementation: Implementation }>(rows: readonly T[], showTuned: boolean): { shown: T[]; hiddenTuned: number } {
  if (showTuned) return { shown: [...rows], hiddenTuned: 0 };
  const shown = rows.filter((r) => r.implementation !== "tuned");
  return { shown, hiddenTuned: rows.length - shown.length };
}

/** The durability level a board ranks when none is asked for. */
export const DEFAULT_DURABILITY: Durability = "durable";

/**
 * The rows of one durability level, and how many rows each other level has:
 * a checkout acknowledged before an fsync is not the same work as one after
 * it, so the two are never ranked together. A row whose manifest is unknown
 * cannot be placed and is shown (its guarantees read "not known").
 */
export function byDurability<T extends { guarantees: Guarantees | null }>(
  rows: readonly T[],
  level: Durability,
): { shown: T[]; otherLevels: { level: Durability; rows: number }[] } {
  const shown = rows.filter((r) => !r.guarantees || r.guarantees.durability === level);
  const counts = new Map<Durability, number>();
  for (const r of rows)
    if (r.guarantees && r.guarantees.durability !== level) counts.set(r.guarantees.durability, (counts.get(r.guarantees.durability) ?? 0) + 1);
  return { shown, otherLevels: [...counts].map(([l, n]) => ({ level: l, rows: n })) };
}

/** What a durability level promises, in a line. */
export const DURABILITY_TEXT: Record<Durability, string> = {
  durable: "a checkout is acknowledged after its writes were fsynced: it survives a crash of the machine",
  unsynced: "a checkout is acknowledged before its writes were fsynced: it survives kill -9 of the target, not a power cut",
  "in-memory": "a checkout is kept in memory only: it is lost with the target's processes",
};

/** "durable · serializable · exactly-once": durability, consistency/isolation, messaging. */
export function fmtGuarantees(g: Guarantees | null): string {
  return g ? `${g.durability} · ${g.consistency} · ${g.messaging}` : "guarantees not known";
}
