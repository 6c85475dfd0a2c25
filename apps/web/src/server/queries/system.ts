/** The system page: the system, its versions (manifest, LOC), its run history (newest first), ratings. */
import { TargetManifest } from "@sfbench/core";
import type { Db, LocCounts } from "@sfbench/db";
import { bundledTargetNames } from "../operator/bundled.ts";
import { manifestView } from "./manifest-view.ts";
import { pendingRatings, ratingSummary } from "./ratings.ts";

export const HISTORY_LIMIT = 100;

/** A stored manifest with its keys in the schema's order (jsonb keeps its own order). */
function inSchemaOrder(manifest: unknown): TargetManifest | null {
  if (!manifest || typeof manifest !== "object") return null;
  const m = manifest as Record<string, unknown>;
  const order = Object.keys(TargetManifest.shape);
  const keys = [...order.filter((k) => k in m), ...Object.keys(m).filter((k) => !order.includes(k))];
  return Object.fromEntries(keys.map((k) => [k, m[k]])) as TargetManifest;
}

export async function getSystem(db: Db, slug: string, viewerId?: string | null) {
  const system = await db.system.findUnique({
    where: { slug },
    select: {
      id: true,
      slug: true,
      name: true,
      description: true,
      repository: true,
      ownerId: true,
      createdAt: true,
      versions: {
        orderBy: { createdAt: "desc" },
        select: { id: true, version: true, manifestDigest: true, manifest: true, image: true, loc: true, declaredLoc: true, createdAt: true },
      },
      runs: {
        orderBy: { createdAt: "desc" },
        take: HISTORY_LIMIT,
        select: {
          id: true,
          status: true,
          stage: true,
          progress: true,
          environmentKind: true,
          nodes: true,
          profile: true,
          createdAt: true,
          finishedAt: true,
          errorStage: true,
          errorMessage: true,
          targetVersion: { select: { version: true } },
        },
      },
      _count: { select: { runs: true } },
    },
  });
  if (!system) return null;
  const [ratings, ratingsPending, mine] = await Promise.all([
    ratingSummary(db, system.id),
    pendingRatings(db, system.id),
    viewerId
      ? db.rating.findUnique({
          where: { userId_systemId: { userId: viewerId, systemId: system.id } },
          select: { programmingModel: true, understandability: true, comment: true },
        })
      : null,
  ]);
  const { ownerId, _count, versions, ...rest } = system;
  const owned = Boolean(viewerId && ownerId === viewerId);
  return {
    ...rest,
    owned,
    // a bundled target's name (packages/targets/*), whether the operator submitted it or the worker imported it
    bundled: bundledTargetNames().has(rest.slug),
    runCount: _count.runs,
    versions: versions.map((v) => ({
      ...v,
      manifest: manifestView(inSchemaOrder(v.manifest), owned),
      loc: v.loc as LocCounts | null,
      declaredLoc: v.declaredLoc as LocCounts | null,
    })),
    ratings,
    /** ratings from accounts too new to count yet */
    ratingsPending,
    myRating: mine,
  };
}

export type SystemPage = NonNullable<Awaited<ReturnType<typeof getSystem>>>;
