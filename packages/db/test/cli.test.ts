import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../src/index.ts";
import { nodePostgresManifest, resultDoc, testDatabase, type TestDatabase } from "./helpers.ts";

const root = fileURLToPath(new URL("../../..", import.meta.url));

/** `sfbench results import <dir>` as a user runs it, against the test database. */
function sfbench(args: string[], databaseUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "packages/cli/bin/sfbench.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let test: TestDatabase;
let db: Db;
let dir: string;
beforeAll(async () => {
  test = await testDatabase(); // not migrated: the command migrates it
  db = createDb(test.url);
  dir = await mkdtemp(path.join(tmpdir(), "sfbench-cli-import-"));
});
afterAll(async () => {
  await db?.$disconnect();
  await test?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("sfbench results import", () => {
  it("imports the good file, names the bad file and its field, exits 1, and skips the good file the second time", async () => {
    const good = resultDoc();
    const bad = resultDoc();
    (bad.cells[0]!.stable! as { errorRate: unknown }).errorRate = 2;
    await writeFile(path.join(dir, "good.json"), JSON.stringify(good, null, 2));
    await writeFile(path.join(dir, "bad.json"), JSON.stringify(bad, null, 2));

    const first = await sfbench(["results", "import", dir], test.url);
    expect(first.stdout).toBe(`${path.join(dir, "good.json")}: imported run ${good.runId}\n`);
    expect(first.stderr).toMatch(new RegExp(`${path.join(dir, "bad.json")}: failed: cells\\.0\\.stable\\.errorRate: `));
    expect(first.stderr).toMatch(/2 file\(s\): 1 imported, 0 already imported, 1 failed/);
    expect(first.code).toBe(1);

    const run = await db.run.findUniqueOrThrow({ where: { id: good.runId }, include: { targetVersion: true, cells: true } });
    expect(run.status).toBe("completed");
    expect(run.resultPath).toBe(path.join(dir, "good.json"));
    expect(run.cells).toHaveLength(2);
    // the bundled target.json with the document's digest is stored with the version
    expect(run.targetVersion.manifest).toEqual(nodePostgresManifest().manifest);
    expect(await db.run.count()).toBe(1);

    const second = await sfbench(["results", "import", path.join(dir, "good.json")], test.url);
    expect(second.stdout).toBe(`${path.join(dir, "good.json")}: already imported (run ${good.runId})\n`);
    expect(second.code).toBe(0);
  });

  it("answers a missing path or subcommand with a usage error (exit 2)", async () => {
    const missing = await sfbench(["results", "import", path.join(dir, "nope")], test.url);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*nope: ENOENT/);
    const none = await sfbench(["results"], test.url);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give a system \(sfbench results <system> \[--json\]\) or `import <file\|dir>`/);
  });
});
