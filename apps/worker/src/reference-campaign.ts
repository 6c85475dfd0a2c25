/**
 * The operator's reference campaign on a schedule: every registered system,
 * teams' included, in the same interleaved rounds as the reference, so that
 * every system on the board has a ratio to the reference measured beside it,
 * and no team's row rests on a campaign it chose to keep. It is the
 * campaign `sfbench campaign --server --all` queues by hand, queued by the
 * worker when the last one is older than SFBENCH_REFERENCE_EVERY_HOURS,
 * submitted by the operator's account (SFBENCH_OPERATOR_EMAIL, as the portal
 * reads it). The state is the database's: a restarted worker finds the last
 * one there, and two workers queue one campaign, not two.
 */
import { randomUUID } from "node:crypto";
import { REFERENCE_SYSTEM, type Profile } from "@sfbench/core";
import { queueCampaignRuns, registeredSystems, type Db, type QueuedCampaignRun } from "@sfbench/db";
import { interleavedRounds } from "@sfbench/engine";

export interface ReferenceSchedule {
  /** hours between two campaigns' starts; 0: no schedule */
  everyHours: number;
  trials: number;
  profile: Profile;
  /** the operator's address (the portal's SFBENCH_OPERATOR_EMAIL) */
  operatorEmail: string | undefined;
}

/** Marks a campaign's runs as a reference campaign's, scheduled or queued by hand with --all (in Run.parameters, which every run keeps). */
export const REFERENCE_MARK = "referenceCampaign";

export type ReferenceOutcome = { queued: { campaignId: string; runs: QueuedCampaignRun[] } } | { skipped: string };

/** Serialises the schedule's transactions across workers: one campaign is queued, never two at once. */
const LOCK_KEY = 0x5fbe_2ef0;

/** Queues a reference campaign when one is due, or says why not. */
export async function queueReferenceCampaign(db: Db, schedule: ReferenceSchedule, now = new Date()): Promise<ReferenceOutcome> {
  if (!(schedule.everyHours > 0)) return { skipped: "no schedule (SFBENCH_REFERENCE_EVERY_HOURS is 0)" };
  if (!schedule.operatorEmail) return { skipped: "no operator: set SFBENCH_OPERATOR_EMAIL, the account that submits the reference campaign" };
  const email = schedule.operatorEmail;
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_KEY})`;
    const operator = await tx.user.findFirst({ where: { email, operatorSince: { not: null } }, select: { id: true } });
    if (!operator) return { skipped: `no operator account for ${email} yet (npm run operator -w @sfbench/web -- --email ${email})` };
    const marked = { parameters: { path: [REFERENCE_MARK], equals: true } };
    const unfinished = await tx.run.count({ where: { ...marked, status: { in: ["queued", "running"] } } });
    if (unfinished) return { skipped: `the last reference campaign has ${unfinished} run(s) queued or running` };
    // the period counts from the last campaign's start: its first run (a busy trial's repeat is queued later)
    const last = await tx.run.findFirst({ where: marked, orderBy: { createdAt: "desc" }, select: { campaignId: true } });
    const started = last?.campaignId
      ? await tx.run.findFirst({ where: { campaignId: last.campaignId }, orderBy: { createdAt: "asc" }, select: { createdAt: true } })
      : null;
    const dueAt = started ? started.createdAt.getTime() + schedule.everyHours * 3_600_000 : now.getTime();
    if (dueAt > now.getTime()) return { skipped: `the next reference campaign is due at ${new Date(dueAt).toISOString()}` };
    const systems = await registeredSystems(tx);
    if (!systems.includes(REFERENCE_SYSTEM)) return { skipped: `the reference ${REFERENCE_SYSTEM} is not registered (sfbench submit --register-only)` };
    const campaignId = randomUUID();
    const runs = await queueCampaignRuns(tx, {
      campaignId,
      userId: operator.id,
      rounds: interleavedRounds(systems, schedule.trials, now.getTime() % 2 ** 31),
      profile: schedule.profile,
      // every cell, the default load seed, one repeat of a busy trial: as the portal's campaign form defaults them
      parameters: { seed: 1, busyRepeats: 1, [REFERENCE_MARK]: true },
      now,
    });
    return { queued: { campaignId, runs } };
  });
}

/** Looks every `intervalMs` (10 minutes) whether a reference campaign is due, and queues it; returns the stop. */
export function startReferenceSchedule(
  db: Db,
  schedule: ReferenceSchedule,
  opts: { intervalMs?: number; log?: (line: string) => void } = {},
): () => Promise<void> {
  if (!(schedule.everyHours > 0)) return async () => undefined;
  let said = "";
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      const outcome = await queueReferenceCampaign(db, schedule);
      const line =
        "queued" in outcome
          ? `reference campaign ${outcome.queued.campaignId}: ${outcome.queued.runs.length} runs queued`
          : `reference campaign: ${outcome.skipped}`;
      // a skip is said once, not every ten minutes
      if (line !== said || "queued" in outcome) opts.log?.(line);
      said = line;
    } catch (e) {
      opts.log?.(`reference campaign: ${(e as Error).message}`);
    }
  };
  const timer = setInterval(() => {
    running = running.then(tick);
  }, opts.intervalMs ?? 600_000);
  running = tick();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
