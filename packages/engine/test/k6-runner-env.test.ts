/**
 * The environment runK6 gives k6: Go's collector off under a memory limit
 * (the generator's CPU per checkout is bench:generator's), K6_CSV_TIME_FORMAT
 * as the CSV reader expects, and nothing else of the caller's but PATH and
 * HOME. The k6 here is a stand-in script that writes down its environment.
 */
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { K6_GO_ENV, k6ProcessEnv, runK6 } from "../src/experiment/k6-runner.ts";

const dir = mkdtempSync(join(tmpdir(), "sfbench-k6-env-"));
const fakeK6 = join(dir, "k6");
writeFileSync(fakeK6, `#!/bin/sh\nenv > "${dir}/env.txt"\n`);
chmodSync(fakeK6, 0o755);

const seen = (): Record<string, string> =>
  Object.fromEntries(
    readFileSync(join(dir, "env.txt"), "utf8")
      .trim()
      .split("\n")
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );

afterEach(() => {
  delete process.env.K6_VUS;
  delete process.env.GOGC;
});

describe("k6's environment", () => {
  it("turns Go's collector off under a memory limit and passes nothing of the caller's but PATH and HOME", async () => {
    process.env.K6_VUS = "7";
    process.env.GOGC = "50";
    const out = await runK6({ k6: fakeK6, script: { file: join(dir, "none.js") }, env: {}, outDir: dir, name: "x" });
    expect(out.exitCode).toBe(0);
    const env = seen();
    expect(env).toMatchObject({ GOGC: "off", GOMEMLIMIT: "3GiB", K6_CSV_TIME_FORMAT: "unix_milli", PATH: process.env.PATH });
    expect(env.K6_VUS).toBeUndefined();
  });

  it("takes other Go settings when asked (the generator-cost benchmark's comparison)", async () => {
    await runK6({ k6: fakeK6, script: { file: join(dir, "none.js") }, env: {}, outDir: dir, name: "y" }, { goEnv: {} });
    const env = seen();
    expect(env.GOGC).toBeUndefined();
    expect(env.GOMEMLIMIT).toBeUndefined();
    expect(k6ProcessEnv()).toMatchObject(K6_GO_ENV);
  });
});
