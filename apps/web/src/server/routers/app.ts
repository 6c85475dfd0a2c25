/** The portal's tRPC API: one small router per entity. */
import { createCallerFactory, router } from "../trpc/init.ts";
import { authRouter } from "./auth.ts";
import { campaignsRouter } from "./campaigns.ts";
import { leaderboardRouter } from "./leaderboard.ts";
import { ratingsRouter } from "./ratings.ts";
import { runsRouter } from "./runs.ts";
import { submissionsRouter } from "./submissions.ts";
import { systemsRouter } from "./systems.ts";
import { tokensRouter } from "./tokens.ts";

export const appRouter = router({
  auth: authRouter,
  tokens: tokensRouter,
  systems: systemsRouter,
  runs: runsRouter,
  leaderboard: leaderboardRouter,
  ratings: ratingsRouter,
  submissions: submissionsRouter,
  campaigns: campaignsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
