/** Leaderboard (home): server-rendered from a few indexed queries; filters, sort and page live in the URL. */
import Link from "next/link";
import { LeaderboardFilters } from "../components/leaderboard-filters.tsx";
import { LeaderboardTable } from "../components/leaderboard-table.tsx";
import { getDb } from "../server/db.ts";
import { getLeaderboard } from "../server/queries/leaderboard.ts";
import { readLeaderboardParams } from "../shared/leaderboard-params.ts";

export const dynamic = "force-dynamic";

export default async function LeaderboardPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filter = readLeaderboardParams(await searchParams);
  const board = await getLeaderboard(await getDb(), filter);
  return (
    <>
      <h1>Leaderboard</h1>
      <p className="muted">
        One row per system and environment: its latest completed run (it passed the <Link href="/docs/conformance">conformance suite</Link> first).
        Sustainable rate (req/s) = the highest offered rate the system kept up with; latency, errors and cost at 80% of it. Failed runs and invalid cells never show numbers.
        <span className="badge verified">verified</span>: every cell valid and the target.json known.
      </p>
      <LeaderboardFilters board={board} />
      <LeaderboardTable board={board} />
    </>
  );
}
