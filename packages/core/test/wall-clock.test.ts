import { afterEach, describe, expect, it, vi } from "vitest";

/** A fresh copy of the module, so each case anchors its own clock. */
async function freshWallMicros(): Promise<() => number> {
  vi.resetModules();
  return (await import("../src/span.ts")).wallMicros;
}

/**
 * A machine whose wall clock (microseconds) advances a little on every read,
 * and whose performance clock started at `originUs` of it, as
 * performance.timeOrigin claims, off by `originErrorUs`.
 */
function fakeMachine(startUs: number, originErrorUs: number) {
  const machine = { wallUs: startUs, originUs: startUs - 50_000 + originErrorUs };
  const tick = () => (machine.wallUs += 7);
  vi.spyOn(Date, "now").mockImplementation(() => Math.floor(tick() / 1000));
  vi.spyOn(performance, "now").mockImplementation(() => (tick() - machine.originUs) / 1000);
  return machine;
}

describe("wallMicros, the span clock shared with other processes", () => {
  afterEach(() => vi.restoreAllMocks());

  it("is never outside the millisecond Date.now() gives around it, on the real clocks", async () => {
    const wallMicros = await freshWallMicros();
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      const w = wallMicros();
      const after = Date.now();
      expect(w).toBeGreaterThanOrEqual(before * 1000);
      expect(w).toBeLessThan((after + 1) * 1000);
    }
  });

  it("reads the wall clock to a few microseconds when the performance clock's origin is 4 ms off", async () => {
    const machine = fakeMachine(1_796_404_071_288_277, 4_000);
    const wallMicros = await freshWallMicros();
    for (let i = 0; i < 50; i++) {
      const w = wallMicros();
      expect(Math.abs(w - machine.wallUs)).toBeLessThan(20);
      machine.wallUs += 333;
    }
  });

  it("follows the wall clock when it is stepped back by two seconds or forward by one", async () => {
    const machine = fakeMachine(1_796_404_071_000_000, 0);
    const wallMicros = await freshWallMicros();
    wallMicros();
    machine.wallUs -= 2_000_000;
    machine.originUs -= 2_000_000;
    expect(Math.abs(wallMicros() - machine.wallUs)).toBeLessThan(1000);
    machine.wallUs += 1_000_000;
    machine.originUs += 1_000_000;
    expect(Math.abs(wallMicros() - machine.wallUs)).toBeLessThan(1000);
  });
});
