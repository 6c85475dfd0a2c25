/**
 * A test run leaves /tmp as it found it: every package that runs vitest names
 * scripts/vitest-tmpdir.ts as its global setup, which gives the run its own
 * TMPDIR and removes it, with whatever the tests left there, when the run ends.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SCRATCH_PREFIX, setup } from "../../../scripts/vitest-tmpdir.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const SCRIPT = join(root, "scripts/vitest-tmpdir.ts");

/** The workspace folders of the root package.json, a trailing `/*` expanded. */
function workspaces(): string[] {
  const patterns = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] }).workspaces;
  return patterns.flatMap((p) =>
    p.endsWith("/*")
      ? readdirSync(join(root, p.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory() && existsSync(join(root, p.slice(0, -2), d.name, "package.json")))
          .map((d) => `${p.slice(0, -2)}/${d.name}`)
      : [p],
  );
}

describe("the tests' scratch folder", () => {
  const previous = process.env.TMPDIR;
  afterEach(() => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  });

  it("is named as the global setup of every package whose tests run with vitest", () => {
    const missing: string[] = [];
    for (const ws of workspaces()) {
      const pkg = JSON.parse(readFileSync(join(root, ws, "package.json"), "utf8")) as { scripts?: { test?: string } };
      if (!pkg.scripts?.test?.includes("vitest")) continue;
      const config = join(root, ws, "vitest.config.ts");
      const named = existsSync(config) ? /globalSetup:\s*\[\s*"([^"]+)"/.exec(readFileSync(config, "utf8"))?.[1] : undefined;
      if (!named || resolve(root, ws, named) !== SCRIPT) missing.push(ws);
    }
    expect(missing, "packages whose vitest.config.ts does not name scripts/vitest-tmpdir.ts as globalSetup").toEqual([]);
  });

  it("is where this very test's os.tmpdir() points", () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${SCRATCH_PREFIX}`));
  });

  it("is made under the current tmpdir, becomes TMPDIR, and goes with everything in it when the run ends", () => {
    const outer = tmpdir();
    const teardown = setup();
    const scratch = process.env.TMPDIR!;
    expect(dirname(scratch)).toBe(outer);
    expect(tmpdir()).toBe(scratch);
    // every user may enter and write it, as /tmp (PostgreSQL runs as its own user)
    expect(statSync(scratch).mode & 0o7777).toBe(0o1777);
    mkdirSync(join(scratch, "left-behind", "deep"), { recursive: true });
    writeFileSync(join(scratch, "left-behind", "deep", "image.tar"), "x".repeat(1024));
    teardown();
    expect(existsSync(scratch)).toBe(false);
    expect(process.env.TMPDIR).toBe(outer);
  });

  it("leaves TMPDIR unset when it was unset", () => {
    delete process.env.TMPDIR;
    const teardown = setup();
    expect(process.env.TMPDIR).toBeDefined();
    const scratch = process.env.TMPDIR!;
    teardown();
    expect(process.env.TMPDIR).toBeUndefined();
    expect(existsSync(scratch)).toBe(false);
  });
});
