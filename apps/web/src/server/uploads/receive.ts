/**
 * An upload, streamed to a file under the data directory while its size is
 * counted and its sha256 computed (never held in memory whole), then checked
 * for what its kind must be and recorded as an unclaimed Upload of the user.
 * A submission claims it (claim.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { readSourceArchive, SIZE_RULES, SOURCE_ARCHIVE_LIMITS, SourceArchiveRefused } from "@sfbench/core/source-archive";
import type { Db } from "@sfbench/db";
import { Parser } from "tar";
import { checkImageArchive, NotAnImageTar, readImageArchive, reservedProblem, reservedReference } from "@sfbench/core/image-archive";
import { formatBytes, type UploadKindName, type UploadSettings } from "./limits.ts";

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

/**
 * A source archive read as the worker will unpack it: node-tar, the same rules
 * (`readSourceArchive`). A cap reached is 413, an entry a source archive may
 * not hold 422, a file that is no tar 400; each message names the rule.
 */
async function checkSourceArchive(file: string, settings: UploadSettings): Promise<void> {
  const kind = "source-archive";
  try {
    await readSourceArchive(
      file,
      (options) => new Parser({ ...options, onReadEntry: (entry) => entry.resume() }),
      settings.sourceArchiveLimits ?? SOURCE_ARCHIVE_LIMITS,
    );
  } catch (e) {
    if (!(e instanceof SourceArchiveRefused)) throw e;
    if (e.rule === "unreadable")
      throw new UploadRefused(400, kind, `${kind}: not a tar archive node-tar can read (${e.problem}); expected a tar or tar.gz of the source files`);
    throw new UploadRefused(SIZE_RULES.has(e.rule) ? 413 : 422, kind, `${kind}: ${e.problem}`);
  }
}

async function checkImage(file: string): Promise<string[]> {
  const kind = "image-archive";
  let read;
  try {
    read = await readImageArchive(file);
  } catch (e) {
    if (!(e instanceof NotAnImageTar)) throw e;
    throw new UploadRefused(400, kind, `${kind}: ${e.message}; expected a tar from \`podman save\` or \`docker save\` (docker-archive or oci-archive)`);
  }
  const check = checkImageArchive(read.entries, read.kept);
  if (!check.ok) throw new UploadRefused(400, kind, `${kind}: ${check.problem}`);
  const reserved = reservedReference(check.references);
  if (reserved) throw new UploadRefused(422, kind, `${kind}: ${reservedProblem(reserved)}`);
  if (!check.references.length)
    throw new UploadRefused(400, kind, `${kind}: the archive names no image (no RepoTags / ref.name); save it by name: podman save -o image.tar <name>:<tag>`);
  return check.references;
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
    let references: string[] = [];
    if (kind === "image-archive") references = await checkImage(file);
    else await checkSourceArchive(file, settings);
    const sha256 = `sha256:${hash.digest("hex")}`;
    await db.upload.create({ data: { id, userId, kind: kind === "image-archive" ? "image_archive" : "source_archive", sha256, size, path: file, references } });
    return { id, kind, sha256, size, references };
  } catch (e) {
    await rm(file, { force: true });
    throw e;
  }
}
