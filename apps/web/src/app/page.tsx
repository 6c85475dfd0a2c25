/** Leaderboard (home): server-rendered from a few indexed queries; filters, sort and page live in the URL. */
import Link from "next/link";
import { LeaderboardFilters, PopulationHeader } from "../components/leaderboard-filters.tsx";
import { LeaderboardTable } from "../components/leaderboard-table.tsx";
import { MicroBoard } from "../components/micro-board.tsx";
import { getDb } from "../server/db.ts";
import { getLeaderboard } from "../server/queries/leaderboard.ts";
import { microRuns } from "../server/queries/micro.ts";
import { byImplementation } from "../shared/implementation.ts";
import { readLeaderboardParams, type LeaderboardFilter, type LeaderboardView } from "../shared/leaderboard-params.ts";

export const dynamic = "force-dynamic";

export default async function LeaderboardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filter = readLeaderboardParams(await searchParams);
  const db = await getDb();
  const board = await getLeaderboard(db, filter);
  // tuned implementations are hidden here as on the rates view, unless ?tuned=1
  const micro = filter.view === "micro" ? byImplementation(await microRuns(db, { kind: board.population.kind, nodes: filter.nodes }), filter.tuned) : null;
  return (
    <>
      <h1>Leaderboard</h1>
      <p className="muted">
        One population at a time (environment, profile and machine class: named below), one row per system and node count in it: its latest campaign (
        <code>sfbench campaign</code>: trials in interleaved rounds), else its latest completed run with a ranked number (it passed the{" "}
        <Link href="/docs/conformance">conformance suite</Link> first). A rate is the median of the campaign&apos;s trials on one profile and machine class,
        with the interval of the median and n (order statistics, so no shape of noise is assumed: for 3 to 5 trials the lowest to the highest, which holds the
        median with 75% to 94% probability, shown beside it; from 6 trials the narrowest pair that holds it with 95%); systems whose intervals overlap are{" "}
        <span className="badge tied">tied</span> (same rank), and a single run is <span className="badge provisional">provisional</span>: listed after every
        ranked median, never ranked. Sustainable rate = the highest offered rate (checkouts/s; analytics: queries/s) the system kept up with, ranked only when
        the knee is known to 10% or better (shown as +x%: the first unsustainable step was that much higher), with the run&apos;s profile; latency, errors and
        cost at 80% of it. Quick-profile runs and other coarse knees are smoke tests: on their run pages, never ranked. Failed runs and invalid cells never show
        numbers.
        <span className="badge verified">verified</span>: every cell valid and the target.json known.
      </p>
      <nav className="subnav" data-testid="leaderboard-views">
        {filter.view === "rates" ? <strong>Sustainable rates</strong> : <Link href={viewHref(filter, "rates")}>Sustainable rates</Link>}
        {filter.view === "micro" ? <strong>Microbenchmarks</strong> : <Link href={viewHref(filter, "micro")}>Microbenchmarks</Link>}
      </nav>
      {micro ? null : <PopulationHeader board={board} />}
      <LeaderboardFilters board={board} microRows={micro?.shown.length} />
      {micro ? (
        <MicroBoard rows={micro.shown} hiddenTuned={micro.hiddenTuned} showTunedHref={viewHref(filter, "micro", true)} />
      ) : (
        <LeaderboardTable board={board} />
      )}
    </>
  );
}

/** The same environment filter in the other view (workload, distribution and sort belong to the rates view). */
function viewHref(filter: LeaderboardFilter, view: LeaderboardView, tuned = filter.tuned): string {
  const params = new URLSearchParams();
  if (view !== "rates") params.set("view", view);
  if (tuned) params.set("tuned", "1");
  if (filter.kind) params.set("kind", filter.kind);
  if (filter.nodes !== undefined) params.set("nodes", String(filter.nodes));
  const qs = params.toString();
  return qs ? `/?${qs}` : "/";
}
