import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { k6Path, status, up } from "../src/index.ts";

describe("k6", () => {
  it("k6Path returns an executable that reports v1.8.1", async () => {
    const { stdout } = await promisify(execFile)(await k6Path(), ["version"]);
    expect(stdout).toMatch(/^k6 v1\.8\.1\b/);
  });

  it("counts as up once installed, with its path in the status", async () => {
    const [started] = await up(["k6"]);
    const [s] = await status(["k6"]);
    expect(started?.running).toBe(true);
    expect(s?.running).toBe(true);
    expect(s?.detail).toContain(await k6Path());
  });
});
