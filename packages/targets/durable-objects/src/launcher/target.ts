/**
 * startTarget(options): the Worker and its Durable Object classes in workerd,
 * through Miniflare, on host:port, with Durable Object storage persisted
 * under dataDir. workerd is Miniflare's child process (same process group as
 * the launcher, so the cost sampler counts it and teardown stops it).
 *
 * workerd's stdout and stderr are passed through byte for byte: span lines
 * written with console.log in the Worker or an object reach the launcher's
 * stdout unchanged, one per line.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Readable } from "node:stream";
import { Log, LogLevel, Miniflare } from "miniflare";
import { bundleWorker } from "./bundle.ts";

/** workerd's compatibility date: fixed, so that an upgrade of miniflare does not change behaviour silently. */
export const COMPATIBILITY_DATE = "2026-04-01";

/** The Durable Object namespaces (bindings of src/worker/app/env.ts) and their classes. */
export const NAMESPACES = {
  PRODUCTS: "ProductObject",
  USERS: "UserObject",
  CARTS: "CartObject",
  ORDERS: "OrderObject",
  MICRO: "MicroObject",
  MICRO_DRIVER: "MicroDriverObject",
  MICRO_PING: "MicroPingObject",
  MICRO_PONG: "MicroPongObject",
  MICRO_DIVIDE: "MicroDivideObject",
  MICRO_BIG: "MicroBigObject",
} as const;

export interface TargetOptions {
  host: string;
  port: number;
  trace: boolean;
  /** Durable Object storage goes to <dataDir>/durable-objects */
  dataDir: string;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

export interface Target {
  url: URL;
  /** workerd's pid */
  runtimePid: number | undefined;
  /** workerd's open-files limit (workerd.sh raises it) */
  openFilesLimit: number | undefined;
  /** resolves with a reason when workerd exits without dispose() */
  lost: Promise<string>;
  dispose(): Promise<void>;
}

export const storageDir = (dataDir: string) => join(dataDir, "durable-objects");

/**
 * The autogates workerd runs with (autogates.mjs): SQLite's process-wide heap
 * cap raised from 512 MiB to 8 GiB, without which one workerd holds only
 * about 3,000 live objects.
 */
export const AUTOGATES = ["increase-sqlite-hard-heap-limit"];

/** Miniflare starts workerd.sh in workerd's place: it raises the open-files limit, adds AUTOGATES to workerd's config and execs workerd. */
function useWorkerdWrapper(): void {
  process.env.SFBENCH_WORKERD = (createRequire(createRequire(import.meta.url).resolve("miniflare"))("workerd") as { default: string }).default;
  process.env.SFBENCH_NODE = process.execPath;
  process.env.SFBENCH_WORKERD_AUTOGATES = AUTOGATES.join(",");
  process.env.MINIFLARE_WORKERD_PATH = fileURLToPath(new URL("./workerd.sh", import.meta.url));
}

/** The children of a process (Linux: /proc/<pid>/task/<tid>/children). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** A process's soft limit of open files (/proc/<pid>/limits). */
export function openFilesLimit(pid: number): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startTarget(opts: TargetOptions): Promise<Target> {
  const script = await bundleWorker();
  const persist = storageDir(opts.dataDir);
  mkdirSync(persist, { recursive: true });
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const before = new Set(childrenOf(process.pid));
  useWorkerdWrapper();
  const mf = new Miniflare({
    // Miniflare's own entry socket (its router worker, unused here) on a free loopback port;
    // requests reach the Worker directly on host:port, without the extra hop through that router
    host: "127.0.0.1",
    port: 0,
    unsafeDirectSockets: [{ host: opts.host, port: opts.port }],
    modules: [{ type: "ESModule", path: "worker.js", contents: script }],
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: Object.fromEntries(Object.entries(NAMESPACES).map(([binding, className]) => [binding, { className, useSQLite: true }])),
    durableObjectsPersist: persist,
    bindings: { SFBENCH_TRACE: opts.trace ? "1" : "0" },
    cf: false,
    logRequests: false,
    log: new Log(LogLevel.WARN),
    handleRuntimeStdio(out: Readable, err: Readable) {
      out.pipe(stdout, { end: false });
      err.pipe(stderr, { end: false });
    },
  });
  await mf.ready;
  const url = await mf.unsafeGetDirectURL();
  const runtimePid = childrenOf(process.pid).find((pid) => !before.has(pid));

  let disposed = false;
  let watch: NodeJS.Timeout | undefined;
  const lost = new Promise<string>((resolve) => {
    if (runtimePid === undefined) return;
    watch = setInterval(() => {
      if (!disposed && !alive(runtimePid)) {
        clearInterval(watch);
        resolve(`workerd (pid ${runtimePid}) exited`);
      }
    }, 500);
    watch.unref();
  });

  return {
    url,
    runtimePid,
    openFilesLimit: runtimePid === undefined ? undefined : openFilesLimit(runtimePid),
    lost,
    async dispose() {
      if (disposed) return;
      disposed = true;
      clearInterval(watch);
      await mf.dispose();
    },
  };
}

/** Removes what a killed launcher left in its temporary directory. */
export function clearDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}
