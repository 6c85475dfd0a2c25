/**
 * Tests start the target the way sfbench does: through @sfbench/provider-local
 * from target.json (launcher, Miniflare, workerd), on a port of 18700-18799.
 * provider-local keeps one running instance per target name, so the test
 * files run one after another (vitest.config.ts). Requests, the shopper and
 * polls are the helpers every target folder shares (@sfbench/target-suite).
 */
import { readFileSync } from "node:fs";
import { killTarget, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, type Answer } from "@sfbench/target-suite";

export const NAME = "durable-objects";

export interface RunningTarget {
  started: StartedTarget;
  url: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** the target's stdout + stderr so far (the provider's log file) */
  log(): string;
  stop(): Promise<void>;
}

export async function start(port: number, opts: { trace?: boolean; keepData?: boolean } = {}): Promise<RunningTarget> {
  await stopTarget(NAME); // an instance a crashed earlier test run left behind
  const started = await startTarget(NAME, { port, trace: opts.trace ?? false, keepData: opts.keepData ?? false });
  const url = started.url;
  return {
    started,
    url,
    call: (method, path, body, headers) => call(url, method, path, body, headers),
    log: () => readFileSync(started.log, "utf8"),
    stop: async () => void (await stopTarget(NAME)),
  };
}

/**
 * Kills every process of the target at once (SIGKILL to its process group): a
 * crash, no dispose. Waits until the whole group is gone, workerd included:
 * the launcher dies first, and a workerd still exiting holds the port.
 */
export async function crash(t: RunningTarget): Promise<void> {
  const killed = await killTarget(NAME, "SIGKILL");
  if (killed.nodes.some((n) => n.goneAt === undefined)) throw new Error(`a process of ${NAME} (pid ${t.started.pid}'s group) outlived SIGKILL by 10 s`);
  await stopTarget(NAME); // forgets the dead instance's state file
}
