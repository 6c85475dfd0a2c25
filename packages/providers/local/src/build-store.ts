/**
 * The machine's store of finished target builds (paths.cache, outside the
 * clone): `<store>/build/<name>/<key>/` holds what a build left in
 * .sfbench/build/<name>/, stamp included, for the build key that produced it.
 * A fresh clone (CI starts from one, with empty Go and Maven caches) copies a
 * build from here instead of spending minutes compiling daprd or resolving
 * Maven dependencies again; it only reuses a build whose inputs' digest is
 * the one its own inputs give.
 *
 * An entry appears by rename of a complete copy, so a directory named by a key
 * is always whole. Only a few keys per target are kept, the least recently
 * used go first.
 */
import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The stamp a finished build leaves in its directory (build.ts writes it last). */
export const STAMP = ".sfbench-build.json";

export interface Stamp {
  key: string;
  builtAt?: string;
  /** the store entry it was copied from, when it was not built here */
  reusedFrom?: string;
}

/** Keys kept per target: the current build and a couple of recent branches' ones. */
export const KEEP = 3;

/** Leftovers of a publisher that died mid-copy are removed after this long. */
const ABANDONED_MS = 60 * 60_000;

const targetDir = (store: string, name: string) => join(store, "build", name);

async function readStamp(dir: string): Promise<Stamp | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, STAMP), "utf8")) as Stamp;
  } catch {
    return undefined;
  }
}

/** A complete build of `name` for `key` in the store, if it holds one. */
export async function storedBuild(store: string, name: string, key: string): Promise<{ dir: string; stamp: Stamp } | undefined> {
  const dir = join(targetDir(store, name), key);
  const stamp = await readStamp(dir);
  return stamp?.key === key ? { dir, stamp } : undefined;
}

/** cp -a: modes (exec bits), timestamps and symlinks as they are. */
const copyTree = (from: string, to: string, filter?: (source: string) => boolean) =>
  cp(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false, ...(filter ? { filter } : {}) });

/**
 * Copies a stored build into `out` (an empty directory) without its stamp:
 * the caller writes the stamp once the copy is whole. Marks the entry as used,
 * so pruning keeps it.
 */
export async function copyStored(entry: string, out: string): Promise<void> {
  await copyTree(entry, out, (source) => source !== join(entry, STAMP));
  const now = new Date();
  await utimes(entry, now, now).catch(() => undefined); // a read-only store still serves
}

/**
 * Publishes the finished build in `out` (stamp included) as `<store>/build/<name>/<key>/`:
 * copied into a temporary directory of the store, then renamed into place. A
 * publisher that loses the rename to another one (two clones built the same
 * key) drops its copy. `replace` (a forced build) swaps out an entry already there.
 * Throws when the store cannot be written; the caller only warns.
 */
export async function publishBuild(store: string, name: string, key: string, out: string, opts: { replace?: boolean } = {}): Promise<void> {
  const parent = targetDir(store, name);
  await mkdir(parent, { recursive: true });
  const tmp = await mkdtemp(join(parent, ".tmp-"));
  try {
    await copyTree(out, tmp);
    await chmod(tmp, (await stat(out)).mode & 0o7777); // mkdtemp's 0700 is not the build's
    const entry = join(parent, key);
    if (opts.replace) await discard(entry);
    try {
      await rename(tmp, entry);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await prune(parent, key);
}

/** Moves a directory (or file) out of its name first (atomic), so nobody sees it half removed. */
export async function discard(dir: string): Promise<void> {
  const aside = join(dirname(dir), `.old-${process.pid}-${Date.now()}`);
  try {
    await rename(dir, aside);
  } catch {
    return; // not there, or another process moved it first
  }
  await rm(aside, { recursive: true, force: true });
}

/**
 * Keeps the KEEP most recently used entries of `parent` (`keep` always among
 * them) and drops abandoned copies (names starting with a dot). provider-container's
 * image store prunes its archives with it too.
 */
export async function prune(parent: string, keep: string): Promise<void> {
  const entries = await Promise.all(
    (await readdir(parent)).map(async (name) => ({ name, mtime: (await stat(join(parent, name)).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  const now = Date.now();
  const keys = entries.filter((e) => !e.name.startsWith(".")).sort((a, b) => b.mtime - a.mtime);
  const old = [keep, ...keys.map((e) => e.name).filter((n) => n !== keep)].slice(KEEP);
  const abandoned = entries.filter((e) => e.name.startsWith(".") && now - e.mtime > ABANDONED_MS).map((e) => e.name);
  for (const name of old) await discard(join(parent, name));
  for (const name of abandoned) await rm(join(parent, name), { recursive: true, force: true });
}
