/**
 * After a plain `npm install` nothing has run `prisma generate`: the CLI's
 * entry point generates the client on first use (and again when the schema
 * changed), or exits 3 with the command to run. Tested on a temporary copy of
 * the files the entry point uses (bin, schema, generate script; the sources and
 * node_modules linked), so the shared tree's generated client is never touched.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliResult } from "./helpers.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const GENERATING = "sfbench: generating the Prisma client (packages/db/src/generated), once after install";

let root: string;
const marker = () => join(root, "packages/db/src/generated/.generated");

function copy(file: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  copyFileSync(join(REPO, file), join(root, file));
}

/** The copied entry point, run like `npx sfbench` would run it. */
function sfbench(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, "packages/cli/bin/sfbench.mjs"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "sfbench-first-use-"));
  for (const file of [
    "package.json",
    "prisma.config.ts",
    "prisma/schema.prisma",
    "packages/db/scripts/generate.mjs",
    "packages/db/scripts/no-schema-engine.sh",
    "packages/cli/bin/sfbench.mjs",
  ])
    copy(file);
  symlinkSync(join(REPO, "node_modules"), join(root, "node_modules"));
  symlinkSync(join(REPO, "packages/cli/src"), join(root, "packages/cli/src"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("sfbench on first use after npm install", () => {
  it("generates the missing Prisma client, then runs the command", async () => {
    expect(existsSync(marker())).toBe(false);
    const r = await sfbench(["help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(GENERATING);
    expect(r.stdout).toMatch(/^sfbench: benchmark stateful serverless function systems\n/);
    expect(existsSync(join(root, "packages/db/src/generated/client.ts"))).toBe(true);
    expect(existsSync(marker())).toBe(true);
  });

  it("does not generate it again while the schema is unchanged", async () => {
    const r = await sfbench(["help"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });

  it("generates it again once the schema is newer than the client", async () => {
    const old = new Date(statSync(join(root, "prisma/schema.prisma")).mtimeMs - 60_000);
    utimesSync(marker(), old, old);
    const r = await sfbench(["help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim()).toBe(GENERATING);
    expect(statSync(marker()).mtimeMs).toBeGreaterThan(old.getTime());
  });

  it("exits 3 with a last line saying what to run when the client cannot be generated", async () => {
    writeFileSync(join(root, "prisma/schema.prisma"), "model {\n");
    const r = await sfbench(["help"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n").at(-1)).toBe("sfbench: the Prisma client could not be generated; run `npm run bootstrap` and try again");
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
