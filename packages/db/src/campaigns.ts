/**
 * A campaign's rows: one queued Run per system and round, in the rounds'
 * order. The worker takes queued runs oldest first, so each run's createdAt
 * is set one millisecond after the previous one: rows written in one
 * transaction would otherwise share the transaction's timestamp and lose
 * their order. Every run carries the campaign's id, its trial and round
 * (attempt 1); the worker puts them in the run's result document and repeats
 * a busy trial as attempt 2.
 *
 * Who may ask for which systems is the caller's to decide (the portal's
 * campaign form, the worker's reference schedule); what every campaign needs,
 * each system registered with a submitted version, is checked here.
 */
import type { Db } from "./client.ts";
import type { Prisma } from "./generated/client.ts";
import type { Profile } from "./generated/enums.ts";

/** A campaign that cannot be queued, with the field of the request it comes from and what is allowed. */
export class CampaignRefusal extends Error {
  constructor(
    readonly field: "systems",
    message: string,
    readonly forbidden = false,
  ) {
    super(message);
  }
}

export interface CampaignRunsInput {
  campaignId: string;
  /** who submitted it: every run's submitter */
  userId: string;
  /** every round's systems (slugs) in the order they run; @sfbench/engine's interleavedRounds makes them */
  rounds: readonly { round: number; order: readonly string[] }[];
  profile: Profile;
  /** what every run is measured with (cells, seed, busy repeats, and whatever marks the campaign) */
  parameters: Prisma.InputJsonObject;
  /** only systems of this account (a team's campaign); absent, any registered system (the operator's) */
  ownedBy?: string;
  now: Date;
}

export interface QueuedCampaignRun {
  runId: string;
  system: string;
  version: string;
  round: number;
}

/** Writes the campaign's runs in `tx`, each system's latest version; refuses an unknown system, another account's, or one without a version. */
export async function queueCampaignRuns(tx: Pick<Db, "system" | "run">, input: CampaignRunsInput): Promise<QueuedCampaignRun[]> {
  const slugs = [...new Set(input.rounds.flatMap((r) => r.order))];
  const systems = await tx.system.findMany({
    where: { slug: { in: slugs } },
    select: { id: true, slug: true, ownerId: true, versions: { orderBy: { createdAt: "desc" }, take: 1, select: { id: true, version: true } } },
  });
  const bySlug = new Map(systems.map((s) => [s.slug, s]));
  const missing = slugs.filter((s) => !bySlug.has(s));
  if (missing.length) throw new CampaignRefusal("systems", `no system named ${missing.join(", ")}: submit each one first (sfbench submit --register-only)`);
  const foreign = input.ownedBy === undefined ? [] : systems.filter((s) => s.ownerId !== input.ownedBy).map((s) => s.slug);
  if (foreign.length)
    throw new CampaignRefusal(
      "systems",
      `${foreign.join(", ")} belong${foreign.length === 1 ? "s" : ""} to another account: a campaign runs only your own systems`,
      true,
    );
  const runs: QueuedCampaignRun[] = [];
  let order = 0;
  for (const { round, order: inRound } of input.rounds) {
    for (const slug of inRound) {
      const system = bySlug.get(slug)!;
      const version = system.versions[0];
      if (!version) throw new CampaignRefusal("systems", `${slug} has no submitted version`);
      const run = await tx.run.create({
        data: {
          systemId: system.id,
          targetVersionId: version.id,
          status: "queued",
          environmentKind: "local",
          nodes: 1,
          profile: input.profile,
          parameters: input.parameters,
          submittedById: input.userId,
          campaignId: input.campaignId,
          trial: round,
          round,
          attempt: 1,
          createdAt: new Date(input.now.getTime() + order++),
        },
        select: { id: true },
      });
      runs.push({ runId: run.id, system: slug, version: version.version, round });
    }
  }
  return runs;
}

/** Every system with a submitted version, by name. */
export async function registeredSystems(tx: Pick<Db, "system">): Promise<string[]> {
  const systems = await tx.system.findMany({ where: { versions: { some: {} } }, select: { slug: true }, orderBy: { slug: "asc" } });
  return systems.map((s) => s.slug);
}
