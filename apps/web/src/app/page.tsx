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
        One row per system and environment: its latest completed run with a ranked number (it passed the <Link href="/docs/conformance">conformance suite</Link> first).
        Sustainable rate = the highest offered rate (checkouts/s; analytics: queries/s) the system kept up with, ranked only when the knee is known to 10% or better
        (shown as +x%: the first unsustainable step was that much higher), with the run&apos;s profile; latency, errors and cost at 80% of it.
        Quick-profile runs and other coarse knees are smoke tests: on their run pages, never ranked. Failed runs and invalid cells never show numbers.
        <span className="badge verified">verified</span>: every cell valid and the target.json known.
      </p>
      <LeaderboardFilters board={board} />
      <LeaderboardTable board={board} />
    </>
  );
}
