/**
 * The lines of code sfbench counts for a target version (cloc over the
 * manifest's loc globs, @sfbench/provider-local/loc): from the bundled
 * target's folder, or from the source archive submitted with it, unpacked to
 * a temporary folder. Counted once, when the version first runs: a version
 * that has its LOC keeps it (the UPDATE only writes a NULL), so neither a
 * resubmission nor a later run changes a ranked version's figure.
 *
 * A bundled target's count also holds the workspace packages it shares with
 * other bundled targets and that say so (package.json
 * `"sfbench": {"countedWithTargets": true}`, e.g. @sfbench/shop-pg, the
 * gateway of node-postgres and dbos): each target's LOC is what it takes to
 * build it, as if it carried its own copy, next to targets that do.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { TargetManifest } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { countLoc, type LocCounts } from "@sfbench/provider-local/loc";
import { unpackSources } from "./unpack-sources.ts";

export type LocSource = { kind: "folder"; dir: string } | { kind: "source-archive"; file: string } | { kind: "none" };

export type LocOutcome = { counted: true; source: LocSource["kind"] } | { counted: false; reason: string };

/** Where a version's source is: the bundled folder when the run is of the bundled target.json, else its uploaded source archive. */
export async function locSource(db: Db, targetVersionId: string, bundledDir: string | undefined): Promise<LocSource> {
  if (bundledDir) return { kind: "folder", dir: bundledDir };
  const upload = await db.upload.findFirst({ where: { targetVersionId, kind: "source_archive" }, select: { path: true } });
  return upload ? { kind: "source-archive", file: upload.path } : { kind: "none" };
}

interface PackageJson {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  sfbench?: { countedWithTargets?: boolean };
}

const readPackage = (dir: string): PackageJson | undefined =>
  existsSync(join(dir, "package.json")) ? (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson) : undefined;

/** The folders of the workspaces list of `root` (a trailing /* is one level of folders, as npm reads it here). */
function workspaceDirs(root: string, workspaces: string[]): string[] {
  return workspaces.flatMap((w) => {
    if (!w.endsWith("/*")) return [join(root, w)];
    const parent = join(root, w.slice(0, -2));
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(parent, d.name));
  });
}

/**
 * The folders of the workspace packages among the runtime dependencies
 * (package.json "dependencies") of the target in `dir` that are counted with
 * the targets using them. The workspaces are those of the nearest package.json
 * above `dir` that lists some (the repository's root).
 */
export function countedWorkspaceDeps(dir: string): string[] {
  const deps = Object.keys(readPackage(dir)?.dependencies ?? {});
  if (deps.length === 0) return [];
  for (let root = dirname(resolve(dir)); ; root = dirname(root)) {
    const workspaces = readPackage(root)?.workspaces;
    if (workspaces) {
      return workspaceDirs(root, workspaces).filter((w) => {
        const pkg = readPackage(w);
        return pkg?.name !== undefined && deps.includes(pkg.name) && pkg.sfbench?.countedWithTargets === true;
      });
    }
    if (dirname(root) === root) return [];
  }
}

/** Adds `more` into `into`, language by language, app and gateway apart. */
function addLoc(into: LocCounts, more: LocCounts): LocCounts {
  for (const [lang, n] of Object.entries(more) as [keyof LocCounts, { app: number; gateway: number }][]) {
    const row = (into[lang] ??= { app: 0, gateway: 0 });
    row.app += n.app;
    row.gateway += n.gateway;
  }
  return into;
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
    const { loc } = await countLoc(dir!, manifest, label);
    // a shared package has the layout of the targets that use it, so their own loc globs split it into app and gateway
    if (source.kind === "folder") for (const shared of countedWorkspaceDeps(dir!)) addLoc(loc, (await countLoc(shared, manifest, `${label} (${shared})`)).loc);
    await db.$executeRaw`UPDATE "TargetVersion" SET "loc" = ${JSON.stringify(loc)}::jsonb WHERE "id" = ${targetVersionId}::uuid AND "loc" IS NULL`;
    return { counted: true, source: source.kind };
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}
