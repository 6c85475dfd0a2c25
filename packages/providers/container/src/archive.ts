/**
 * Images that arrive as a file (an uploaded `docker save` / `podman save`
 * archive, OCI or docker-archive format): loaded into the project's podman
 * storage, since no registry can be pulled from here.
 *
 * Such an archive is the submitter's, never sfbench's own build: it is neither
 * saved into nor loaded from the machine's image store (image-store.ts), which
 * hands an image to any clone on the strength of its key alone. It is read
 * before it is loaded (core's image-archive.ts, the portal's reader): an
 * archive that names one of sfbench's own images (a base stand-in, a bundled
 * target's build) is refused, since loading it would replace that image for
 * every later build and run; so is one that names an image outside its
 * system's namespace, which could move another team's name.
 */
import { existsSync } from "node:fs";
import { TargetError } from "@sfbench/catalogue";
import {
  checkImageArchive,
  namespaceProblem,
  NotAnImageTar,
  outsideSystemNamespace,
  readImageArchive,
  reservedProblem,
  reservedReference,
} from "@sfbench/core/image-archive";
import { imageExists } from "./bases.ts";
import { ensurePodman, podman } from "./podman.ts";

const LOAD_TIMEOUT_MS = 600_000;

/**
 * Loads an image archive of the system `system` (its target.json `name`);
 * resolves with the references it holds (its tags, or its image id when
 * untagged). Every name in it must be in that system's namespace.
 */
export async function loadImageArchive(file: string, system: string, onProgress?: (m: string) => void): Promise<string[]> {
  if (!existsSync(file)) throw new TargetError(`${file}: no such image archive`);
  let read;
  try {
    read = await readImageArchive(file);
  } catch (e) {
    if (e instanceof NotAnImageTar) throw new TargetError(`image archive ${file}: ${e.message}`);
    throw e;
  }
  const check = checkImageArchive(read.entries, read.kept);
  if (!check.ok) throw new TargetError(`image archive ${file}: ${check.problem}`);
  const reserved = reservedReference(check.references);
  if (reserved) throw new TargetError(`image archive ${file}: ${reservedProblem(reserved)}`);
  const outside = outsideSystemNamespace(check.references, system);
  if (outside) throw new TargetError(`image archive ${file}: ${namespaceProblem(outside, system)}`);
  await ensurePodman(onProgress);
  onProgress?.(`loading ${file} (podman load)`);
  const { stdout } = await podman(["load", "--quiet", "--input", file], { timeoutMs: LOAD_TIMEOUT_MS });
  const refs = [...stdout.matchAll(/^Loaded image(?:\(s\))?:\s*(.+)$/gm)].flatMap((m) => m[1]!.split(",").map((r) => r.trim())).filter(Boolean);
  if (!refs.length) throw new TargetError(`${file}: podman load named no image (${stdout.trim() || "no output"})`);
  return refs;
}

/**
 * Removes the names `loadImageArchive` loaded once their run is over: a
 * team's image stays in the storage only while a run of it does (the next
 * run loads its archive again), so uploads cannot fill the machine's disk
 * with images. An image that keeps another name (sfbench's own build of the
 * same layers) or a container stays; a name already gone is fine.
 */
export async function unloadImageArchive(references: readonly string[]): Promise<void> {
  for (const ref of references) await podman(["rmi", "--ignore", ref]).catch(() => undefined);
}

/** Throws a TargetError saying how to get the image when `ref` is not in the project's podman storage. */
export async function requireImage(ref: string): Promise<void> {
  await ensurePodman();
  if (!(await imageExists(ref))) {
    throw new TargetError(
      `image ${ref} is not in sfbench's podman storage (no registry is reachable here): build a bundled target's with \`sfbench image build <name>\`, or load an archive (loadImageArchive)`,
    );
  }
}

/** The ID of an image in the project's storage: what a run starts, so that a name loaded again meanwhile cannot change it. */
export async function imageId(ref: string): Promise<string> {
  const id = (await podman(["image", "inspect", "--format", "{{.Id}}", ref])).stdout.trim();
  if (!/^[0-9a-f]{64}$/.test(id)) throw new TargetError(`image ${ref} has no ID podman can give (${JSON.stringify(id)})`);
  return id;
}
