/**
 * Image archives are the largest files the portal keeps (up to
 * SFBENCH_IMAGE_ARCHIVE_MAX_MIB each): a team that submits version after
 * version would otherwise fill its disk. Each system keeps the archives of its
 * newest `keep` versions that have one, and of every version with a run
 * queued or running; the files of older ones are removed and their rows kept,
 * marked pruned, with the digest as the record of what ran. Submitting such a
 * version again with the same archive brings it back (claim.ts).
 */
import type { Prisma } from "@sfbench/db";

/**
 * Marks the image archives past the system's newest `keep` as pruned, never
 * the one of `current` (the version being submitted, an old one brought back
 * included); resolves with their files, to remove once the transaction commits.
 */
export async function pruneImageArchives(tx: Prisma.TransactionClient, systemId: string, current: string, keep: number): Promise<string[]> {
  const versions = await tx.targetVersion.findMany({
    where: { systemId, uploads: { some: { kind: "image_archive", prunedAt: null } } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: {
      id: true,
      uploads: { where: { kind: "image_archive", prunedAt: null }, select: { id: true, path: true } },
      runs: { where: { status: { in: ["queued", "running"] } }, select: { id: true }, take: 1 },
    },
  });
  const pruned = versions
    .slice(keep)
    .filter((v) => v.id !== current && !v.runs.length)
    .flatMap((v) => v.uploads);
  if (!pruned.length) return [];
  await tx.upload.updateMany({ where: { id: { in: pruned.map((u) => u.id) } }, data: { prunedAt: new Date() } });
  return pruned.map((u) => u.path);
}
