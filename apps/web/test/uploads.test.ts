/**
 * Image and source archives: uploaded over HTTP (streamed to the data
 * directory, with a size limit), checked without podman, claimed by a
 * submission for its target version and never replaced. Real archives from
 * `podman save`, the real database.
 */
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uploadFile } from "../src/client/upload-file.ts";
import { handleUpload } from "../src/server/uploads/http.ts";
import { normalizeImageReference as normalizeReference } from "@sfbench/core/image-ref";
import { SOURCE_ARCHIVE_LIMITS } from "@sfbench/core/source-archive";
import { BAD_SOURCE_ARCHIVES, GOOD_SOURCE_ARCHIVE, writeSourceArchive } from "@sfbench/core/testing/source-archives";
import { checkImageArchive, readImageArchive } from "@sfbench/core/image-archive";
import type { UploadSettings } from "../src/server/uploads/limits.ts";
import { browser, caller, failure, fields, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { saveImage, type ImageArchives } from "./helpers/image-archive.ts";
import { submission } from "./helpers/submission.ts";

const KIB = 1024;
let t: TestDatabase;
let image: ImageArchives;
let other: ImageArchives;
let settings: UploadSettings;
let token: string;
let api: Awaited<ReturnType<typeof browser>>["api"];

beforeAll(async () => {
  t = await testDatabase();
  image = await saveImage("localhost/uploaded:0.1.0");
  other = await saveImage("localhost/uploaded:0.1.0", "another build\n");
  settings = { dataDir: mkdtempSync(join(tmpdir(), "sfbench-portal-data-")), maxBytes: { "image-archive": 256 * KIB, "source-archive": 64 * KIB } };
  const user = await browser(t.db, "uploader@example.com");
  ({ api } = await caller(t.db, { headers: { origin: ORIGIN, cookie: user.cookie }, uploads: settings }));
  token = (await user.api.tokens.create({ name: "cli" })).token;
});
afterAll(async () => {
  image?.cleanup();
  other?.cleanup();
  await t?.drop();
});

/** POST a file (streamed, as the CLI does) to /api/uploads/<kind>. */
async function upload(kind: string, file: string | Buffer, headers: Record<string, string> = { authorization: `Bearer ${token}` }) {
  const body = typeof file === "string" ? (Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>) : new Blob([new Uint8Array(file)]).stream();
  const req = new Request(`${ORIGIN}/api/uploads/${kind}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
  const res = await handleUpload(req, kind, { db: t.db, settings });
  return { status: res.status, body: (await res.json()) as { id: string; references: string[]; error?: { message: string; field: string } } };
}

const tarOf = (files: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-tar-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return execFileSync("tar", ["-cf", "-", "-C", dir, ...Object.keys(files)]);
};

describe("reading an image archive without podman", () => {
  it.each(["docker", "oci"] as const)("finds the image reference of a %s archive from podman save", async (format) => {
    const { entries, kept } = await readImageArchive(image[format]);
    expect(checkImageArchive(entries, kept)).toEqual({ ok: true, format: `${format}-archive`, references: ["localhost/uploaded:0.1.0"] });
  });

  it("treats x, x:latest, docker.io/library/x:latest and localhost/x:latest as one image", () => {
    expect(new Set(["x", "x:latest", "docker.io/library/x:latest", "localhost/x:latest"].map(normalizeReference))).toEqual(new Set(["x:latest"]));
    expect(normalizeReference("registry:5000/team/x")).toBe("registry:5000/team/x:latest");
  });
});

describe("POST /api/uploads/<kind>", () => {
  it("stores an image archive under the data directory and answers with the image it names", async () => {
    const r = await upload("image-archive", image.docker);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.references).toEqual(["localhost/uploaded:0.1.0"]);
    const row = await t.db.upload.findUniqueOrThrow({ where: { id: r.body.id } });
    expect(row).toMatchObject({ kind: "image_archive", targetVersionId: null });
    expect(readFileSync(row.path)).toEqual(readFileSync(image.docker));
  });

  it("refuses past the size limit with 413 naming the limit, and keeps nothing", async () => {
    const big = Buffer.alloc(300 * KIB);
    const r = await upload("image-archive", big);
    expect(r.status).toBe(413);
    expect(r.body.error).toEqual({ field: "image-archive", message: "image-archive: more than the portal's limit of 256 KiB (SFBENCH_IMAGE_ARCHIVE_MAX_MIB)" });
    const declared = await upload("image-archive", big, { authorization: `Bearer ${token}`, "content-length": String(big.length) });
    expect(declared.body.error?.message).toBe("image-archive: 300 KiB, more than the portal's limit of 256 KiB (SFBENCH_IMAGE_ARCHIVE_MAX_MIB)");
    const before = readdirSync(join(settings.dataDir, "uploads")).length;
    expect(await t.db.upload.count({ where: { size: { gt: 256 * KIB } } })).toBe(0);
    expect(readdirSync(join(settings.dataDir, "uploads"))).toHaveLength(before);
  });

  it.each([
    [
      "not a tar",
      Buffer.from("just some text, not an archive".repeat(40)),
      /^image-archive: not a tar archive .*; expected a tar from `podman save` or `docker save` \(docker-archive or oci-archive\)$/,
    ],
    [
      "a tar that is not an image",
      tarOf({ "README.md": "# hi\n" }),
      /^image-archive: it is a tar but not an image archive: neither manifest\.json \(docker-archive\) nor index\.json/,
    ],
    [
      "a manifest.json naming missing layers",
      tarOf({ "manifest.json": JSON.stringify([{ Config: "c.json", RepoTags: ["x:1"], Layers: ["l.tar"] }]) }),
      /its manifest\.json names files the archive does not hold: c\.json, l\.tar/,
    ],
  ])("refuses %s with a 400 naming the field", async (_what, body, message) => {
    const r = await upload("image-archive", body);
    expect(r.status).toBe(400);
    expect(r.body.error!.field).toBe("image-archive");
    expect(r.body.error!.message).toMatch(message);
  });

  it.each([["localhost/sfbench-base/node:20-slim"], ["sfbench/node-postgres:0.2.0"]])(
    "refuses an image archive naming %s, a name sfbench keeps for its own builds, with a 422 naming the rule",
    async (reference) => {
      const body = tarOf({ "manifest.json": JSON.stringify([{ Config: "c.json", RepoTags: [reference], Layers: ["l.tar"] }]), "c.json": "{}", "l.tar": "" });
      const r = await upload("image-archive", body);
      expect(r.status).toBe(422);
      expect(r.body.error).toEqual({
        field: "image-archive",
        message: `image-archive: it names ${reference}, in localhost/sfbench/ or localhost/sfbench-base/, which sfbench keeps for its own builds; tag the image under a name of your own (podman tag) and save it again`,
      });
    },
  );

  it("stores a source archive of files and folders, gzip or not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-src-"));
    for (const gz of [false, true]) {
      const r = await upload("source-archive", readFileSync(writeSourceArchive(dir, `good-${gz}`, GOOD_SOURCE_ARCHIVE, gz)));
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
  });

  // the table the worker's unpack test refuses too: one parser (node-tar) and one set of rules in both places
  it.each(BAD_SOURCE_ARCHIVES.map((f) => [f.what, f] as const))("refuses a source archive with %s, naming the rule, never a 500", async (_what, fixture) => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-src-"));
    const body = readFileSync(writeSourceArchive(dir, fixture.what, fixture.members, fixture.gz));
    const lowered = { ...settings, sourceArchiveLimits: { ...SOURCE_ARCHIVE_LIMITS, ...fixture.limits } };
    const req = new Request(`${ORIGIN}/api/uploads/source-archive`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body });
    const res = await handleUpload(req, "source-archive", { db: t.db, settings: lowered });
    const { error } = (await res.json()) as { error: { message: string; field: string } };
    expect(res.status, error.message).toBe(["entries", "bytes", "ratio", "meta"].includes(fixture.rule) ? 413 : 422);
    expect(error.field).toBe("source-archive");
    expect(error.message.replace(/^source-archive: /, "")).toMatch(fixture.problem);
  });

  it("refuses a source archive that is not a tar with a 400 naming what it expected", async () => {
    const r = await upload("source-archive", Buffer.from("plain text, not a tar".repeat(40)));
    expect(r.status).toBe(400);
    expect(r.body.error!.message).toMatch(/^source-archive: not a tar archive node-tar can read \(.+\); expected a tar or tar\.gz of the source files$/);
  });

  it("needs an account, and knows only its two kinds", async () => {
    expect((await upload("image-archive", image.docker, {})).status).toBe(401);
    const r = await upload("video", image.docker);
    expect(r.status).toBe(404);
    expect(r.body.error!.message).toBe('no upload kind "video"; allowed: image-archive, source-archive');
  });
});

describe("a submission with an image archive", () => {
  it("refuses an archive of another image, naming the field and both images", async () => {
    const { body } = await upload("image-archive", image.oci);
    const error = await failure(
      api.submissions.submit(submission("wrong-image", { image: "localhost/wrong-image:2.0.0", imageArchive: body.id })),
      "BAD_REQUEST",
    );
    expect(fields(error).imageArchive![0]).toBe(
      'the archive holds localhost/uploaded:0.1.0, not the manifest\'s image localhost/wrong-image:2.0.0; save that image (podman save -o image.tar localhost/wrong-image:2.0.0) or set target.json "image"',
    );
  });

  it("refuses an archive that names another system's image, naming the rule, and stores nothing for it", async () => {
    const { body } = await upload("image-archive", image.docker);
    const error = await failure(api.submissions.submit(submission("borrower", { image: "localhost/uploaded:0.1.0", imageArchive: body.id })), "BAD_REQUEST");
    expect(fields(error).imageArchive![0]).toBe(
      'it names localhost/uploaded:0.1.0, outside the namespace of the system "borrower": an image archive of "borrower" may only name localhost/borrower:<tag> or localhost/borrower/<image>:<tag>, so that no archive moves a name another system\'s runs load; tag the image so (podman tag) and save it again',
    );
    expect(await t.db.system.findUnique({ where: { slug: "borrower" } })).toBeNull();
    expect((await t.db.upload.findUniqueOrThrow({ where: { id: body.id } })).targetVersionId).toBeNull();
  });

  it("stores the archive by target version, keeps it on a resubmission and refuses a different one", async () => {
    const first = await upload("image-archive", image.docker);
    const { runId } = await api.submissions.submit(submission("uploaded", { image: "localhost/uploaded:0.1.0", imageArchive: first.body.id }));
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { targetVersion: { include: { uploads: true } } } });
    const [stored] = run.targetVersion.uploads;
    expect(stored!.path).toBe(join(settings.dataDir, "versions", run.targetVersionId, `image-archive-${stored!.sha256.slice(7)}.tar`));
    expect(readFileSync(stored!.path)).toEqual(readFileSync(image.docker));
    expect(existsSync(join(settings.dataDir, "uploads", `${first.body.id}.tar`))).toBe(false);

    const same = await upload("image-archive", image.docker);
    await api.submissions.submit(submission("uploaded", { image: "localhost/uploaded:0.1.0", imageArchive: same.body.id }));
    const changed = await upload("image-archive", other.docker);
    const error = await failure(
      api.submissions.submit(submission("uploaded", { image: "localhost/uploaded:0.1.0", imageArchive: changed.body.id })),
      "CONFLICT",
    );
    expect(fields(error).imageArchive![0]).toMatch(
      /^version 0\.1\.0 of "uploaded" already has its image-archive \(sha256:[0-9a-f]{12}…, \d{4}-\d\d-\d\d\); a changed image-archive needs a new version$/,
    );
    const uploads = await t.db.upload.findMany({ where: { targetVersionId: run.targetVersionId } });
    expect(uploads.map((u) => u.id)).toEqual([first.body.id]);
    expect(readFileSync(stored!.path)).toEqual(readFileSync(image.docker));
  });

  it("keeps a system's newest versions' image archives, and those with a run to come; an older one comes back with its version", async () => {
    const KEEP = 2;
    const keeper = await browser(t.db, "keeper@example.com");
    const { api: keeping } = await caller(t.db, { headers: { origin: ORIGIN, cookie: keeper.cookie }, uploads: { ...settings, keepImageArchives: KEEP } });
    const user = await t.db.user.findUniqueOrThrow({ where: { email: "keeper@example.com" } });
    const keeperToken = (await keeper.api.tokens.create({ name: "cli" })).token;
    // a build of its own per version, the same file each time it is sent
    const builds = new Map<string, Buffer>();
    const archiveOf = (version: string) => {
      if (!builds.has(version))
        builds.set(
          version,
          tarOf({
            "manifest.json": JSON.stringify([{ Config: "c.json", RepoTags: ["localhost/kept:1"], Layers: ["l.tar"] }]),
            "c.json": "{}",
            "l.tar": `build of ${version}\n`,
          }),
        );
      return builds.get(version)!;
    };
    const send = async (version: string, how: "register" | "submit") => {
      const { body } = await upload("image-archive", archiveOf(version), { authorization: `Bearer ${keeperToken}` });
      await keeping.submissions[how](submission("kept", { version, image: "localhost/kept:1", imageArchive: body.id }));
    };
    const archives = async () =>
      Object.fromEntries(
        (await t.db.upload.findMany({ where: { userId: user.id, kind: "image_archive" }, include: { targetVersion: true } })).map((u) => [
          u.targetVersion!.version,
          { pruned: u.prunedAt !== null, onDisk: existsSync(u.path) },
        ]),
      );
    const kept = { pruned: false, onDisk: true };
    const pruned = { pruned: true, onDisk: false };

    for (const v of ["0.1.0", "0.2.0", "0.3.0"]) await send(v, "register");
    expect(await archives()).toEqual({ "0.1.0": pruned, "0.2.0": kept, "0.3.0": kept });
    // the same archive again brings an old version's back, and its run keeps it while queued
    await send("0.1.0", "submit");
    expect(await archives()).toEqual({ "0.1.0": kept, "0.2.0": kept, "0.3.0": kept });
    await send("0.4.0", "register");
    expect(await archives()).toEqual({ "0.1.0": kept, "0.2.0": pruned, "0.3.0": kept, "0.4.0": kept });
  });

  it("keeps the LOC a version declared first, and never writes the counted LOC", async () => {
    const { runId } = await api.submissions.submit(submission("declares", { loc: JSON.stringify({ go: { app: 10, gateway: 2 } }) }));
    await api.submissions.submit(submission("declares", { loc: JSON.stringify({ go: { app: 1, gateway: 0 } }) }));
    const { targetVersion } = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { targetVersion: true } });
    expect(targetVersion.declaredLoc).toEqual({ go: { app: 10, gateway: 2 } });
    expect(targetVersion.loc).toBeNull();
  });
});

describe("the submit form's upload", () => {
  const viaHandler = (cookie: string) =>
    ((url: string, init: RequestInit) =>
      handleUpload(
        new Request(`${ORIGIN}${url}`, { ...init, headers: { ...(init.headers as Record<string, string>), cookie, origin: ORIGIN } }),
        url.split("/").pop()!,
        { db: t.db, settings },
      )) as typeof fetch;

  it("sends the file with the session cookie and answers the upload's id, or the refusal under its form field", async () => {
    const { cookie } = await browser(t.db, "form-uploader@example.com");
    const ok = await uploadFile("image-archive", new Blob([readFileSync(image.oci)]), viaHandler(cookie));
    expect(ok).toMatchObject({ ok: true });
    const refused = await uploadFile("image-archive", new Blob(["not a tar at all".repeat(64)]), viaHandler(cookie));
    expect(refused).toMatchObject({ ok: false, field: "imageArchive", message: expect.stringMatching(/^image-archive: not a tar archive/) });
  });
});

describe("unclaimed uploads", () => {
  it("are limited per user, and deleted once older than the limit's hours", async () => {
    const { token: own } = await (await browser(t.db, "hoarder@example.com")).api.tokens.create({ name: "cli" });
    const strict: UploadSettings = { ...settings, unclaimed: { max: 2, hours: 1 } };
    const send = async () => {
      const req = new Request(`${ORIGIN}/api/uploads/image-archive`, {
        method: "POST",
        headers: { authorization: `Bearer ${own}` },
        body: readFileSync(image.docker),
      });
      const res = await handleUpload(req, "image-archive", { db: t.db, settings: strict });
      return { status: res.status, body: (await res.json()) as { id: string; error?: { message: string } } };
    };
    const first = await send();
    expect((await send()).status).toBe(201);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.body.error!.message).toBe(
      "image-archive: you hold 2 uploads no submission has named (at most 2, SFBENCH_UNCLAIMED_UPLOADS); submit with them, or wait until they are deleted 1 hours after upload",
    );
    const row = await t.db.upload.update({ where: { id: first.body.id }, data: { createdAt: new Date(Date.now() - 2 * 3600_000) } });
    expect((await send()).status).toBe(201);
    expect(await t.db.upload.findUnique({ where: { id: first.body.id } })).toBeNull();
    expect(existsSync(row.path)).toBe(false);
  });
});
