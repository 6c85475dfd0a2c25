/** The leaderboard rows, as the home page shows them (filters, sort, page). */
import { LeaderboardFilter } from "../../shared/leaderboard-params.ts";
import { getLeaderboard } from "../queries/leaderboard.ts";
import { publicProcedure, router } from "../trpc/init.ts";

export const leaderboardRouter = router({
  rows: publicProcedure.input(LeaderboardFilter.prefault({})).query(({ ctx, input }) => getLeaderboard(ctx.db, input)),
});
