/**
 * A command that needs a shared server only while it runs (`sfbench run` and
 * `sfbench campaign` need Kafka for the spans of a tracing target) borrows
 * it: a server that is down is started, and the last borrower to give it back
 * stops it again, so a run leaves the machine as it found it. A server that
 * was up before (`sfbench services up`, the tests, the worker) stays up, and
 * so does one someone asks for with up() while it is borrowed.
 *
 * Each borrower is a file named by its pid under
 * `<home>/services/borrowed/<name>/`; one whose process died without giving
 * the server back no longer counts. `<name>.started` says a borrower started
 * the server, so that the last one to leave knows to stop it. The lock
 * `borrowed-<name>` makes "is anyone still using it?" and the stop one step.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { paths } from "./env.ts";
import { withLock } from "./lock.ts";
import { isAlive } from "./process.ts";
import type { Progress, Service } from "./types.ts";

// a Kafka start (first time: its jars) happens inside the lock
const LOCK_TIMEOUT_MS = 900_000;

export interface Borrowed {
  /** the service's name (its borrowers' folder and lock are named by it) */
  name: string;
  /** whether this borrow started the server (it was down) */
  started: boolean;
  /** Gives the server back; the last borrower stops a server a borrower started. Idempotent. */
  release(): Promise<void>;
}

const borrowersDir = (name: string) => path.join(paths.home, "services", "borrowed", name);
const startedMark = (name: string) => path.join(paths.home, "services", "borrowed", `${name}.started`);
const lockName = (name: string) => `borrowed-${name}`;

export async function borrowService(name: string, service: Service, progress: Progress): Promise<Borrowed> {
  const dir = borrowersDir(name);
  const me = path.join(dir, `${process.pid}-${randomUUID().slice(0, 8)}`);
  const started = await withLock(lockName(name), LOCK_TIMEOUT_MS, async () => {
    await mkdir(dir, { recursive: true });
    const running = (await service.status()).running;
    if (!running) {
      await service.up(progress);
      await writeFile(startedMark(name), String(process.pid));
    }
    await writeFile(me, String(process.pid));
    return !running;
  });
  let released = false;
  return {
    name,
    started,
    release: async () => {
      if (released) return;
      released = true;
      await withLock(lockName(name), LOCK_TIMEOUT_MS, async () => {
        await rm(me, { force: true });
        if ((await liveBorrowers(name)) > 0) return;
        if (!(await exists(startedMark(name)))) return;
        progress("stopping it: this command started it and nobody else uses it");
        await service.down();
        await rm(startedMark(name), { force: true });
      });
    },
  };
}

/** Makes a server stay up after its borrowers leave: what up() means. */
export async function keepService(name: string): Promise<void> {
  await withLock(lockName(name), LOCK_TIMEOUT_MS, () => rm(startedMark(name), { force: true }));
}

/** The borrowers whose process is alive; the files of dead ones are removed. */
export async function liveBorrowers(name: string): Promise<number> {
  const dir = borrowersDir(name);
  let live = 0;
  for (const file of await readdir(dir).catch(() => [] as string[])) {
    const pid = Number.parseInt(file, 10);
    if (Number.isInteger(pid) && isAlive(pid)) live++;
    else await rm(path.join(dir, file), { force: true });
  }
  return live;
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined)) !== undefined;
}
