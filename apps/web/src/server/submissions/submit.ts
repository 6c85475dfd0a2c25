/**
 * A submission: System (created and owned by the submitter, or one they own),
 * TargetVersion (by manifest digest, with its LOC) and a queued Run, in one
 * transaction. The worker picks queued runs up.
 *
 * What a system shows (display name, description, repository) is set when the
 * system is created and afterwards only by a version that verified (its run
 * completed, `@sfbench/db` importResult): a resubmission never changes the
 * leaderboard row. A version string names one target.json: the same version
 * with another manifest is refused.
 */
import { rm } from "node:fs/promises";
import { manifestDigest, type TargetManifest } from "@sfbench/core";
import type { Db, LocCounts, Prisma } from "@sfbench/db";
import type { z } from "zod";
import { buildManifest, type SubmitInput } from "../../shared/submit.ts";
import { fieldError, fieldErrors } from "../trpc/errors.ts";
import { claimUploads, type Claimed } from "../uploads/claim.ts";
import type { UploadSettings } from "../uploads/limits.ts";
import { pruneImageArchives } from "../uploads/retention.ts";
import { parseLoc } from "./loc.ts";
import { enforceSubmissionLimit } from "./rate-limit.ts";

/** SFBENCH_KEEP_IMAGE_ARCHIVES's default, for settings that leave it out */
const DEFAULT_KEEP_IMAGE_ARCHIVES = 3;

export interface Submitted {
  runId: string;
  systemSlug: string;
  version: string;
}

export interface Registered {
  systemSlug: string;
  version: string;
}

export async function submit(db: Db, userId: string, input: z.output<typeof SubmitInput>, perHour: number, uploads: UploadSettings): Promise<Submitted> {
  const done = await store(db, userId, input, perHour, uploads, true);
  return { runId: done.runId!, systemSlug: done.systemSlug, version: done.version };
}

/**
 * The system and version without a run (`sfbench submit --register-only`):
 * what a campaign then measures (campaigns.create takes systems by name and
 * runs their latest version), so that registering queues no single run.
 */
export async function register(db: Db, userId: string, input: z.output<typeof SubmitInput>, perHour: number, uploads: UploadSettings): Promise<Registered> {
  const done = await store(db, userId, input, perHour, uploads, false);
  return { systemSlug: done.systemSlug, version: done.version };
}

async function store(
  db: Db,
  userId: string,
  input: z.output<typeof SubmitInput>,
  perHour: number,
  uploads: UploadSettings,
  queue: boolean,
): Promise<Registered & { runId?: string }> {
  const built = buildManifest(input);
  if (!built.ok) throw fieldErrors(built.fields);
  const loc = parseLoc(input.loc);
  let claimed: Claimed | undefined;
  let pruned: string[] = [];
  const submitted = await db
    .$transaction(async (tx) => {
      await enforceSubmissionLimit(tx, userId, perHour, new Date(), queue ? 1 : 0);
      const systemId = await ownSystem(tx, userId, built.manifest);
      const versionId = await upsertVersion(tx, systemId, built.manifest, loc);
      claimed = await claimUploads(tx, userId, versionId, built.manifest, input, uploads.dataDir);
      pruned = await pruneImageArchives(tx, systemId, versionId, uploads.keepImageArchives ?? DEFAULT_KEEP_IMAGE_ARCHIVES);
      if (!queue) return { systemSlug: built.manifest.name, version: built.manifest.version };
      const run = await tx.run.create({
        data: {
          systemId,
          targetVersionId: versionId,
          status: "queued",
          environmentKind: input.environmentKind,
          nodes: input.nodes,
          profile: input.profile,
          parameters: {
            ...(input.workloads ? { workloads: [...new Set(input.workloads)] } : {}),
            ...(input.distributions ? { distributions: [...new Set(input.distributions)] } : {}),
            ...(input.micro !== undefined ? { micro: input.micro } : {}),
            ...(input.experiment !== "throughput" ? { experiment: input.experiment } : {}),
          },
          submittedById: userId,
        },
        select: { id: true },
      });
      return { runId: run.id, systemSlug: built.manifest.name, version: built.manifest.version };
    })
    .catch(async (e: unknown) => {
      await claimed?.undo();
      throw e;
    });
  await claimed?.finish();
  await Promise.all(pruned.map((f) => rm(f, { force: true })));
  return submitted;
}

async function ownSystem(tx: Prisma.TransactionClient, userId: string, manifest: TargetManifest): Promise<string> {
  // lock the slug for this transaction: two first submissions of one name create one System
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`system:${manifest.name}`}, 0))`;
  const existing = await tx.system.findUnique({ where: { slug: manifest.name }, select: { id: true, ownerId: true } });
  if (existing && existing.ownerId !== userId) {
    throw fieldError("name", `the system "${manifest.name}" belongs to another account; choose another name`, "FORBIDDEN");
  }
  if (existing) return existing.id;
  const fields = { name: manifest.system, description: manifest.description ?? null, repository: manifest.repository ?? null };
  const created = await tx.system.create({ data: { slug: manifest.name, ownerId: userId, ...fields }, select: { id: true } });
  return created.id;
}

async function upsertVersion(tx: Prisma.TransactionClient, systemId: string, manifest: TargetManifest, loc: LocCounts | undefined): Promise<string> {
  const digest = manifestDigest(manifest);
  // the system's slug lock (ownSystem) is held: two submissions of one version cannot both pass this check
  const other = await tx.targetVersion.findFirst({
    where: { systemId, version: manifest.version, manifestDigest: { not: digest } },
    select: { manifestDigest: true, createdAt: true },
  });
  if (other) {
    throw fieldError(
      "version",
      `version ${manifest.version} of "${manifest.name}" was submitted on ${other.createdAt.toISOString().slice(0, 10)} with another target.json ` +
        `(${other.manifestDigest.slice(0, 19)}…); a changed target.json needs a new version (e.g. ${nextPatch(manifest.version)})`,
      "CONFLICT",
    );
  }
  const json = manifest as unknown as Prisma.InputJsonValue;
  const version = await tx.targetVersion.upsert({
    where: { systemId_manifestDigest: { systemId, manifestDigest: digest } },
    // the LOC sfbench counts (TargetVersion.loc) is the worker's; what the submitter states is kept as declared, from the first submission
    create: { systemId, version: manifest.version, manifestDigest: digest, manifest: json, image: manifest.image ?? null, declaredLoc: loc ?? undefined },
    update: { manifest: json, image: manifest.image ?? null },
    select: { id: true },
  });
  return version.id;
}

/** 1.2.3 -> 1.2.4 (and 1.2.3-rc.1 -> 1.2.4): a suggestion for the refusal above. */
function nextPatch(version: string): string {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  return match ? `${match[1]}.${match[2]}.${Number(match[3]) + 1}` : "a new version";
}
