/**
 * The statistics of a campaign, from its trials: per target and cell the
 * summary of the counted trials' sustainable rates (stats.ts), the ratio to
 * the reference target in the same rounds, and the tie groups. Computed once
 * here: the CLI writes them into the campaign document, the table script and
 * the portal read them (or compute them again from the trials the same way).
 */
import type { CellStatistics } from "./campaign.ts";
import type { CellChoice } from "./contract.ts";
import { median, pairedRatio, summarize, tieGroups } from "./stats.ts";

/** What the statistics need of one counted trial: its target, round, whether it was busy, and each cell's knee (null: invalid or no sustainable step). */
export interface TrialFigures {
  target: string;
  round: number;
  busy: boolean;
  /** by cell name (workload/distribution); a cell that is missing (a failed run) counts as invalid */
  knees: Record<string, number | null>;
  /** by cell name: the cores the target used at its knee over the cores it was given, where the trial's document says both */
  kneeCoreShares?: Record<string, number>;
}

const key = (c: CellChoice) => `${c.workload}/${c.distribution}`;
export const unitOf = (c: CellChoice): string => (c.workload === "analytics" ? "queries/s" : "checkouts/s");

export function cellStatistics(opts: {
  targets: readonly string[];
  cells: readonly CellChoice[];
  trials: readonly TrialFigures[];
  reference?: string;
}): CellStatistics[] {
  const out: CellStatistics[] = [];
  for (const cell of opts.cells) {
    // the reference's knee in each round, to pair with
    const refByRound = new Map<number, number | null>();
    if (opts.reference) for (const t of opts.trials) if (t.target === opts.reference) refByRound.set(t.round, t.knees[key(cell)] ?? null);
    for (const target of opts.targets) {
      const trials = opts.trials.filter((t) => t.target === target).sort((a, b) => a.round - b.round);
      const values = trials.map((t) => t.knees[key(cell)] ?? null);
      const numbers = values.filter((v): v is number => v !== null);
      const s = numbers.length ? summarize(numbers) : undefined;
      const shares = trials.flatMap((t) => {
        const share = (t.knees[key(cell)] ?? null) === null ? undefined : t.kneeCoreShares?.[key(cell)];
        return share === undefined ? [] : [share];
      });
      const ratio =
        opts.reference && target !== opts.reference
          ? pairedRatio(trials.map((t) => [t.knees[key(cell)] ?? null, refByRound.get(t.round) ?? null] as const))
          : null;
      out.push({
        target,
        workload: cell.workload,
        distribution: cell.distribution,
        metric: "sustainableRate",
        unit: unitOf(cell),
        values,
        n: numbers.length,
        invalid: values.length - numbers.length,
        busy: trials.filter((t) => t.busy).length,
        median: s?.median ?? null,
        min: s?.min ?? null,
        max: s?.max ?? null,
        mean: s?.mean ?? null,
        cv: s?.cv ?? null,
        interval: s?.interval ?? null,
        withinShareOfMedian: s?.withinShareOfMedian ?? null,
        ...(ratio && opts.reference ? { ratioToReference: { reference: opts.reference, ...ratio } } : {}),
        ...(shares.length ? { kneeCoreShare: { n: shares.length, median: median(shares), min: Math.min(...shares), max: Math.max(...shares) } } : {}),
      });
    }
  }
  return out;
}

/** Per cell, the targets that have a median, in tie groups (stats.ts tieGroups). */
export function cellTieGroups(cells: readonly CellChoice[], stats: readonly CellStatistics[]): Array<CellChoice & { groups: string[][] }> {
  return cells.map((c) => ({
    workload: c.workload,
    distribution: c.distribution,
    groups: tieGroups(
      stats
        .filter((s) => s.workload === c.workload && s.distribution === c.distribution && s.median !== null)
        .map((s) => ({ name: s.target, median: s.median!, interval: s.interval })),
    ),
  }));
}
