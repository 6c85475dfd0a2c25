import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { findTarget, listTargets } from "../src/catalog.ts";
import { isAlive, runningTarget, startTarget, stopTarget } from "../src/run.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
const opts = { targetsRoot: fixtures };

afterEach(async () => {
  for (const name of ["healthy", "never-healthy", "crashes"]) await stopTarget(name);
});

describe("the bundled target catalog", () => {
  it("lists the real bundled targets, node-postgres among them", () => {
    expect(listTargets().map((t) => t.name)).toContain("node-postgres");
  });

  it("names the bundled targets when asked for an unknown one", () => {
    expect(() => findTarget("nope", fixtures)).toThrow(/unknown target "nope"; bundled targets: .*healthy/);
  });

  it("reports a bad manifest with its file and field", () => {
    expect(() => findTarget("bad-manifest", fixtures)).toThrow(/bad-manifest\/target\.json: version: must be a semantic version/);
  });

  it("requires the manifest name to equal its folder", () => {
    expect(() => findTarget("misnamed", fixtures)).toThrow(/name: "other-name" must equal its folder name "misnamed"/);
  });
});

describe("starting and stopping a local target", () => {
  it("starts a target on loopback, records it, and stops its whole process group", async () => {
    const t = await startTarget("healthy", opts);
    expect(t.url).toBe("http://127.0.0.1:18301");
    expect(await (await fetch(`${t.url}/`)).text()).toBe("127.0.0.1");
    expect(runningTarget("healthy")?.pid).toBe(t.pid);
    await expect(startTarget("healthy", opts)).rejects.toThrow(/already running/);
    expect(await stopTarget("healthy")).toBe(true);
    expect(isAlive(t.pid)).toBe(false);
    expect(runningTarget("healthy")).toBeUndefined();
    expect(await stopTarget("healthy")).toBe(false);
  });

  it("with port \"free\" starts on another port while something else holds the manifest's", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(18301, "127.0.0.1", resolve));
    try {
      await expect(startTarget("healthy", opts)).rejects.toThrow(/port 18301 on 127\.0\.0\.1 is in use/);
      const t = await startTarget("healthy", { ...opts, port: "free" });
      expect(t.port).not.toBe(18301);
      expect(t.url).toBe(`http://127.0.0.1:${t.port}`);
      expect(await (await fetch(`${t.url}/`)).text()).toBe("127.0.0.1");
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("fails with the exit code and the log when the target dies during startup", async () => {
    await expect(startTarget("crashes", opts)).rejects.toThrow(/target exited with code 3 during startup; last log lines:\ncannot connect to the database/);
    expect(runningTarget("crashes")).toBeUndefined();
  });

  it("gives up on a target that never becomes healthy, and leaves no process behind", async () => {
    const started = Date.now();
    await expect(startTarget("never-healthy", opts)).rejects.toThrow(/not healthy within 2 s \(http:\/\/127\.0\.0\.1:18303\/health: answered 503\)/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(runningTarget("never-healthy")).toBeUndefined();
    await new Promise((r) => setTimeout(r, 200));
    await expect(fetch("http://127.0.0.1:18303/health")).rejects.toThrow();
  });
});
