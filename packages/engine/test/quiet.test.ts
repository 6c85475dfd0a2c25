/**
 * The wait between load steps, on real processes: an idle target starts the
 * next step at once, a busy one is waited for until the limit and the wait
 * says it ran out, so the step is known to start on a backlog.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { waitQuiet } from "../src/experiment/quiet.ts";

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill("SIGKILL");
      await once(c, "exit");
    }
  }
});

async function child(script: string): Promise<number> {
  const c = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(c);
  // the script says when it has begun what it is for
  await once(c.stdout!, "data");
  return c.pid!;
}

describe("waitQuiet", () => {
  it("returns after one interval when the target is idle", async () => {
    const pid = await child("process.stdout.write('up'); setInterval(() => {}, 1000)");
    const quiet = await waitQuiet({ maxS: 10, cpuShare: 0.1 }, () => [pid]);
    expect(quiet.settled).toBe(true);
    expect(quiet.cores).toBeLessThan(0.1);
    // one interval of half a second, however slow the machine is to wake the timer
    expect(quiet.seconds).toBeLessThan(5);
  });

  it("waits for a busy target until the limit and says it did not settle", async () => {
    const pid = await child("process.stdout.write('busy'); for (;;) {}");
    const quiet = await waitQuiet({ maxS: 1.5, cpuShare: 0.1 }, () => [pid]);
    expect(quiet.settled).toBe(false);
    expect(quiet.seconds).toBeGreaterThanOrEqual(1.5);
    // a spinning process keeps far more than a tenth of a core even beside another busy one
    expect(quiet.cores).toBeGreaterThan(0.1);
  });

  it("waits the minimum for a target given by URL and counts it settled", async () => {
    const quiet = await waitQuiet({ maxS: 30, cpuShare: 0.1 }, () => []);
    expect(quiet).toMatchObject({ settled: true });
    expect(quiet.cores).toBeUndefined();
    expect(quiet.seconds).toBeLessThan(5);
  });

  it("does not wait when the plan allows none", async () => {
    expect(await waitQuiet({ maxS: 0, cpuShare: 0.1 }, () => [process.pid])).toEqual({ seconds: 0, settled: true });
  });
});
