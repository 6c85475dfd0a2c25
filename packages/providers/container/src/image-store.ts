/**
 * The machine's store of finished images (paths.cache, outside the clone):
 * `<store>/images/<name>/<key>.tar`, a `podman save` (docker-archive: `podman
 * load` restores its tag and its image id) of an image sfbench built, for the
 * key that decided its build (a base's Node, Go or Java version, the Debian
 * mirror and suite, a target image's context digest). The project's podman
 * storage lives in the clone (.sfbench/podman), so a fresh clone (every CI
 * run) would otherwise debootstrap Debian and build every stand-in and target
 * image again; it loads them from here instead.
 *
 * Only sfbench's own builds are written or read here. An archive a team
 * uploads (apps/web, the worker's loadImageArchive) never is: its content is
 * theirs, and a stored entry is trusted by its key alone.
 *
 * An entry appears by rename of a complete file written beside it, and the
 * image loaded from it must carry the tag and the key's label, so a half
 * written or foreign archive is never used: a corrupt entry is removed and the
 * image built as before. An unwritable store only warns. Pruned as
 * provider-local's store of target builds is (its helpers): the KEEP most
 * recently used keys per name.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, utimes } from "node:fs/promises";
import { join } from "node:path";
import { paths } from "@sfbench/services";
// provider-local's store of target builds: the same pruning and discarding, not a copy of them
import { discard, prune } from "@sfbench/provider-local/build-store";
import { podman } from "./podman.ts";

const SAVE_TIMEOUT_MS = 900_000;

export interface StoredImage {
  /** the image's tag in the project's podman storage */
  ref: string;
  /** what decides its build: the same key gives the same image */
  key: string;
  /** the image label that records the key */
  label: string;
}

export interface StoreOptions {
  /** the machine's store (default paths.cache) */
  store?: string;
  onProgress?: (m: string) => void;
}

/** How `ensureStoredImage` got the image. */
export type Provenance = "current" | "loaded" | "built";

/** The store's directory of an image's archives: its tag without `localhost/`, as one path part. */
export const storeName = (ref: string) => ref.replace(/^localhost\//, "").replace(/[^A-Za-z0-9._-]+/g, "-");

/** A key as a file name: as it is when it reads as one ("v20.20.2", a hex digest), else its digest. */
const keyFile = (key: string) =>
  /^[A-Za-z0-9_+-][A-Za-z0-9._+-]{0,127}$/.test(key) ? `${key}.tar` : `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.tar`;

/** The archive of `image` in the store, whether or not it is there. */
export function storedArchive(image: Pick<StoredImage, "ref" | "key">, store: string = paths.cache): string {
  return join(store, "images", storeName(image.ref), keyFile(image.key));
}

/** The value of `label` on `ref`, undefined when the image is not in the project's storage. */
export async function imageLabel(ref: string, label: string): Promise<string | undefined> {
  try {
    return (await podman(["image", "inspect", "--format", `{{ index .Labels "${label}" }}`, ref])).stdout.trim();
  } catch {
    return undefined;
  }
}

const isCurrent = async (image: StoredImage) => (await imageLabel(image.ref, image.label)) === image.key;

/**
 * Loads `image` from the store when an archive of its key is there; true when
 * the project's storage then holds its tag with the key's label. An archive
 * that does not load, or loads something else, is removed (warned).
 */
export async function loadStoredImage(image: StoredImage, opts: StoreOptions = {}): Promise<boolean> {
  const file = storedArchive(image, opts.store);
  if (!existsSync(file)) return false;
  opts.onProgress?.(`loading ${image.ref} from the machine's store (${file})`);
  try {
    await podman(["load", "--quiet", "--input", file], { timeoutMs: SAVE_TIMEOUT_MS });
    if (!(await isCurrent(image))) throw new Error(`it holds no ${image.ref} labelled ${image.label}=${image.key}`);
  } catch (error) {
    opts.onProgress?.(`warning: removing ${file} from the machine's store, building ${image.ref} instead: ${(error as Error).message}`);
    await discard(file);
    return false;
  }
  const now = new Date();
  await utimes(file, now, now).catch(() => undefined); // used: pruning keeps it; a read-only store still serves
  return true;
}

/**
 * Saves `image` (current in the project's storage) into the store, unless an
 * archive of its key is there: written under a dot name beside it, then
 * renamed. Only warns when the store cannot be written.
 */
export async function saveStoredImage(image: StoredImage, opts: StoreOptions = {}): Promise<void> {
  const file = storedArchive(image, opts.store);
  if (existsSync(file)) return;
  const dir = join(file, "..");
  const tmp = join(dir, `.tmp-${process.pid}-${Date.now()}.tar`);
  try {
    await mkdir(dir, { recursive: true });
    await podman(["save", "--quiet", "--format", "docker-archive", "--output", tmp, image.ref], { timeoutMs: SAVE_TIMEOUT_MS });
    await rename(tmp, file);
    await prune(dir, keyFile(image.key));
  } catch (error) {
    opts.onProgress?.(`warning: could not keep ${image.ref} in the machine's store ${dir}: ${(error as Error).message}`);
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined); // a store that is not a directory fails even this
  }
}

/**
 * `image` in the project's storage: kept when it is there with its key's
 * label, else loaded from the store, else built by `build` (which must tag it
 * with the label) and saved into the store. An image that was already current
 * is saved too when the store lacks it, so a clone built before the store
 * existed fills it.
 */
export async function ensureStoredImage(image: StoredImage, build: () => Promise<void>, opts: StoreOptions = {}): Promise<Provenance> {
  if (await isCurrent(image)) {
    await saveStoredImage(image, opts);
    return "current";
  }
  if (await loadStoredImage(image, opts)) return "loaded";
  await build();
  if (!(await isCurrent(image))) throw new Error(`the build of ${image.ref} left no image labelled ${image.label}=${image.key}`);
  await saveStoredImage(image, opts);
  return "built";
}
