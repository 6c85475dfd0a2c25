/**
 * An upload, streamed to a file under the data directory while its size is
 * counted and its sha256 computed (never held in memory whole), then checked
 * for what its kind must be and recorded as an unclaimed Upload of the user.
 * A submission claims it (claim.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import type { Db } from "@sfbench/db";
import { checkImageArchive, IMAGE_METADATA } from "./image-archive.ts";
import { formatBytes, type UploadKindName, type UploadSettings } from "./limits.ts";
import { checkSourceArchive } from "./source-archive.ts";
import { NotATar, scanTar } from "./tar.ts";

/** A refused upload: the HTTP status, the field it concerns and what is allowed. */
export class UploadRefused extends Error {
  constructor(
    readonly status: number,
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Received {
  id: string;
  kind: UploadKindName;
  sha256: string;
  size: number;
  references: string[];
}

const ENV_NAME: Record<UploadKindName, string> = { "image-archive": "SFBENCH_IMAGE_ARCHIVE_MAX_MIB", "source-archive": "SFBENCH_SOURCE_ARCHIVE_MAX_MIB" };

export const tooLarge = (kind: UploadKindName, limit: number, size?: number) =>
  new UploadRefused(
    413,
    kind,
    `${kind}: ${size === undefined ? "more" : `${formatBytes(size)}, more`} than the portal's limit of ${formatBytes(limit)} (${ENV_NAME[kind]})`,
  );

/** Deletes the user's unclaimed uploads past their age, then refuses one more than the user may hold. */
async function limitUnclaimed(db: Db, userId: string, kind: UploadKindName, unclaimed: { max: number; hours: number }): Promise<void> {
  const stale = await db.upload.findMany({
    where: { userId, targetVersionId: null, createdAt: { lt: new Date(Date.now() - unclaimed.hours * 3600_000) } },
    select: { id: true, path: true },
  });
  for (const u of stale) {
    await db.upload.delete({ where: { id: u.id } });
    await rm(u.path, { force: true });
  }
  const held = await db.upload.count({ where: { userId, targetVersionId: null } });
  if (held >= unclaimed.max) {
    throw new UploadRefused(
      429,
      kind,
      `${kind}: you hold ${held} uploads no submission has named (at most ${unclaimed.max}, SFBENCH_UNCLAIMED_UPLOADS); submit with them, or wait until they are deleted ${unclaimed.hours} hours after upload`,
    );
  }
}

async function isGzip(file: string): Promise<boolean> {
  const fh = await open(file);
  try {
    const { buffer, bytesRead } = await fh.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

export async function receiveUpload(
  db: Db,
  userId: string,
  kind: UploadKindName,
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number | undefined,
  settings: UploadSettings,
): Promise<Received> {
  const limit = settings.maxBytes[kind];
  if (declaredLength !== undefined && declaredLength > limit) throw tooLarge(kind, limit, declaredLength);
  if (settings.unclaimed) await limitUnclaimed(db, userId, kind, settings.unclaimed);
  if (!body) throw new UploadRefused(400, kind, `${kind}: the request has no body; send the file as the body of the POST`);
  const dir = join(settings.dataDir, "uploads");
  await mkdir(dir, { recursive: true });
  const id = randomUUID();
  const file = join(dir, `${id}.tar`);
  const hash = createHash("sha256");
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(tooLarge(kind, limit));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(body as Parameters<typeof Readable.fromWeb>[0]), counter, createWriteStream(file, { flags: "wx" }));
    if (size === 0) throw new UploadRefused(400, kind, `${kind}: the file is empty`);
    const gz = kind === "source-archive" && (await isGzip(file));
    const stream = gz ? createReadStream(file).pipe(createGunzip()) : createReadStream(file);
    let scanned;
    try {
      scanned = await scanTar(stream, { keep: (e) => kind === "image-archive" && IMAGE_METADATA.has(e.name) });
    } catch (e) {
      if (e instanceof NotATar || (e as NodeJS.ErrnoException).code === "Z_DATA_ERROR") {
        throw new UploadRefused(
          400,
          kind,
          `${kind}: ${(e as Error).message}; expected ${kind === "image-archive" ? "a tar from `podman save` or `docker save` (docker-archive or oci-archive)" : "a tar or tar.gz of the source files"}`,
        );
      }
      throw e;
    }
    let references: string[] = [];
    if (kind === "image-archive") {
      const check = checkImageArchive(scanned.entries, scanned.kept);
      if (!check.ok) throw new UploadRefused(400, kind, `${kind}: ${check.problem}`);
      if (!check.references.length)
        throw new UploadRefused(
          400,
          kind,
          `${kind}: the archive names no image (no RepoTags / ref.name); save it by name: podman save -o image.tar <name>:<tag>`,
        );
      references = check.references;
    } else {
      const check = checkSourceArchive(scanned.entries);
      if (!check.ok) throw new UploadRefused(400, kind, `${kind}: ${check.problem}`);
    }
    const sha256 = `sha256:${hash.digest("hex")}`;
    await db.upload.create({ data: { id, userId, kind: kind === "image-archive" ? "image_archive" : "source_archive", sha256, size, path: file, references } });
    return { id, kind, sha256, size, references };
  } catch (e) {
    await rm(file, { force: true });
    throw e;
  }
}
