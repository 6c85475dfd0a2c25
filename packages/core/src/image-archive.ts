/**
 * What an image archive names: `podman save` / `docker save` write either a
 * docker-archive (manifest.json with RepoTags) or an oci-archive (oci-layout
 * and index.json with ref.name annotations). Read with node-tar, the parser
 * that reads source archives too, from the tar's headers and those two files
 * only; no podman needed. The portal reads an upload with it, and the worker
 * reads the archive again before `podman load`, whatever the portal let in.
 */
import { createReadStream } from "node:fs";
import { findImageReference, normalizeImageReference } from "./image-ref.ts";
import { Parser, type ReadEntry } from "tar";
import { z } from "zod";

export interface TarEntry {
  /** without a leading "./" */
  name: string;
  /** node-tar's: "File", "Directory", "SymbolicLink", ... */
  type: string;
}

const DockerManifest = z.array(z.object({ Config: z.string(), RepoTags: z.array(z.string()).nullish(), Layers: z.array(z.string()) })).min(1);
const OciIndex = z.object({
  manifests: z.array(z.object({ digest: z.string(), annotations: z.record(z.string(), z.string()).optional() })).min(1),
});
const REF_ANNOTATIONS = ["io.containerd.image.name", "org.opencontainers.image.ref.name"];

export const IMAGE_METADATA = new Set(["manifest.json", "index.json", "oci-layout"]);
/** largest metadata file read into memory; podman's are a few KiB */
const MAX_METADATA_BYTES = 1 << 20;

export class NotAnImageTar extends Error {}

const isFile = (type: string) => type === "File" || type === "OldFile" || type === "ContiguousFile";

/** Every entry's name and type, and the content of the metadata files at the root; throws NotAnImageTar when node-tar cannot read it. */
export function readImageArchive(file: string): Promise<{ entries: TarEntry[]; kept: Map<string, Buffer> }> {
  return new Promise((resolve, reject) => {
    const entries: TarEntry[] = [];
    const kept = new Map<string, Buffer>();
    const input = createReadStream(file);
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      input.destroy();
      reject(e instanceof NotAnImageTar ? e : new NotAnImageTar(`not a tar archive node-tar can read (${e.message})`));
    };
    const parser = new Parser({
      strict: true,
      onReadEntry: (entry: ReadEntry) => {
        const name = entry.path.replace(/^\.\//, "");
        entries.push({ name, type: entry.type });
        if (!isFile(entry.type) || !IMAGE_METADATA.has(name)) return entry.resume();
        if (entry.size > MAX_METADATA_BYTES)
          return fail(new NotAnImageTar(`${name} is ${entry.size} bytes, more than the ${MAX_METADATA_BYTES} read from an archive's metadata`));
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () => kept.set(name, Buffer.concat(chunks)));
      },
    });
    input.on("error", fail);
    parser.on("error", fail);
    parser.on("close", () => {
      if (settled) return;
      settled = true;
      resolve({ entries, kept });
    });
    input.pipe(parser);
  });
}

export type ImageArchiveCheck = { ok: true; format: "docker-archive" | "oci-archive"; references: string[] } | { ok: false; problem: string };

const json = (b: Buffer | undefined): unknown => {
  try {
    return b ? JSON.parse(b.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
};

export function checkImageArchive(entries: TarEntry[], kept: Map<string, Buffer>): ImageArchiveCheck {
  const names = new Set(entries.filter((e) => isFile(e.type)).map((e) => e.name));
  if (kept.has("manifest.json")) {
    const parsed = DockerManifest.safeParse(json(kept.get("manifest.json")));
    if (!parsed.success) return { ok: false, problem: "its manifest.json is not a docker-archive manifest ([{Config, RepoTags, Layers}])" };
    const missing = parsed.data.flatMap((m) => [m.Config, ...m.Layers]).filter((f) => !names.has(f));
    if (missing.length) return { ok: false, problem: `its manifest.json names files the archive does not hold: ${missing.slice(0, 3).join(", ")}` };
    return { ok: true, format: "docker-archive", references: parsed.data.flatMap((m) => m.RepoTags ?? []) };
  }
  if (kept.has("index.json") && names.has("oci-layout")) {
    const parsed = OciIndex.safeParse(json(kept.get("index.json")));
    if (!parsed.success) return { ok: false, problem: "its index.json is not an OCI image index ({manifests: [{digest, annotations}]})" };
    const missing = parsed.data.manifests.map((m) => `blobs/${m.digest.replace(":", "/")}`).filter((f) => !names.has(f));
    if (missing.length) return { ok: false, problem: `its index.json names blobs the archive does not hold: ${missing.slice(0, 3).join(", ")}` };
    const references = parsed.data.manifests.flatMap((m) => REF_ANNOTATIONS.map((a) => m.annotations?.[a]).filter((r): r is string => Boolean(r)));
    return { ok: true, format: "oci-archive", references: [...new Set(references)] };
  }
  return {
    ok: false,
    problem:
      "it is a tar but not an image archive: neither manifest.json (docker-archive) nor index.json with oci-layout (oci-archive) at its root; write one with `podman save -o image.tar <image>`",
  };
}

export const namesImage = (references: string[], image: string) => findImageReference(references, image) !== undefined;

/**
 * Names sfbench keeps for its own builds: the base stand-ins every image is
 * built on and the bundled targets' images. An archive that named one would,
 * once loaded, replace what sfbench builds and runs for everybody.
 */
export const RESERVED_IMAGE_NAMESPACES = ["sfbench/", "sfbench-base/"] as const;

/** The first of `references` in a namespace sfbench keeps for itself (podman's `localhost/` or none), if any. */
export function reservedReference(references: readonly string[]): string | undefined {
  return references.find((r) => RESERVED_IMAGE_NAMESPACES.some((ns) => normalizeImageReference(r).startsWith(ns)));
}

/** Why an archive naming `reference` is refused, naming the rule. */
export const reservedProblem = (reference: string) =>
  `it names ${reference}, in localhost/${RESERVED_IMAGE_NAMESPACES.join(" or localhost/")}, which sfbench keeps for its own builds; tag the image under a name of your own (podman tag) and save it again`;

/** The repository of a reference without its tag or digest, normalised ("localhost/x/y:1" is "x/y"). */
const repositoryOf = (reference: string) => {
  const r = normalizeImageReference(reference);
  const at = r.indexOf("@");
  if (at >= 0) return r.slice(0, at);
  const colon = r.lastIndexOf(":");
  return colon > r.lastIndexOf("/") ? r.slice(0, colon) : r;
};

/**
 * Whether `reference` is in the namespace of the system `system`: its
 * repository is the system's name or under it (`x`, `x/gateway`), on
 * podman's localhost or without a registry. A system's name belongs to one
 * account (the portal refuses another's submission under it), so an archive
 * of one team's system can never carry a name another team's runs load.
 */
export function inSystemNamespace(reference: string, system: string): boolean {
  const repository = repositoryOf(reference);
  return repository === system || repository.startsWith(`${system}/`);
}

/** The first of `references` outside the system's namespace, if any. */
export const outsideSystemNamespace = (references: readonly string[], system: string) => references.find((r) => !inSystemNamespace(r, system));

/** Why an archive of `system` naming `reference` is refused, naming the rule. */
export const namespaceProblem = (reference: string, system: string) =>
  `it names ${reference}, outside the namespace of the system "${system}": an image archive of "${system}" may only name localhost/${system}:<tag> or localhost/${system}/<image>:<tag>, so that no archive moves a name another system's runs load; tag the image so (podman tag) and save it again`;
