/**
 * What an image archive names: `podman save` / `docker save` write either a
 * docker-archive (manifest.json with RepoTags) or an oci-archive (oci-layout
 * and index.json with ref.name annotations). Read from the tar's headers and
 * those two files only; no podman needed.
 */
import { findImageReference } from "@sfbench/core/image-ref";
import { z } from "zod";
import type { TarEntry } from "./tar.ts";

const DockerManifest = z.array(z.object({ Config: z.string(), RepoTags: z.array(z.string()).nullish(), Layers: z.array(z.string()) })).min(1);
const OciIndex = z.object({
  manifests: z.array(z.object({ digest: z.string(), annotations: z.record(z.string(), z.string()).optional() })).min(1),
});
const REF_ANNOTATIONS = ["io.containerd.image.name", "org.opencontainers.image.ref.name"];

export const IMAGE_METADATA = new Set(["manifest.json", "index.json", "oci-layout"]);

export type ImageArchiveCheck = { ok: true; format: "docker-archive" | "oci-archive"; references: string[] } | { ok: false; problem: string };

const json = (b: Buffer | undefined): unknown => {
  try {
    return b ? JSON.parse(b.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
};

export function checkImageArchive(entries: TarEntry[], kept: Map<string, Buffer>): ImageArchiveCheck {
  const names = new Set(entries.filter((e) => e.type === "file").map((e) => e.name));
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
