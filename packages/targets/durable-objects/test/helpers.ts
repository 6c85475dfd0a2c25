/**
 * Tests start the target the way sfbench does: through @sfbench/provider-local
 * from target.json (launcher, Miniflare, workerd), on a port of 18700-18799.
 * provider-local keeps one running instance per target name, so the test
 * files run one after another (vitest.config.ts). Requests, the shopper and
 * polls are the helpers every target folder shares (@sfbench/target-suite).
 */
import { killTarget, stopTarget } from "@sfbench/provider-local";
import { startForTest, type TestTarget } from "@sfbench/target-suite";

export const NAME = "durable-objects";

export type RunningTarget = TestTarget;

/** The target started as a run starts it, on `port`. */
export const start = (port: number, opts: { trace?: boolean; keepData?: boolean } = {}): Promise<RunningTarget> => startForTest(NAME, port, opts);

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
