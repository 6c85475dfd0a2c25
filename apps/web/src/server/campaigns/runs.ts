/**
 * A campaign's runs as queued, oldest first: every trial's attempts,
 * including a busy trial's repeat that the worker queued after it (the demo
 * and `sfbench campaign --server` follow the campaign by this list).
 */
import type { Db } from "@sfbench/db";

export interface CampaignRun {
  runId: string;
  system: string;
  version: string;
  round: number | null;
  attempt: number | null;
  status: string;
}

export async function campaignRuns(db: Db, campaignId: string): Promise<CampaignRun[]> {
  const runs = await db.run.findMany({
    where: { campaignId },
    orderBy: { createdAt: "asc" },
    select: { id: true, round: true, attempt: true, status: true, system: { select: { slug: true } }, targetVersion: { select: { version: true } } },
  });
  return runs.map((r) => ({ runId: r.id, system: r.system.slug, version: r.targetVersion.version, round: r.round, attempt: r.attempt, status: r.status }));
}
