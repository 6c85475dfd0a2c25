/** Number formatting shared by the pages: "—" for what was not measured. */

const DASH = "—";

export function fmtRate(value: number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return `${Math.round(value).toLocaleString("en-US")}`;
}

export function fmtMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return value >= 100 ? `${Math.round(value)} ms` : `${value.toFixed(value >= 10 ? 1 : 2)} ms`;
}

export function fmtPercent(share: number | null | undefined): string {
  if (share === null || share === undefined) return DASH;
  return `${(share * 100).toFixed(share < 0.01 ? 2 : 1)}%`;
}

export function fmtNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return DASH;
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

export function fmtDate(value: Date | string | null | undefined): string {
  if (!value) return DASH;
  return new Date(value).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

export function fmtEnvironment(kind: string, nodes: number): string {
  return `${kind}, ${nodes} node${nodes === 1 ? "" : "s"}`;
}

/** What a workload's rates count (SPEC 5): checkouts per second, or queries per second for analytics. */
export function rateUnit(workload: string): "checkouts/s" | "queries/s" {
  return workload === "analytics" ? "queries/s" : "checkouts/s";
}

/** A rate with what it counts: "412 checkouts/s". */
export function fmtRateOf(value: number | null | undefined, workload: string): string {
  return value === null || value === undefined ? DASH : `${fmtRate(value)} ${rateUnit(workload)}`;
}

/** The knee's resolution, the relative gap up to the first unsustainable step: "+9.5%". */
export function fmtResolution(resolution: number | null | undefined): string {
  if (resolution === null || resolution === undefined) return DASH;
  return `+${(resolution * 100).toFixed(resolution < 0.1 ? 1 : 0)}%`;
}

/** The parts of a run's environment that decide what its numbers mean (a structural subset of core's Environment). */
export interface SetupFacts {
  kind: string;
  cores: number;
  cpuSplit?: { generator: string; target: string };
  storage?: {
    postgres?: { instance: string; fsync: string; synchronous_commit: string; full_page_writes: string; version?: string };
    kafka?: { instance: string; version?: string };
  };
  cost?: { source: string };
}

/**
 * How a run was set up, next to its numbers: where the load generator and the
 * target ran, and what "durable" meant for the target's storage.
 */
export function fmtSetup(env: SetupFacts): string[] {
  const out: string[] = [];
  if (env.cpuSplit) out.push(`load generator on CPU ${env.cpuSplit.generator}, target on CPU ${env.cpuSplit.target}`);
  else if (env.kind === "local")
    out.push(env.cores > 1 ? "no CPU split: the load generator and the target shared the cores" : "one core: the load generator and the target shared it");
  const pg = env.storage?.postgres;
  if (pg)
    out.push(
      `PostgreSQL${pg.version ? ` ${pg.version}` : ""} (${pg.instance === "dedicated" ? "the target's own" : "shared"}): fsync ${pg.fsync}, synchronous_commit ${pg.synchronous_commit}, full_page_writes ${pg.full_page_writes}`,
    );
  const kafka = env.storage?.kafka;
  if (kafka)
    out.push(
      `Kafka${kafka.version ? ` ${kafka.version}` : ""} (${kafka.instance === "dedicated" ? "the target's own broker: its CPU is in the cost" : "a shared broker: its CPU is not in the cost"})`,
    );
  if (env.cost)
    out.push(
      env.cost.source === "cgroup"
        ? "CPU cost from the containers' cgroups (and the target's own PostgreSQL's processes)"
        : "CPU cost from the target's process trees",
    );
  return out;
}

/**
 * The data a campaign trial started on, when it was the campaign's populated
 * state (restored, not seeded by the trial): which build, what it holds, and
 * the setup time it saved.
 */
export function fmtPopulatedState(s: { buildId: string; builtAt: string; products: number; populate?: number; buildS: number; bytes: number }): string {
  const holds = `${s.products.toLocaleString("en")} products${s.populate !== undefined ? ` and ${s.populate.toLocaleString("en")} populate checkouts` : ""}`;
  return `a copy of the campaign's populated state ${s.buildId.slice(0, 8)} (${holds}, ${(s.bytes / 2 ** 20).toFixed(0)} MiB), built once at ${s.builtAt.slice(0, 16).replace("T", " ")} UTC in ${s.buildS.toFixed(0)} s; the trial seeded nothing itself`;
}

/**
 * The cores a target used at its knee beside those it was given, "0.94 of 1
 * core (94%)"; the cores alone when the document does not say how many it was
 * given, a dash when it has no figure. Well below the cores given, the knee is
 * something the target waits on, not its CPU.
 */
export function fmtKneeCores(used: number | null | undefined, given: number | null | undefined): string {
  if (used === null || used === undefined) return DASH;
  if (!given) return `${fmtNumber(used, 2)} cores`;
  return `${fmtNumber(used, 2)} of ${given} ${given === 1 ? "core" : "cores"} (${Math.round((used / given) * 100)}%)`;
}
