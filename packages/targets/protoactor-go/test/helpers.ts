/**
 * Test harness: the target is built by provider-local's build step (the same
 * `go build` a local start runs) and driven over HTTP only, with the helpers
 * every target folder shares (@sfbench/target-suite). What is Proto.Actor's
 * own: the built binary started by hand, so a test chooses its database and
 * its member count.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { openSync, closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildDir, ensureBuilt } from "@sfbench/provider-local";
import { eventually } from "@sfbench/target-suite";

export const TARGET = "protoactor-go";

/** Builds the target if its sources changed; answers the path of the binary. */
export async function builtBinary(): Promise<string> {
  await ensureBuilt(TARGET);
  return join(buildDir(TARGET), "protoactor-target");
}

/** The built binary started by hand (not through startTarget), so a test can choose the database and kill it. */
export interface Process {
  url: string;
  child: ChildProcess;
  log: () => string;
  /** signal to the whole process group: the launcher and its member processes */
  signal(sig: NodeJS.Signals): void;
  exited: Promise<void>;
}

export async function spawnTarget(binary: string, opts: { port: number; databaseUrl: string; logFile: string; members?: number }): Promise<Process> {
  const url = `http://127.0.0.1:${opts.port}`;
  // a leftover target on the port would answer in place of the new one
  const leftover = await fetch(url + "/health").then(
    () => true,
    () => false,
  );
  if (leftover) throw new Error(`port ${opts.port} already answers; stop what runs there first`);
  const fd = openSync(opts.logFile, "a");
  const child = spawn(binary, [], {
    env: {
      ...process.env,
      PORT: String(opts.port),
      HOST: "127.0.0.1",
      DATABASE_URL: opts.databaseUrl,
      PROTOACTOR_MEMBERS: String(opts.members ?? 2),
      SFBENCH_TRACE: "0",
    },
    detached: true,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const p: Process = {
    url,
    child,
    log: () => readFileSync(opts.logFile, "utf8"),
    signal: (sig) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        /* already gone */
      }
    },
    exited,
  };
  let dead = false;
  void exited.then(() => (dead = true));
  await eventually(async () => {
    if (dead) throw new Error(`target exited during startup:\n${p.log().slice(-2000)}`);
    const res = await fetch(url + "/health");
    if (res.status !== 200) throw new Error(`health ${res.status}`);
  }, 90_000).catch((e) => {
    p.signal("SIGKILL");
    throw e;
  });
  return p;
}
