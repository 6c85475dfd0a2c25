/**
 * Who holds a bundled target. A target has one data directory and one
 * PostgreSQL of its own under its name, so two starts of it at once would
 * initdb into the same folder and one would delete what the other runs on.
 * A start first takes the target's claim (a file created exclusively); the
 * claim lasts until stopTarget. A run that finds the target held by another
 * live run waits for it, as a benchmark should (two runs on one machine
 * would measure each other anyway); a target someone started with
 * `sfbench target up` is refused at once, as it runs until they stop it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TargetBusyError } from "@sfbench/catalogue";
import { isAlive, stateDir } from "./target-process.ts";

export interface Claim {
  pid: number;
  /** "run": held for one benchmark run, until it stops the target; "up": a target started to stay up */
  purpose: "run" | "up";
  since: string;
}

const claimFile = (name: string) => join(stateDir(), `${name}.claim`);

export function readClaim(name: string): Claim | undefined {
  try {
    return JSON.parse(readFileSync(claimFile(name), "utf8")) as Claim;
  } catch {
    return undefined;
  }
}

export function releaseClaim(name: string): void {
  rmSync(claimFile(name), { force: true });
}

export interface ClaimOptions {
  purpose: Claim["purpose"];
  /** the target's own state says it runs (its processes are alive): a claim whose holder exited still stands */
  running: () => { url: string; pid: number } | undefined;
  onProgress?: (message: string) => void;
  /** how often to look again while waiting for another run */
  pollMs?: number;
}

/**
 * Takes the claim on `name`, waiting while another live run holds it.
 * Throws TargetBusyError when the target was started to stay up, or is
 * being started by something that is not a run.
 */
export async function takeClaim(name: string, opts: ClaimOptions): Promise<void> {
  mkdirSync(stateDir(), { recursive: true });
  const mine: Claim = { pid: process.pid, purpose: opts.purpose, since: new Date().toISOString() };
  let waitingFor: number | undefined;
  let unreadable = 0;
  for (;;) {
    try {
      writeFileSync(claimFile(name), JSON.stringify(mine), { flag: "wx" });
      if (waitingFor !== undefined) opts.onProgress?.(`${name} is free: starting it`);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const held = readClaim(name);
    if (held === undefined && unreadable++ < 50) {
      // created but not written yet by its holder
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    const running = opts.running();
    const holderAlive = held !== undefined && isAlive(held.pid);
    if (!holderAlive && !running) {
      // the holder exited without stopping the target, and nothing of the target is left
      releaseClaim(name);
      continue;
    }
    const byRun = held?.purpose === "run" && holderAlive;
    if (opts.purpose !== "run" || !byRun) {
      if (running)
        throw new TargetBusyError(`target ${name} is already running at ${running.url} (pid ${running.pid}); stop it with: sfbench target down ${name}`);
      throw new TargetBusyError(`target ${name} is being started by process ${held?.pid ?? "?"}; wait for it, or stop it with: sfbench target down ${name}`);
    }
    if (waitingFor !== held.pid) {
      waitingFor = held.pid;
      opts.onProgress?.(
        `waiting for ${name}: another run holds it (process ${held.pid}, since ${held.since.slice(11, 19)} UTC); one target, one run at a time`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 1000));
  }
}
