/**
 * A campaign: one queued Run per system and round, in randomised interleaved
 * order (every round one trial of each system, shuffled by a seeded
 * generator, @sfbench/engine interleavedRounds). The worker takes queued
 * runs oldest first, so each run's createdAt is set one millisecond after the
 * previous one: rows written in one transaction would otherwise share the
 * transaction's timestamp and lose their order. Every run carries the
 * campaign's id, its trial and round (attempt 1); the worker puts them in the
 * run's result document and repeats a busy trial as attempt 2.
 *
 * A team runs its own systems. The operator runs any, and with `all` every
 * registered system with a version, teams' included, beside the reference:
 * the campaign that gives every system a ratio to it in the same rounds.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "@sfbench/db";
import { interleavedRounds } from "@sfbench/engine";
import type { z } from "zod";
import { CAMPAIGN_REFERENCE, MAX_CAMPAIGN_SYSTEMS, type CampaignInput } from "../../shared/campaign.ts";
import { fieldError } from "../trpc/errors.ts";
import { enforceSubmissionLimit } from "../submissions/rate-limit.ts";

export interface CreatedCampaign {
  campaignId: string;
  orderSeed: number;
  /** in the order the worker runs them */
  runs: Array<{ runId: string; system: string; version: string; round: number }>;
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
    const slugs = input.all ? await everyRegistered(tx) : input.systems!;
    if (input.all && !slugs.includes(CAMPAIGN_REFERENCE))
      throw fieldError(
        "all",
        `the reference ${CAMPAIGN_REFERENCE} is not registered: register it first (sfbench submit --register-only), then every ratio has it`,
      );
    if (slugs.length > MAX_CAMPAIGN_SYSTEMS)
      throw fieldError(input.all ? "all" : "systems", `at most ${MAX_CAMPAIGN_SYSTEMS} systems in one campaign, ${slugs.length} are registered`);
    // the operator's campaigns are the board's reference, not a team's submissions: no hourly limit
    if (!user.operator) await enforceSubmissionLimit(tx, userId, perHour, now, slugs.length * input.trials);
    const rounds = interleavedRounds(slugs, input.trials, orderSeed);
    const systems = await tx.system.findMany({
      where: { slug: { in: slugs } },
      select: { id: true, slug: true, ownerId: true, versions: { orderBy: { createdAt: "desc" }, take: 1, select: { id: true, version: true } } },
    });
    const bySlug = new Map(systems.map((s) => [s.slug, s]));
    const missing = slugs.filter((s) => !bySlug.has(s));
    if (missing.length) throw fieldError("systems", `no system named ${missing.join(", ")}: submit each one first (sfbench submit --register-only)`);
    const foreign = user.operator ? [] : systems.filter((s) => s.ownerId !== userId).map((s) => s.slug);
    if (foreign.length)
      throw fieldError(
        "systems",
        `${foreign.join(", ")} belong${foreign.length === 1 ? "s" : ""} to another account: a campaign runs only your own systems`,
        "FORBIDDEN",
      );
    const parameters = {
      ...(input.workloads ? { workloads: [...new Set(input.workloads)] } : {}),
      ...(input.distributions ? { distributions: [...new Set(input.distributions)] } : {}),
      seed: input.seed,
      busyRepeats: input.busyRepeats,
    };
    const runs: CreatedCampaign["runs"] = [];
    let order = 0;
    for (const { round, order: slugs } of rounds) {
      for (const slug of slugs) {
        const system = bySlug.get(slug)!;
        const version = system.versions[0];
        if (!version) throw fieldError("systems", `${slug} has no submitted version`);
        const run = await tx.run.create({
          data: {
            systemId: system.id,
            targetVersionId: version.id,
            status: "queued",
            environmentKind: "local",
            nodes: 1,
            profile: input.profile,
            parameters,
            submittedById: userId,
            campaignId,
            trial: round,
            round,
            attempt: 1,
            createdAt: new Date(now.getTime() + order++),
          },
          select: { id: true },
        });
        runs.push({ runId: run.id, system: slug, version: version.version, round });
      }
    }
    return { campaignId, orderSeed, runs };
  });
}

/** Every system with a submitted version, by name. */
async function everyRegistered(tx: Pick<Db, "system">): Promise<string[]> {
  const systems = await tx.system.findMany({ where: { versions: { some: {} } }, select: { slug: true }, orderBy: { slug: "asc" } });
  return systems.map((s) => s.slug);
}
