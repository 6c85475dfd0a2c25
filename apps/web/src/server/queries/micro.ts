/**
 * The microbenchmark views' data: per system, its latest completed run whose
 * document has a `micro` part (@sfbench/db latestMicroRuns), for the compare
 * page (one environment), the leaderboard's micro view and the system page.
 */
import type { MicroResult } from "@sfbench/core";
import { latestMicroRuns, type Db, type EnvironmentKind, type LatestMicroRun } from "@sfbench/db";
import type { Implementation } from "@sfbench/core/manifest";
import { implementationClass } from "../../shared/implementation.ts";
import { microFigures, type MicroSummary } from "../../shared/micro-figures.ts";

export interface MicroRow extends Omit<LatestMicroRun, "micro" | "implementation"> {
  micro: MicroResult;
  figures: MicroSummary;
  implementation: Implementation;
}

function toRow(r: LatestMicroRun): MicroRow {
  const micro = r.micro as MicroResult;
  return { ...r, micro, figures: microFigures(micro), implementation: implementationClass({ implementation: r.implementation }).implementation };
}

export async function microRuns(db: Db, filter: { kind?: EnvironmentKind; nodes?: number; systemId?: string }): Promise<MicroRow[]> {
  const rows = await latestMicroRuns(db, { environmentKind: filter.kind, nodes: filter.nodes, systemId: filter.systemId });
  return rows.map(toRow).sort((a, b) => a.name.localeCompare(b.name) || a.environmentKind.localeCompare(b.environmentKind) || a.nodes - b.nodes);
}

/** The compare page's micro input: the given systems in their order, each with its latest micro run in the environment (null: none). */
export async function microCompareInput(
  db: Db,
  systems: ReadonlyArray<{ slug: string; name: string }>,
  environment: { kind: EnvironmentKind; nodes: number } | null,
) {
  const rows = environment ? await microRuns(db, { kind: environment.kind, nodes: environment.nodes }) : [];
  const bySlug = new Map(rows.map((r) => [r.slug, r]));
  return systems.map((s) => {
    const r = bySlug.get(s.slug);
    return { slug: s.slug, name: s.name, runId: r?.runId ?? null, doc: r ? { status: "completed" as const, runId: r.runId, micro: r.micro } : null };
  });
}
