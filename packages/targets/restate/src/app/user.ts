/**
 * User: one Virtual Object per user id holding its credits. `charge` is
 * exclusive, so credits are retracted atomically and never go negative.
 */
import * as restate from "@restatedev/restate-sdk";
import type { ObjectContext, ObjectSharedContext } from "@restatedev/restate-sdk";
import { DONE, notFound, refuse, type Done, type Refusal } from "./outcome.ts";
import { traced } from "./trace.ts";

export interface UserState {
  credits: number;
}

const STATE = "user";

export const user = restate.object({
  name: "User",
  handlers: {
    create: traced("user", "create", async (ctx: ObjectContext, credits: number): Promise<Done> => {
      ctx.set<UserState>(STATE, { credits });
      return DONE;
    }),

    get: restate.handlers.object.shared(
      traced("user", "get", async (ctx: ObjectSharedContext): Promise<UserState | Refusal> => {
        return (await ctx.get<UserState>(STATE)) ?? notFound("user", ctx.key);
      }),
    ),

    addCredits: traced("user", "addCredits", async (ctx: ObjectContext, credits: number): Promise<Done | Refusal> => {
      const state = await ctx.get<UserState>(STATE);
      if (!state) return notFound("user", ctx.key);
      ctx.set<UserState>(STATE, { credits: state.credits + credits });
      return DONE;
    }),

    /** Checkout: retract the total atomically or not at all. */
    charge: traced("user", "retractCredits", async (ctx: ObjectContext, total: number): Promise<Done | Refusal> => {
      const state = await ctx.get<UserState>(STATE);
      if (!state) return notFound("user", ctx.key);
      if (state.credits < total) return refuse("insufficient-credits", `user ${JSON.stringify(ctx.key)} has ${state.credits} credits, fewer than ${total}`);
      ctx.set<UserState>(STATE, { credits: state.credits - total });
      return DONE;
    }),
  },
});

export type User = typeof user;
