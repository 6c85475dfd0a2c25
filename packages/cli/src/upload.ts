/**
 * Files sent to the portal next to a submission: the image archive as given,
 * and the source archive packed here from the files the manifest's loc globs
 * select (what the portal counts the lines of code from). Streamed from disk
 * (POST /api/uploads/<kind>, the file as the body), never read whole.
 */
import { execFile } from "node:child_process";
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import type { TargetManifest } from "@sfbench/core";
import { locFiles } from "@sfbench/provider-local/loc";
import { ApiError, badTokenError, noTokenError, parsePortalJson, type Remote } from "./api.ts";
import { UsageError } from "./args.ts";

export type UploadKind = "image-archive" | "source-archive";

export interface Uploaded {
  id: string;
  sha256: string;
  size: number;
  references: string[];
}

export async function upload(r: Remote, kind: UploadKind, file: string): Promise<Uploaded> {
  const size = statSync(file).size;
  let res: Response;
  try {
    res = await fetch(new URL(`/api/uploads/${kind}`, r.server), {
      method: "POST",
      headers: { ...(r.token ? { authorization: `Bearer ${r.token}` } : {}), "content-type": "application/x-tar", "content-length": String(size) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>,
      duplex: "half",
    } as RequestInit);
  } catch (e) {
    throw new ApiError(`cannot reach ${r.server}: ${((e as Error).cause as Error | undefined)?.message ?? (e as Error).message}`, 0);
  }
  if (res.status === 401) throw r.token ? badTokenError(r) : noTokenError(r);
  const body = (await res
    .text()
    .then(parsePortalJson)
    .catch(() => undefined)) as (Uploaded & { error?: { message: string; field: string } }) | undefined;
  if (!body) throw new ApiError(`${r.server} answered ${res.status} without JSON to the ${kind} upload: is it an sfbench portal?`, res.status);
  if (!res.ok)
    throw new ApiError(
      body.error?.message ?? `the ${kind} upload failed with HTTP ${res.status}`,
      res.status,
      body.error ? { [body.error.field]: [body.error.message] } : null,
    );
  return body;
}

/** A tar.gz of the files the manifest's loc globs select, named relative to target.json's folder; `cleanup` removes it. */
export async function packSources(manifestFile: string, manifest: TargetManifest): Promise<{ file: string; files: number; cleanup: () => void }> {
  const dir = resolve(manifestFile, "..");
  const { app, gateway } = await locFiles(dir, manifest);
  const names = [...app, ...gateway].map((f) => relative(dir, f));
  if (!names.length)
    throw new UsageError(
      `sfbench submit: the loc globs of ${manifestFile} select no file (app: ${manifest.loc.app.join(", ")}); sfbench counts the lines of code from them`,
    );
  const scratch = mkdtempSync(join(tmpdir(), "sfbench-submit-"));
  const list = join(scratch, "files.txt");
  const file = join(scratch, "source.tar.gz");
  writeFileSync(list, names.join("\n") + "\n");
  try {
    await promisify(execFile)("tar", ["-czf", file, "-C", dir, "-T", list]);
  } catch (e) {
    rmSync(scratch, { recursive: true, force: true });
    const err = e as NodeJS.ErrnoException;
    throw new Error(err.code === "ENOENT" ? "packing the source files needs tar: install it" : `tar failed: ${err.message}`);
  }
  return { file, files: names.length, cleanup: () => rmSync(scratch, { recursive: true, force: true }) };
}
