/**
 * The target's processes as sfbench runs them (its conformance is
 * @sfbench/target-suite's check): started by provider-local from
 * target.json, every process in the launcher's group, nothing left behind by
 * a stop, and the rest stopped when one part dies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "@sfbench/provider-local";
import { commandOf, groupPids, start, type RunningTarget } from "./helpers.ts";

const PORT = 18610;
let t: RunningTarget;

beforeAll(async () => {
  t = await start(PORT);
});
afterAll(async () => {
  await t?.stop();
});

describe("restate through provider-local", () => {
  it("runs the Restate server, the service endpoint and the gateway in the launcher's process group", () => {
    const commands = groupPids(t.started.pid).map(commandOf);
    expect(commands.some((c) => /restate-server .*--config-file/.test(c))).toBe(true);
    expect(commands.some((c) => c.includes("src/app/main.ts"))).toBe(true);
    expect(commands.some((c) => c.includes("src/gateway/main.ts"))).toBe(true);
    expect(commands.some((c) => c.includes("src/launcher/main.ts"))).toBe(true);
  });

  it("leaves no process behind when stopped", async () => {
    const pids = groupPids(t.started.pid);
    expect(pids.length).toBeGreaterThanOrEqual(4);
    await t.stop();
    expect(pids.filter(isAlive)).toEqual([]);
  });
});

describe("when a part of the system dies", () => {
  it("the launcher stops the rest and exits non-zero", { timeout: 180_000 }, async () => {
    t = await start(PORT);
    const pids = groupPids(t.started.pid);
    const server = pids.find((pid) => /restate-server/.test(commandOf(pid)))!;
    process.kill(server, "SIGKILL");
    const deadline = performance.now() + 30_000;
    while (t.started.exited() === undefined && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(t.started.exited()).toBe("code 1");
    expect(pids.filter(isAlive)).toEqual([]);
    expect(t.log()).toMatch(/restate-server exited with signal SIGKILL; stopping the target/);
  });
});
