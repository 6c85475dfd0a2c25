/**
 * A submission claims its uploads for its target version: the image archive
 * must name the manifest's image and nothing outside the system's namespace
 * (core's image-archive.ts), and a version keeps the first archive of
 * each kind it was given (append-only): the same file again is accepted and
 * the copy dropped (or, when retention removed the version's file, linked
 * back in its place), another file is refused (a changed image is a new version).
 * Files are hard-linked into versions/<target version>/ inside the transaction
 * and the upload's first name removed once it commits (finish), or the link
 * removed when it does not (undo).
 */
import { link, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { TargetManifest } from "@sfbench/core";
import type { Prisma } from "@sfbench/db";
import { fieldError } from "../trpc/errors.ts";
import { namesImage, namespaceProblem, outsideSystemNamespace } from "@sfbench/core/image-archive";

export interface UploadIds {
  imageArchive?: string | undefined;
  sourceArchive?: string | undefined;
}

export interface Claimed {
  /** after the transaction committed: remove the files no row points to any more */
  finish: () => Promise<void>;
  /** after it failed: remove the links made */
  undo: () => Promise<void>;
}

const FIELDS = { imageArchive: { kind: "image_archive", name: "image-archive" }, sourceArchive: { kind: "source_archive", name: "source-archive" } } as const;

export async function claimUploads(
  tx: Prisma.TransactionClient,
  userId: string,
  versionId: string,
  manifest: TargetManifest,
  ids: UploadIds,
  dataDir: string,
): Promise<Claimed> {
  const obsolete: string[] = [];
  const made: string[] = [];
  const claimed: Claimed = {
    finish: async () => void (await Promise.all(obsolete.map((f) => rm(f, { force: true })))),
    undo: async () => void (await Promise.all(made.map((f) => rm(f, { force: true })))),
  };
  try {
    for (const field of ["imageArchive", "sourceArchive"] as const) {
      const id = ids[field];
      if (!id) continue;
      const { kind, name } = FIELDS[field];
      const upload = await tx.upload.findUnique({ where: { id } });
      if (!upload || upload.userId !== userId || upload.kind !== kind)
        throw fieldError(field, `no ${name} upload ${id} of yours; upload the file first (POST /api/uploads/${name})`);
      if (upload.targetVersionId === versionId) continue;
      if (upload.targetVersionId) throw fieldError(field, `upload ${id} was submitted with another version; upload the file again`);
      if (field === "imageArchive") {
        if (!manifest.image) throw fieldError(field, `target.json names no image; set its "image" to the archive's image (${upload.references.join(", ")})`);
        if (!namesImage(upload.references, manifest.image))
          throw fieldError(
            field,
            `the archive holds ${upload.references.join(", ")}, not the manifest's image ${manifest.image}; save that image (podman save -o image.tar ${manifest.image}) or set target.json "image"`,
          );
        // every name it holds is loaded, not only the manifest's: each must be this system's
        const outside = outsideSystemNamespace(upload.references, manifest.name);
        if (outside) throw fieldError(field, namespaceProblem(outside, manifest.name));
      }
      const kept = await tx.upload.findFirst({ where: { targetVersionId: versionId, kind } });
      if (kept) {
        if (kept.sha256 !== upload.sha256) {
          throw fieldError(
            field,
            `version ${manifest.version} of "${manifest.name}" already has its ${name} (${kept.sha256.slice(0, 19)}…, ${kept.createdAt.toISOString().slice(0, 10)}); a changed ${name} needs a new version`,
            "CONFLICT",
          );
        }
        if (kept.prunedAt) {
          // retention removed its file: the same archive again brings it back under the version's name
          await mkdir(dirname(kept.path), { recursive: true });
          await link(upload.path, kept.path);
          made.push(kept.path);
          await tx.upload.update({ where: { id: kept.id }, data: { prunedAt: null } });
        }
        await tx.upload.delete({ where: { id } });
        obsolete.push(upload.path);
        continue;
      }
      const dir = join(dataDir, "versions", versionId);
      await mkdir(dir, { recursive: true });
      const dest = join(dir, `${name}-${upload.sha256.replace(/^sha256:/, "")}.tar`);
      await link(upload.path, dest);
      made.push(dest);
      await tx.upload.update({ where: { id }, data: { targetVersionId: versionId, path: dest } });
      obsolete.push(upload.path);
    }
  } catch (e) {
    await claimed.undo();
    throw e;
  }
  return claimed;
}
