import { link, mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { paths } from "./env.ts";
import { isAlive } from "./process.ts";

const POLL_MS = 100;
const EMPTY_LOCK_GRACE_MS = 10_000;

/**
 * Runs `fn` while holding `<home>/locks/<name>.lock`, so that concurrent up() calls
 * (several test files, several terminals) never start the same server twice.
 * The lock file holds the owner's pid; a lock whose owner died is taken over.
 */
export async function withLock<T>(name: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const file = path.join(paths.home, "locks", `${name}.lock`);
  await mkdir(path.dirname(file), { recursive: true });
  const deadline = performance.now() + timeoutMs;
  while (!(await tryAcquire(file))) {
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${file} (held by pid ${await ownerOf(file)})`);
    }
    await sleep(POLL_MS);
  }
  try {
    return await fn();
  } finally {
    await rm(file, { force: true });
  }
}

async function tryAcquire(file: string): Promise<boolean> {
  try {
    const handle = await open(file, "wx");
    await handle.writeFile(String(process.pid));
    await handle.close();
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  await breakIfStale(file);
  return false;
}

async function ownerOf(file: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(file, "utf8").catch(() => ""), 10);
  return Number.isInteger(pid) ? pid : undefined;
}

/** Stale: its owner is dead, or it stayed empty (owner died between create and write) for a while. */
async function isStale(file: string): Promise<boolean> {
  const owner = await ownerOf(file);
  if (owner !== undefined) return !isAlive(owner);
  const info = await stat(file).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs > EMPTY_LOCK_GRACE_MS;
}

/**
 * Removes the lock if its owner is dead. The file is first renamed away (atomic, so only one
 * waiter wins) and checked again: if it turns out to be a fresh lock someone just took, it is
 * linked back (link fails rather than overwrite when yet another waiter got in meanwhile).
 */
async function breakIfStale(file: string): Promise<void> {
  if (!(await isStale(file))) return;
  const aside = `${file}.${process.pid}.${Date.now()}`;
  try {
    await rename(file, aside);
  } catch {
    return; // another waiter moved it first
  }
  if (!(await isStale(aside))) await link(aside, file).catch(() => undefined);
  await rm(aside, { force: true });
}
