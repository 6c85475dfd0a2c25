/**
 * Images that arrive as a file (an uploaded `docker save` / `podman save`
 * archive, OCI or docker-archive format): loaded into the project's podman
 * storage, since no registry can be pulled from here.
 *
 * Such an archive is the submitter's, never sfbench's own build: it is neither
 * saved into nor loaded from the machine's image store (image-store.ts), which
 * hands an image to any clone on the strength of its key alone.
 */
import { existsSync } from "node:fs";
import { TargetError } from "@sfbench/catalogue";
import { imageExists } from "./bases.ts";
import { ensurePodman, podman } from "./podman.ts";

const LOAD_TIMEOUT_MS = 600_000;

/** Loads an image archive; resolves with the references it holds (its tags, or its image id when untagged). */
export async function loadImageArchive(file: string, onProgress?: (m: string) => void): Promise<string[]> {
  if (!existsSync(file)) throw new TargetError(`${file}: no such image archive`);
  await ensurePodman(onProgress);
  onProgress?.(`loading ${file} (podman load)`);
  const { stdout } = await podman(["load", "--quiet", "--input", file], { timeoutMs: LOAD_TIMEOUT_MS });
  const refs = [...stdout.matchAll(/^Loaded image(?:\(s\))?:\s*(.+)$/gm)].flatMap((m) => m[1]!.split(",").map((r) => r.trim())).filter(Boolean);
  if (!refs.length) throw new TargetError(`${file}: podman load named no image (${stdout.trim() || "no output"})`);
  return refs;
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
