import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { k6Path, status, up } from "../src/index.ts";

describe("k6", () => {
  let k6: string;
  // the first call on a fresh machine builds k6 with Go (minutes on 2 busy cores): in the hook, whose time allows for it
  beforeAll(async () => {
    k6 = await k6Path();
  });

  it("k6Path returns an executable that reports v1.8.1", async () => {
    const { stdout } = await promisify(execFile)(k6, ["version"]);
    expect(stdout).toMatch(/^k6 v1\.8\.1\b/);
  });

  it("counts as up once installed, with its path in the status", async () => {
    const [started] = await up(["k6"]);
    const [s] = await status(["k6"]);
    expect(started?.running).toBe(true);
    expect(s?.running).toBe(true);
    expect(s?.detail).toContain(k6);
  });
});
