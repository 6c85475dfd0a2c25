import { describe, expect, it } from "vitest";
import { BUSY_OUTSIDE_CORES } from "@sfbench/core";
import { noiseBetween, noiseMark, parseLoadAverage, parseProcStat, type NoiseMark } from "../src/campaign/index.ts";
import { clockTicks } from "../src/cost/proc.ts";

const hz = clockTicks();
const mark = (atS: number, used: number, idle: number, steal: number, own: number): NoiseMark => ({
  at: atS * 1000,
  cpu: { used, steal, total: used + idle + steal, cpus: 2 },
  load: [1, 2, 3],
  own,
});

describe("the machine's noise during a trial", () => {
  it("reads the aggregate line of /proc/stat and the load average", () => {
    const s = parseProcStat(
      `cpu  ${100 * hz} 0 ${50 * hz} ${300 * hz} ${10 * hz} 0 ${5 * hz} ${2 * hz} 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\n`,
    );
    expect(s).toEqual({ used: 155, steal: 2, total: 467, cpus: 2 });
    expect(parseLoadAverage("21.98 20.97 15.18 24/737 16489\n")).toEqual([21.98, 20.97, 15.18]);
  });

  it("counts what the run did not use as outside CPU and marks the trial busy above the threshold", () => {
    // 10 s: 15 CPU-seconds used, 12 of them the run's: 0.3 cores outside
    const busy = noiseBetween(mark(0, 0, 0, 0, 0), mark(10, 15, 5, 0, 12));
    expect(busy.runCores).toBeCloseTo(1.2, 10);
    expect(busy.outsideCores).toBeCloseTo(0.3, 10);
    expect(busy.outsideCores).toBeGreaterThan(BUSY_OUTSIDE_CORES);
    expect(busy.busy).toBe(true);
    expect(busy.busyBecause[0]).toMatch(/outside the run used 0\.30 cores/);
    const quiet = noiseBetween(mark(0, 0, 0, 0, 0), mark(10, 13, 7, 0, 12));
    expect(quiet).toMatchObject({ busy: false, busyBecause: [] });
  });

  it("marks a trial busy when steal takes more than its share", () => {
    const n = noiseBetween(mark(0, 0, 0, 0, 0), mark(10, 10, 8, 2, 10));
    expect(n.stealShare).toBeCloseTo(0.1, 10);
    expect(n.busyBecause.join()).toMatch(/steal took 10\.0%/);
  });

  it("measures this machine now", () => {
    const a = noiseMark([process.pid]);
    const b = noiseMark([process.pid]);
    const n = noiseBetween(a, b);
    expect(n.cpus).toBeGreaterThan(0);
    expect(n.loadAverage.end).toHaveLength(3);
  });
});
