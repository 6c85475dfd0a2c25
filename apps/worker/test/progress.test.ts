/**
 * The run's progress as the run page polls it: a share that is not a number
 * never reaches the database, and a write that fails is said without holding
 * back the next one or leaving a rejection that would end the worker.
 */
import { describe, expect, it, vi } from "vitest";
import type { Db } from "@sfbench/db";
import { RunProgress } from "../src/progress.ts";

/** A stand-in for the run table: records each write's data, fails the ones `fail` says. */
function fakeDb(fail: (n: number) => boolean) {
  const writes: Array<{ stage: string; progress: number }> = [];
  const db = {
    run: {
      updateMany: async ({ data }: { data: { stage: string; progress: number } }) => {
        if (fail(writes.length + 1)) {
          writes.push({ ...data, stage: `failed:${data.stage}` });
          throw new Error("connection lost");
        }
        writes.push(data);
        return { count: 1 };
      },
    },
  };
  return { db: db as unknown as Db, writes };
}

describe("run progress", () => {
  it("keeps the bar where it is when the share is not a number (a run of the microbenchmarks alone has no cells)", async () => {
    const { db, writes } = fakeDb(() => false);
    const p = new RunProgress(db, "run-1", 0);
    await p.set("verify", 10);
    await p.set("load", NaN);
    await p.set("audit", Infinity);
    expect(writes.map((w) => w.progress)).toEqual([10, 10, 10]);
  });

  it("says a failed write and still makes the next one", async () => {
    const { db, writes } = fakeDb((n) => n === 1);
    const said = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const p = new RunProgress(db, "run-2", 0);
      void p.set("verify", 5);
      await p.set("load", 20);
      await new Promise((r) => setTimeout(r, 10));
      expect(writes.map((w) => w.stage)).toEqual(["failed:verify", "load"]);
      expect(said.mock.calls.map((c) => String(c[0])).join("")).toMatch(/run run-2: progress not written: connection lost/);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
      said.mockRestore();
    }
  });
});
