/**
 * The board's populations. Two knees are compared only when they were measured
 * in the same kind of environment, with the same load profile, on the same
 * machine class: the same target's knee differs 1.6x between the two CPU
 * models these machines have, and a quick-profile knee is not a standard one.
 * Every page that ranks shows one population at a time, and its ranks, ties
 * and ratios are computed within it.
 *
 * The board opens on the operator's reference environment: the machine class
 * named by SFBENCH_REFERENCE_MACHINE when it has ranked runs, else the local
 * population with the most ranked systems (the standard profile first among
 * equals, then the newest). The others are a click away.
 */
import { ENVIRONMENT_KINDS, PROFILES, type EnvironmentKind, type Profile } from "@sfbench/core/contract";
import { Prisma, type Db } from "@sfbench/db";

/** The `machine` parameter's value for runs that recorded no machine class (older imports). */
export const UNRECORDED_MACHINE = "unrecorded";

export interface PopulationKey {
  kind: EnvironmentKind;
  profile: Profile;
  /** null: runs that recorded no machine class */
  machineClass: string | null;
}

export interface Population extends PopulationKey {
  /** systems with at least one ranked run in it */
  systems: number;
  latest: Date;
}

/** What the request asked for; undefined pieces come from the default population. */
export interface PopulationRequest {
  kind?: EnvironmentKind;
  profile?: Profile;
  /** a machine class, or UNRECORDED_MACHINE */
  machine?: string;
}

/** SQL condition: the run has a cell the board ranks (core rankable(), judged at import). */
export const HAS_RANKED_CELL = Prisma.sql`EXISTS (SELECT 1 FROM "CellResult" c WHERE c."runId" = r.id AND c.ranked)`;

/** Every population with ranked runs (of these systems only, when given), with how many systems each has. */
export async function readPopulations(db: Db, systemIds?: readonly string[]): Promise<Population[]> {
  const only = systemIds ? Prisma.sql`AND r."systemId" = ANY(${[...systemIds]}::uuid[])` : Prisma.empty;
  const rows = await db.$queryRaw<{ kind: string; profile: string; machineClass: string | null; systems: number; latest: Date }[]>`
    SELECT r."environmentKind"::text AS kind, r.profile::text AS profile, r."machineClass", count(DISTINCT r."systemId")::int AS systems,
           max(r."finishedAt") AS latest
    FROM "Run" r
    WHERE r.status = 'completed' AND ${HAS_RANKED_CELL} ${only}
    GROUP BY 1, 2, 3`;
  return rows.flatMap((r) => {
    const kind = ENVIRONMENT_KINDS.find((k) => k === r.kind);
    const profile = PROFILES.find((p) => p === r.profile);
    return kind && profile ? [{ kind, profile, machineClass: r.machineClass, systems: r.systems, latest: r.latest }] : [];
  });
}

const machineOf = (request: PopulationRequest): string | null | undefined =>
  request.machine === undefined ? undefined : request.machine === UNRECORDED_MACHINE ? null : request.machine;

export const samePopulation = (a: PopulationKey, b: PopulationKey): boolean =>
  a.kind === b.kind && a.profile === b.profile && a.machineClass === b.machineClass;

/**
 * The population a request shows: what it names, the rest from the best
 * population that agrees with it (the reference machine, local, most systems,
 * standard, newest). A request that matches no ranked population still gets
 * the population it named (an empty board that says so), never a mixed one.
 */
export function choosePopulation(populations: readonly Population[], request: PopulationRequest, referenceMachine?: string): PopulationKey {
  const machine = machineOf(request);
  const candidates = populations.filter(
    (p) =>
      (request.kind === undefined || p.kind === request.kind) &&
      (request.profile === undefined || p.profile === request.profile) &&
      (machine === undefined || p.machineClass === machine),
  );
  const score = (p: Population) => [
    referenceMachine !== undefined && p.machineClass === referenceMachine ? 1 : 0,
    p.kind === "local" ? 1 : 0,
    p.systems,
    p.profile === "standard" ? 1 : 0,
    p.latest.getTime(),
  ];
  const best = [...candidates].sort((a, b) => {
    const [x, y] = [score(a), score(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i]! - x[i]!;
    return 0;
  })[0];
  if (best) return { kind: best.kind, profile: best.profile, machineClass: best.machineClass };
  return { kind: request.kind ?? "local", profile: request.profile ?? "standard", machineClass: machine ?? null };
}

/** The request a page's search parameters make (kind, profile, machine); a bad value is left out, so the default fills it. */
export function readPopulationRequest(params: Record<string, string | string[] | undefined>): PopulationRequest {
  const one = (key: string) => {
    const v = params[key];
    return Array.isArray(v) ? v[0] : v;
  };
  const kind = ENVIRONMENT_KINDS.find((k) => k === one("kind"));
  const profile = PROFILES.find((p) => p === one("profile"));
  const machine = one("machine");
  return { kind, profile, machine: machine && machine.length <= 200 ? machine : undefined };
}

/** The `machine` parameter that names a population's machine class. */
export const machineParam = (machineClass: string | null): string => machineClass ?? UNRECORDED_MACHINE;

/** "local · standard profile · 2 cores, AMD EPYC 9B14, 24 GiB" */
export function populationLabel(p: PopulationKey): string {
  return `${p.kind} · ${p.profile} profile · ${p.machineClass ?? "machine not recorded"}`;
}
