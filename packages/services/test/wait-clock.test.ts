/**
 * Waits count elapsed time on the monotonic clock. A loaded or paused CI
 * machine can step its wall clock; a wait that read Date.now() then gave up
 * long before its time (a worker test reported 90 s of waiting after 43 s),
 * or, stepped back, waited on past it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { waitFor } from "../src/process.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a wait", () => {
  it("does not give up early when the wall clock jumps forward", async () => {
    let wall = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => (wall += 3_600_000));
    let calls = 0;
    const value = await waitFor(async () => (++calls >= 4 ? "ready" : undefined), {
      timeoutMs: 30_000,
      intervalMs: 10,
      describe: () => "gave up",
    });
    expect(value).toBe("ready");
    expect(calls).toBe(4);
  });

  it("still gives up after its time when the wall clock stands still", async () => {
    const frozen = Date.now();
    vi.spyOn(Date, "now").mockReturnValue(frozen);
    const started = performance.now();
    await expect(waitFor(async () => undefined, { timeoutMs: 200, intervalMs: 10, describe: () => "not ready within 200 ms" })).rejects.toThrow(
      "not ready within 200 ms",
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
  }, 10_000);
});
