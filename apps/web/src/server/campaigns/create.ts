/**
 * A campaign: one queued Run per system and round, in randomised interleaved
 * order (every round one trial of each system, shuffled by a seeded
 * generator, @sfbench/engine interleavedRounds), written by @sfbench/db's
 * queueCampaignRuns.
 *
 * A team runs its own systems. The operator runs any, and with `all` every
 * registered system with a version, teams' included, beside the reference:
 * the campaign that gives every system a ratio to it in the same rounds.
 */
import { randomUUID } from "node:crypto";
import { CampaignRefusal, queueCampaignRuns, registeredSystems, type Db, type QueuedCampaignRun } from "@sfbench/db";
import { interleavedRounds } from "@sfbench/engine";
import type { z } from "zod";
import { CAMPAIGN_REFERENCE, MAX_CAMPAIGN_SYSTEMS, type CampaignInput } from "../../shared/campaign.ts";
import { fieldError } from "../trpc/errors.ts";
import { enforceSubmissionLimit } from "../submissions/rate-limit.ts";

export interface CreatedCampaign {
  campaignId: string;
  orderSeed: number;
  /** in the order the worker runs them */
  runs: QueuedCampaignRun[];
}

export async function createCampaign(
  db: Db,
  user: { id: string; operator: boolean },
  input: z.output<typeof CampaignInput>,
  perHour: number,
  now = new Date(),
): Promise<CreatedCampaign> {
  const userId = user.id;
  const orderSeed = input.orderSeed ?? now.getTime() % 2 ** 31;
  const campaignId = randomUUID();
  return db.$transaction(async (tx) => {
    if (input.all && !user.operator) throw fieldError("all", "a campaign of every registered system is the operator's reference campaign", "FORBIDDEN");
    const slugs = input.all ? await registeredSystems(tx) : input.systems!;
    if (input.all && !slugs.includes(CAMPAIGN_REFERENCE))
      throw fieldError(
        "all",
        `the reference ${CAMPAIGN_REFERENCE} is not registered: register it first (sfbench submit --register-only), then every ratio has it`,
      );
    if (slugs.length > MAX_CAMPAIGN_SYSTEMS)
      throw fieldError(input.all ? "all" : "systems", `at most ${MAX_CAMPAIGN_SYSTEMS} systems in one campaign, ${slugs.length} are registered`);
    // the operator's campaigns are the board's reference, not a team's submissions: no hourly limit
    if (!user.operator) await enforceSubmissionLimit(tx, userId, perHour, now, slugs.length * input.trials);
    const parameters = {
      ...(input.workloads ? { workloads: [...new Set(input.workloads)] } : {}),
      ...(input.distributions ? { distributions: [...new Set(input.distributions)] } : {}),
      seed: input.seed,
      busyRepeats: input.busyRepeats,
      // the reference campaign, queued by hand: the worker's schedule counts its period from it and waits for it to end
      ...(input.all ? { referenceCampaign: true as const } : {}),
    };
    try {
      const runs = await queueCampaignRuns(tx, {
        campaignId,
        userId,
        rounds: interleavedRounds(slugs, input.trials, orderSeed),
        profile: input.profile,
        parameters,
        ...(user.operator ? {} : { ownedBy: userId }),
        now,
      });
      return { campaignId, orderSeed, runs };
    } catch (e) {
      if (e instanceof CampaignRefusal) throw fieldError(e.field, e.message, e.forbidden ? "FORBIDDEN" : undefined);
      throw e;
    }
  });
}
