/**
 * The compare page's data: for 2 or more systems, the latest completed run of each in
 * one environment, its stored result document, LOC, ratings, and the checkout
 * sustainable rate at every node count of that environment kind (scalability).
 * Latest runs, LOC, ratings and rates come from the leaderboard's data (one
 * latestRuns per environment kind, cached); only the documents are read here.
 * The systems are compared within one population (populations.ts: the one
 * asked for, else the board's rule applied to these systems' ranked runs);
 * the environment is the node count asked for, else the one most of the
 * systems have there (ties: more nodes). Tuned implementations are left out unless asked for
 * (shared/implementation.ts): a system whose latest run there is tuned is
 * listed as hidden, not charted. Each system's rates are the board's figures
 * (the median of its latest campaign's trials with the interval of the median).
 */
import type { Db, EnvironmentKind } from "@sfbench/db";
import type { CompareInput } from "../../charts/index.ts";
import { HEADLINE } from "../../shared/headline.ts";
import { byImplementation, type ImplementationClass } from "../../shared/implementation.ts";
import type { RateKey } from "../../shared/leaderboard-params.ts";
import type { TrialFigure } from "../../shared/trial-figures.ts";
import { runFigures } from "./leaderboard.ts";
import { env } from "../../env.ts";
import { leaderboardData } from "./leaderboard-cache.ts";
import { choosePopulation, readPopulations, type Population, type PopulationKey, type PopulationRequest } from "./populations.ts";
import { ranked, type RunMeta } from "./leaderboard-data.ts";
import { storedResult } from "./stored-result.ts";

export interface Environment {
  kind: EnvironmentKind;
  nodes: number;
}

export interface CompareSystem {
  slug: string;
  name: string;
  /** null when the system has no completed run in the chosen environment */
  runId: string | null;
  version: string | null;
  /** the class and guarantees of that run's target.json */
  cls: ImplementationClass | null;
  /** not charted because its latest runs are of a tuned implementation, left out */
  tunedHidden: boolean;
  /** per rate: median, its interval, n and ratio to the reference, as on the board */
  figures: Partial<Record<RateKey, TrialFigure>>;
  /** the figures are a campaign's (else one run's) */
  campaign: boolean;
}

export interface Compare {
  /** the population the systems are compared in; null when none of them has a ranked run */
  population: PopulationKey | null;
  /** the populations where these systems have ranked runs, with how many of them each has */
  populations: Population[];
  environment: Environment | null;
  /** environments where at least one of the systems has a completed run */
  environments: (Environment & { systems: number })[];
  systems: CompareSystem[];
  /** slugs that are no system */
  unknown: string[];
  input: CompareInput;
}

const envKey = (e: Environment) => `${e.kind}:${e.nodes}`;

export function parseEnvironment(text: string | undefined): Environment | undefined {
  const m = /^(local|kubernetes):(\d{1,4})$/.exec(text ?? "");
  return m ? { kind: m[1] as EnvironmentKind, nodes: Number(m[2]) } : undefined;
}

function chooseEnvironment(latest: RunMeta[], wanted: Environment | undefined) {
  const counts = new Map<string, Environment & { systems: number }>();
  for (const r of latest) {
    const key = envKey({ kind: r.environmentKind, nodes: r.nodes });
    const entry = counts.get(key) ?? { kind: r.environmentKind, nodes: r.nodes, systems: 0 };
    entry.systems += 1;
    counts.set(key, entry);
  }
  const environments = [...counts.values()].sort((a, b) => b.systems - a.systems || b.nodes - a.nodes || a.kind.localeCompare(b.kind));
  const chosen = wanted && counts.has(envKey(wanted)) ? wanted : environments[0];
  return { environments, chosen: chosen ? { kind: chosen.kind, nodes: chosen.nodes } : null };
}

export async function getCompare(db: Db, slugs: string[], wanted?: Environment, showTuned = false, request: PopulationRequest = {}): Promise<Compare> {
  const systems = await db.system.findMany({ where: { slug: { in: slugs } }, select: { id: true, slug: true, name: true } });
  const populations = systems.length
    ? await readPopulations(
        db,
        systems.map((s) => s.id),
      )
    : [];
  const population = populations.length
    ? choosePopulation(populations, { ...request, kind: wanted?.kind ?? request.kind }, env.SFBENCH_REFERENCE_MACHINE)
    : null;
  const data = await leaderboardData(
    db,
    population ? { kind: population.kind, profile: population.profile, machineClass: population.machineClass } : { kind: wanted?.kind },
  );
  const bySlug = new Map(systems.map((s) => [s.slug, s]));
  const known = slugs.flatMap((slug) => (bySlug.has(slug) ? [bySlug.get(slug)!] : []));
  const unknown = slugs.filter((slug) => !bySlug.has(slug));
  const ids = new Set(known.map((s) => s.id));

  const ofSystems = data.runs.filter((r) => ids.has(r.systemId));
  const latest = byImplementation(ofSystems, showTuned).shown;
  const { environments, chosen } = chooseEnvironment(latest, wanted);
  const hiddenTuned = new Set(ofSystems.filter((r) => !latest.includes(r)).map((r) => r.systemId));
  const inEnv = new Map(latest.filter((r) => chosen && r.environmentKind === chosen.kind && r.nodes === chosen.nodes).map((r) => [r.systemId, r]));
  const sameKind = chosen ? latest.filter((r) => r.environmentKind === chosen.kind) : [];
  const docs = await db.runDocument.findMany({ where: { runId: { in: [...inEnv.values()].map((r) => r.runId) } }, select: { runId: true, document: true } });
  const docByRun = new Map(docs.map((d) => [d.runId, d.document]));

  const headlineRate = (runId: string): number | null => {
    const cells = data.cells.get(runId) ?? [];
    for (const distribution of HEADLINE.distributions) {
      const cell = cells.find((c) => ranked(c) && c.workload === HEADLINE.workload && c.distribution === distribution);
      if (cell) return cell.sustainableRate;
    }
    return null;
  };

  const input: CompareInput = { systems: [] };
  const out: CompareSystem[] = [];
  for (const system of known) {
    const run = inEnv.get(system.id);
    const doc = run ? storedResult(docByRun.get(run.runId)) : null;
    out.push({
      slug: system.slug,
      name: system.name,
      runId: doc && run ? run.runId : null,
      version: run?.version ?? null,
      cls: run ? { implementation: run.implementation, guarantees: run.guarantees } : null,
      tunedHidden: !run && hiddenTuned.has(system.id),
      figures: run ? runFigures(data, run) : {},
      campaign: Boolean(run?.campaignId),
    });
    if (!run || !doc) continue;
    input.systems.push({
      slug: system.slug,
      name: system.name,
      doc,
      loc: run.loc,
      ratings: data.ratings.get(system.id) ?? null,
      scalability: sameKind
        .filter((r) => r.systemId === system.id)
        .sort((a, b) => a.nodes - b.nodes)
        .map((r) => ({ nodes: r.nodes, sustainableRate: headlineRate(r.runId) })),
    });
  }
  return { population, populations, environment: chosen, environments, systems: out, unknown, input };
}
