/**
 * A campaign: one queued Run per system and round, in randomised interleaved
 * order (every round one trial of each system, shuffled by a seeded
 * generator, @sfbench/engine interleavedRounds). The worker takes queued
 * runs oldest first, so each run's createdAt is set one millisecond after the
 * previous one: rows written in one transaction would otherwise share the
 * transaction's timestamp and lose their order. Every run carries the
 * campaign's id, its trial and round (attempt 1); the worker puts them in the
 * run's result document and repeats a busy trial as attempt 2.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "@sfbench/db";
import { interleavedRounds } from "@sfbench/engine";
import type { z } from "zod";
import type { CampaignInput } from "../../shared/campaign.ts";
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
  userId: string,
  input: z.output<typeof CampaignInput>,
  perHour: number,
  now = new Date(),
): Promise<CreatedCampaign> {
  const orderSeed = input.orderSeed ?? now.getTime() % 2 ** 31;
  const rounds = interleavedRounds(input.systems, input.trials, orderSeed);
  const campaignId = randomUUID();
  return db.$transaction(async (tx) => {
    await enforceSubmissionLimit(tx, userId, perHour, now, input.systems.length * input.trials);
    const systems = await tx.system.findMany({
      where: { slug: { in: input.systems } },
      select: { id: true, slug: true, ownerId: true, versions: { orderBy: { createdAt: "desc" }, take: 1, select: { id: true, version: true } } },
    });
    const bySlug = new Map(systems.map((s) => [s.slug, s]));
    const missing = input.systems.filter((s) => !bySlug.has(s));
    if (missing.length) throw fieldError("systems", `no system named ${missing.join(", ")}: submit each one first (sfbench submit --register-only)`);
    const foreign = systems.filter((s) => s.ownerId !== userId).map((s) => s.slug);
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
