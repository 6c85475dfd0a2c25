/**
 * What bounds the disk of a run's own servers (PostgreSQL, Redis, Kafka).
 * They keep their data on the host's file system, not on the run's volume,
 * so that a durable commit costs what it costs a local target: an fdatasync
 * of 8 KiB through the run's loop device took 2.0-3.4x as long as on the
 * host's ext4 here (docs/measurements.md). An image can still make them
 * write without end (rows through SQL, values through Redis, records through
 * Kafka); this watch adds up, every second, what their directories hold on
 * disk, and past the run's quota it kills them, so that the run ends with the
 * reason and the host's disk keeps the rest. Between two looks a server can
 * write what the disk takes in one interval: the bound is the quota plus that.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** Bytes the files under `path` hold on disk (allocated blocks: a sparse file counts what it holds); 0 for what does not exist. */
export function diskBytes(path: string): number {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return 0; // gone meanwhile, or never made
  }
  let bytes = stat.blocks * 512;
  if (stat.isDirectory()) {
    let entries: string[] = [];
    try {
      entries = readdirSync(path);
    } catch {
      // removed while being read
    }
    for (const entry of entries) bytes += diskBytes(join(path, entry));
  }
  return bytes;
}

export interface ServerDiskWatch {
  stop(): void;
}

export interface ServerDiskWatchOptions {
  /** the servers' directories, read at every look (a server started later counts from then on) */
  dirs: () => string[];
  quotaMib: number;
  /** once, the first time the directories hold more than the quota */
  onOver: (usedMib: number) => void;
  /** whether the run is still there to watch; the watch ends by itself once it is not */
  running: () => boolean;
  intervalMs?: number;
}

/** Looks at the servers' disk every `intervalMs` (1 s) until stopped, the run is gone, or the quota is passed. */
export function watchServerDisk(opts: ServerDiskWatchOptions): ServerDiskWatch {
  const limit = opts.quotaMib * 2 ** 20;
  const timer = setInterval(() => {
    if (!opts.running()) return clearInterval(timer);
    const used = opts.dirs().reduce((sum, dir) => sum + diskBytes(dir), 0);
    if (used <= limit) return;
    clearInterval(timer);
    opts.onOver(Math.round(used / 2 ** 20));
  }, opts.intervalMs ?? 1_000);
  // the run's process ends when its work does, not when its watch would
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
