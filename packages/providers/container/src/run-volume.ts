/**
 * A run's disk: the nodes' /data volumes live on a file system of the run's
 * own, an ext4 image of a fixed size mounted through a loop device, so a
 * submitted image that writes without end meets "no space left on device"
 * at the run's quota instead of filling the machine that holds the portal's
 * database and every other run. The image file is sparse: a run pays for what
 * it wrote, not for its quota. Mounted nodev, nosuid: nothing on it is a
 * device or gains privileges.
 *
 * Why a loop device: podman's own `--storage-opt size=` needs XFS project
 * quotas, and this host's file system is ext4 without them. The run's
 * PostgreSQL, Redis and Kafka keep their data on the host's file system, as
 * a local target's do, so a durable commit costs the same in both; a watch
 * holds them to the same quota instead (server-disk.ts).
 */
import { existsSync, mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { TargetError } from "@sfbench/catalogue";
import { mountedAt } from "@sfbench/services";
import { hostCommand } from "./host-command.ts";

/** The quota when SFBENCH_RUN_DISK_MIB does not say: room for any bundled target's state at the thesis profile. */
export const DEFAULT_RUN_DISK_MIB = 4096;

/** The quota of a run's volume, in MiB (SFBENCH_RUN_DISK_MIB, 64..1048576). */
export function runDiskMib(value = process.env.SFBENCH_RUN_DISK_MIB): number {
  if (value === undefined || value === "") return DEFAULT_RUN_DISK_MIB;
  const mib = Number(value);
  if (!Number.isInteger(mib) || mib < 64 || mib > 1_048_576)
    throw new TargetError(`SFBENCH_RUN_DISK_MIB: ${JSON.stringify(value)} is not a size in MiB (allowed: an integer from 64 to 1048576)`);
  return mib;
}

const run = (command: string, args: string[]) =>
  hostCommand(command, args, { timeoutMs: 120_000, neededFor: "a run's disk cannot be made without it", fail: (message) => new TargetError(message) });

/** Whether `dir` is a mount point now (services' reading of /proc/self/mountinfo, on its real path). */
export async function isMounted(dir: string): Promise<boolean> {
  return mountedAt(realpathSync(dir));
}

/**
 * Makes the run's file system (`<dir>/disk.img`, `mib` MiB, sparse) and
 * mounts it on `<dir>/volume`, which it returns. Root only.
 */
export async function mountRunVolume(dir: string, mib: number): Promise<string> {
  if (process.getuid?.() !== 0) throw new TargetError("a run's disk quota needs root (it mounts a file system of the run's own)");
  const image = join(dir, "disk.img");
  const volume = join(dir, "volume");
  await unmountRunVolume(dir);
  mkdirSync(volume, { recursive: true });
  await run("truncate", ["--size", `${mib}M`, image]);
  // no reserved blocks (nobody but the run writes here), no lazy init thread writing behind the run's back
  await run("mkfs.ext4", ["-q", "-F", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", image]);
  await run("mount", ["-o", "loop,nodev,nosuid", image, volume]);
  return volume;
}

/** Unmounts and removes the run's file system; idempotent. */
export async function unmountRunVolume(dir: string): Promise<void> {
  const volume = join(dir, "volume");
  if (existsSync(volume) && (await isMounted(volume))) {
    // lazy: a process of the run that has not quite gone yet does not keep the disk
    await run("umount", ["--lazy", volume]);
  }
  rmSync(join(dir, "disk.img"), { force: true });
}
