/**
 * A submission: System (created and owned by the submitter, or one they own),
 * TargetVersion (by manifest digest, with its LOC) and a queued Run, in one
 * transaction. The worker picks queued runs up (a later issue).
 */
import { manifestDigest, type TargetManifest } from "@sfbench/core";
import type { Db, LocCounts, Prisma } from "@sfbench/db";
import type { z } from "zod";
import { buildManifest, type SubmitInput } from "../../shared/submit.ts";
import { fieldError, fieldErrors } from "../trpc/errors.ts";
import { parseLoc } from "./loc.ts";
import { enforceSubmissionLimit } from "./rate-limit.ts";

export interface Submitted {
  runId: string;
  systemSlug: string;
  version: string;
}

export async function submit(db: Db, userId: string, input: z.output<typeof SubmitInput>, perHour: number): Promise<Submitted> {
  const built = buildManifest(input);
  if (!built.ok) throw fieldErrors(built.fields);
  const loc = parseLoc(input.loc);
  return db.$transaction(async (tx) => {
    await enforceSubmissionLimit(tx, userId, perHour);
    const systemId = await ownSystem(tx, userId, built.manifest);
    const versionId = await upsertVersion(tx, systemId, built.manifest, loc);
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
        },
        submittedById: userId,
      },
      select: { id: true },
    });
    return { runId: run.id, systemSlug: built.manifest.name, version: built.manifest.version };
  });
}

async function ownSystem(tx: Prisma.TransactionClient, userId: string, manifest: TargetManifest): Promise<string> {
  // lock the slug for this transaction: two first submissions of one name create one System
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`system:${manifest.name}`}, 0))`;
  const existing = await tx.system.findUnique({ where: { slug: manifest.name }, select: { id: true, ownerId: true } });
  if (existing && existing.ownerId !== userId) {
    throw fieldError("name", `the system "${manifest.name}" belongs to another account; choose another name`, "FORBIDDEN");
  }
  const fields = { name: manifest.system, description: manifest.description ?? null, repository: manifest.repository ?? null };
  if (existing) {
    await tx.system.update({ where: { id: existing.id }, data: fields });
    return existing.id;
  }
  const created = await tx.system.create({ data: { slug: manifest.name, ownerId: userId, ...fields }, select: { id: true } });
  return created.id;
}

async function upsertVersion(tx: Prisma.TransactionClient, systemId: string, manifest: TargetManifest, loc: LocCounts | undefined): Promise<string> {
  const digest = manifestDigest(manifest);
  const json = manifest as unknown as Prisma.InputJsonValue;
  const version = await tx.targetVersion.upsert({
    where: { systemId_manifestDigest: { systemId, manifestDigest: digest } },
    create: { systemId, version: manifest.version, manifestDigest: digest, manifest: json, image: manifest.image ?? null, loc: loc ?? undefined },
    update: { manifest: json, image: manifest.image ?? null, ...(loc ? { loc } : {}) },
    select: { id: true },
  });
  return version.id;
}
