/**
 * The lines of code sfbench counts for a target version (cloc over the
 * manifest's loc globs, @sfbench/provider-local/loc): from the bundled
 * target's folder, or from the source archive submitted with it, unpacked to
 * a temporary folder. Counted once, when the version first runs: a version
 * that has its LOC keeps it (the UPDATE only writes a NULL), so neither a
 * resubmission nor a later run changes a ranked version's figure.
 * A bundled target's count also holds the workspace packages it shares
 * with others and that say so (countTargetLoc).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TargetManifest } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { countLoc, countTargetLoc } from "@sfbench/provider-local/loc";
import { unpackSources } from "./unpack-sources.ts";

export type LocSource = { kind: "folder"; dir: string } | { kind: "source-archive"; file: string } | { kind: "none" };

export type LocOutcome = { counted: true; source: LocSource["kind"] } | { counted: false; reason: string };

/** Where a version's source is: the bundled folder when the run is of the bundled target.json, else its uploaded source archive. */
export async function locSource(db: Db, targetVersionId: string, bundledDir: string | undefined): Promise<LocSource> {
  if (bundledDir) return { kind: "folder", dir: bundledDir };
  const upload = await db.upload.findFirst({ where: { targetVersionId, kind: "source_archive" }, select: { path: true } });
  return upload ? { kind: "source-archive", file: upload.path } : { kind: "none" };
}

export async function countVersionLoc(db: Db, targetVersionId: string, manifest: TargetManifest, source: LocSource): Promise<LocOutcome> {
  const current = await db.targetVersion.findUniqueOrThrow({ where: { id: targetVersionId }, select: { loc: true } });
  if (current.loc !== null) return { counted: false, reason: "already counted" };
  if (source.kind === "none") return { counted: false, reason: "no source to count: a bundled target's folder or a source archive submitted with the version" };
  let dir = source.kind === "folder" ? source.dir : undefined;
  let scratch: string | undefined;
  try {
    if (source.kind === "source-archive") {
      scratch = await mkdtemp(join(tmpdir(), "sfbench-source-"));
      // the worker checks every entry itself (unpack-sources.ts), whatever the portal's check let in
      await unpackSources(source.file, scratch);
      dir = scratch;
    }
    const label = `${manifest.name} ${manifest.version}`;
    // a bundled folder with the shared packages it counts with; an archive is what the team sent
    const { loc } = source.kind === "folder" ? await countTargetLoc(dir!, manifest, label) : await countLoc(dir!, manifest, label);
    await db.$executeRaw`UPDATE "TargetVersion" SET "loc" = ${JSON.stringify(loc)}::jsonb WHERE "id" = ${targetVersionId}::uuid AND "loc" IS NULL`;
    return { counted: true, source: source.kind };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
