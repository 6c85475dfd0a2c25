import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outputTail, SAID, withOutputOnFailure } from "../src/output.ts";

const dir = mkdtempSync(join(tmpdir(), "suite-output-"));
const launcherLog = join(dir, "target.log");
writeFileSync(launcherLog, `${"x".repeat(10_000)}\n[restate launcher] restate-server exited with signal SIGABRT; stopping the target\n`);
const span = JSON.stringify({
  sfbench: "span",
  traceId: "a".repeat(32),
  spanId: "b".repeat(16),
  kind: "function",
  entity: "product",
  op: "get",
  start: 1,
  end: 2,
});
// a traced target's log: its launcher's last words, then half a megabyte of span lines its other processes still wrote
const tracedLog = join(dir, "traced.log");
writeFileSync(
  tracedLog,
  [
    "[restate launcher] ports: ingress 1, admin 2",
    "[restate launcher] service endpoint exited with code 1; stopping the target",
    // its peers' complaints after the death, then the spans they still wrote
    ...Array.from({ length: 10 }, (_, i) => `WARN restate_invoker_impl: Invocation error, retrying in ${i} s: Connection refused`),
    ...Array.from({ length: 3000 }, () => span),
    "",
  ].join("\n"),
);
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

  it("leaves span lines out of the end it shows: a traced target's last words are under thousands of them", () => {
    const tail = outputTail([tracedLog], 4000);
    expect(tail).toContain("service endpoint exited with code 1");
    expect(tail).not.toContain('"sfbench":"span"');
  });

  it("starts with why the target stopped and its last lines, each marked for the summary at the end of npm test", async () => {
    const err = await withOutputOnFailure(
      () => [tracedLog],
      async () => expect(1).toBe(2),
      async () => "restate is not running any more: its launcher exited with code 1",
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const lines = err!.message.split("\n");
    expect(lines[0]).toBe("restate is not running any more: its launcher exited with code 1; the last lines it wrote (span lines left out):");
    // the line that says which process ended, though ten lines came after it, then the last lines
    expect(lines.slice(1, 6)).toEqual([
      `  ${SAID}[restate launcher] service endpoint exited with code 1; stopping the target`,
      ...[6, 7, 8, 9].map((i) => `  ${SAID}WARN restate_invoker_impl: Invocation error, retrying in ${i} s: Connection refused`),
    ]);
    expect(lines[6]).toBe("");
    // the assertion's own message follows, then the whole tail
    expect(err!.message).toContain("expected 1 to be 2");
    expect(err!.message).toContain("the target's output:");
    // a target still running adds no such lines
    const alive = await withOutputOnFailure(
      () => [tracedLog],
      async () => expect(1).toBe(2),
      async () => undefined,
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(alive!.message).not.toContain(SAID);
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
