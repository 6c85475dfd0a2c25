import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outputTail, withOutputOnFailure } from "../src/output.ts";

const dir = mkdtempSync(join(tmpdir(), "suite-output-"));
const launcherLog = join(dir, "target.log");
writeFileSync(launcherLog, `${"x".repeat(10_000)}\n[restate launcher] restate-server exited with signal SIGABRT; stopping the target\n`);
const emptyLog = join(dir, "node-1.log");
writeFileSync(emptyLog, "");

describe("a failed test's message", () => {
  it("gains the end of each log, once each, and only the end", () => {
    const tail = outputTail([launcherLog, launcherLog, emptyLog, join(dir, "never-written.log")], 200);
    expect(tail.match(/--- the end of/g)).toHaveLength(2);
    expect(tail).toContain("restate-server exited with signal SIGABRT");
    expect(tail).toContain(`--- the end of ${emptyLog} ---\n(empty)`);
    expect(tail.length).toBeLessThan(600);
  });

  it("keeps the error object (an assertion's diff still shows) and names why the target died", async () => {
    const failing = withOutputOnFailure(
      () => [launcherLog],
      async () => expect({ status: 503 }).toEqual({ status: 200 }),
    );
    const err = await failing.then(
      () => undefined,
      (e: unknown) => e as Error & { expected?: unknown },
    );
    expect(err?.message).toContain("the target's output:");
    expect(err?.message).toContain("restate-server exited with signal SIGABRT");
    expect(err?.expected).toEqual({ status: 200 });
  });

  it("is the error alone when no log can be named, and passes a passing body through", async () => {
    const lost = new Error("connect ECONNREFUSED");
    await expect(
      withOutputOnFailure(
        () => {
          throw new Error("target restate is not running");
        },
        async () => {
          throw lost;
        },
      ),
    ).rejects.toBe(lost);
    expect(lost.message).toBe("connect ECONNREFUSED");
    await expect(
      withOutputOnFailure(
        () => [launcherLog],
        async () => undefined,
      ),
    ).resolves.toBeUndefined();
  });
});
