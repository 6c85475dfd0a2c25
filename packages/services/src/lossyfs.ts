/**
 * lossyfs (packages/services/lossyfs): a FUSE mount that keeps every file's
 * unsynced writes in the daemon's memory until the file is fsynced. Killing
 * the daemon is a machine crash that loses the page cache, which a kill -9
 * of a target's processes is not: the kernel's page cache survives that, so
 * it cannot tell an fsync from a write that only reached the OS.
 *
 * The binary is built with Go once per version of its source, into
 * `.sfbench/bin/lossyfs-<hash>/`, and reused.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { env, paths } from "./env.ts";
import { aptInstall } from "./apt.ts";
import { withLock } from "./lock.ts";
import { findExecutable, run, waitFor } from "./process.ts";
import { MissingPrerequisiteError, type Progress } from "./types.ts";

/** The Go module of the daemon. */
export const LOSSYFS_SOURCE = fileURLToPath(new URL("../lossyfs", import.meta.url));

/** The build's key: the sha256 of the module's files (go.mod, go.sum, *.go) and the platform. */
export function lossyfsKey(source: string = LOSSYFS_SOURCE): string {
  const hash = createHash("sha256").update(`${process.platform}-${process.arch}\n`);
  const files = readdirSync(source)
    .filter((f) => f === "go.mod" || f === "go.sum" || (f.endsWith(".go") && !f.endsWith("_test.go")))
    .sort();
  for (const file of files) hash.update(`${file}\n`).update(readFileSync(path.join(source, file)));
  return hash.digest("hex").slice(0, 16);
}

const binaryOf = (key: string) => path.join(paths.home, "bin", `lossyfs-${key}`, "lossyfs");

let built: string | undefined;

/** The path of the lossyfs binary of this source, building it first (seconds, once per source version). */
export async function lossyfsPath(opts: { onProgress?: Progress } = {}): Promise<string> {
  const file = binaryOf(lossyfsKey());
  if (built === file && existsSync(file)) return file;
  built = await withLock("lossyfs", 10 * 60_000, async () => {
    if (existsSync(file)) return file;
    const go = findExecutable("go", env.PATH);
    if (!go) throw new MissingPrerequisiteError("lossyfs is built with Go, which is not installed: install Go 1.25+");
    opts.onProgress?.(`building lossyfs with go build into ${path.dirname(file)}`);
    await mkdir(path.dirname(file), { recursive: true });
    // built beside its final name and renamed, so nobody runs a half-written binary
    const tmp = `${file}.tmp-${process.pid}`;
    try {
      await run(go, ["build", "-buildvcs=false", "-trimpath", "-o", tmp, "."], { cwd: LOSSYFS_SOURCE, timeoutMs: 10 * 60_000 });
      await rename(tmp, file);
    } finally {
      await rm(tmp, { force: true });
    }
    return file;
  });
  return built;
}

/** Whether something is mounted at `dir` (/proc/self/mountinfo, whose paths escape spaces and such as octal). */
export function mountedAt(dir: string): boolean {
  const target = path.resolve(dir);
  const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(parseInt(oct, 8)));
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .some((line) => line.split(" ")[4] !== undefined && unescape(line.split(" ")[4]!) === target);
}

/** FUSE's mount helper: go-fuse looks for fusermount3, then fusermount, on PATH and in /bin. */
const fusermount = () => findExecutable("fusermount3", env.PATH) ?? findExecutable("fusermount", env.PATH) ?? findExecutable("fusermount3", "/bin:/usr/bin");

/** Detaches the mount at `dir` even when its daemon is dead (the mount then answers ENOTCONN). */
async function lazyUnmount(dir: string): Promise<void> {
  if (!mountedAt(dir)) return;
  const helper = fusermount();
  if (helper) await run(helper, ["-u", "-z", dir], { timeoutMs: 30_000 }).catch(() => undefined);
  if (mountedAt(dir)) await run("umount", ["-l", dir], { timeoutMs: 30_000 });
}

export interface LossyMount {
  /** the daemon's pid */
  pid: number;
  backing: string;
  mountpoint: string;
  /**
   * A machine crash: kill -9 of the daemon (every write not yet fsynced is
   * gone), then a lazy unmount. A new mountLossy over the same backing
   * directory shows exactly what was fsynced.
   */
  crash(): Promise<void>;
  /** A clean unmount: the daemon writes every buffer to the backing directory, then unmounts. */
  unmount(): Promise<void>;
}

const exitOf = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });

/**
 * Mounts `backing` at `mountpoint` (both created when missing) through lossyfs
 * and returns once the mount answers. As root the mount lets every user in
 * (allow_other), with the kernel checking modes and owners: PostgreSQL runs
 * as a user of its own then.
 */
export async function mountLossy(backing: string, mountpoint: string, opts: { onProgress?: Progress } = {}): Promise<LossyMount> {
  const binary = await lossyfsPath(opts);
  // the daemon mounts through the fusermount3 helper (go-fuse), which a new machine may not have
  await aptInstall(["fuse3"], { present: () => fusermount() !== undefined, why: "lossyfs mounts through fusermount3", progress: opts.onProgress });
  backing = path.resolve(backing);
  mountpoint = path.resolve(mountpoint);
  if (mountedAt(mountpoint)) throw new Error(`${mountpoint} is a mount point already: unmount it first`);
  await mkdir(backing, { recursive: true });
  await mkdir(mountpoint, { recursive: true });
  const child = spawn(binary, [backing, mountpoint], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/^lossyfs: ready/m.test(output)) resolve();
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("error", (error) => reject(new Error(`lossyfs failed to start: ${error.message}`)));
    child.once("exit", (code, signal) => reject(new Error(`lossyfs exited (${signal ?? `code ${code}`}) before it was mounted:\n${output.trim()}`)));
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
  try {
    await ready;
  } finally {
    clearTimeout(timer);
  }
  const exited = exitOf(child);
  const pid = child.pid!;
  return {
    pid,
    backing,
    mountpoint,
    async crash() {
      child.kill("SIGKILL");
      await exited;
      await lazyUnmount(mountpoint);
    },
    async unmount() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timeout = setTimeout(() => child.kill("SIGKILL"), 60_000);
        const { code, signal } = await exited.finally(() => clearTimeout(timeout));
        await lazyUnmount(mountpoint);
        if (code !== 0) throw new Error(`lossyfs did not unmount cleanly (${signal ?? `code ${code}`}):\n${output.trim()}`);
      } else {
        // the daemon is gone already (a crash): only the dead mount is left to detach
        await lazyUnmount(mountpoint);
      }
      await waitFor(async () => (mountedAt(mountpoint) ? undefined : true), {
        timeoutMs: 10_000,
        describe: () => `${mountpoint} is still mounted`,
      });
    },
  };
}
