import { execFileSync } from "node:child_process";
import { accessSync, constants, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { buildDir, ensureBuilt } from "../src/build.ts";
import { KEEP } from "../src/build-store.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
// a private copy of the target (the test changes its inputs) and a private machine store
const root = mkdtempSync(join(tmpdir(), "sfbench-build-cache-"));
cpSync(join(fixtures, "stored-build"), join(root, "stored-build"), { recursive: true });
const store = join(root, "store");
const name = "stored-build";
const source = join(root, name, "src", "a.txt");
const runs = () =>
  readFileSync(join(root, name, "runs.log"), "utf8")
    .trim()
    .split("\n").length;
const keysInStore = () => readdirSync(join(store, "build", name)).filter((n) => !n.startsWith("."));
const app = () => execFileSync(join(buildDir(name), "bin", "app"), { encoding: "utf8" }).trim();

let messages: string[] = [];
const opts = { targetsRoot: root, cacheDir: store, onProgress: (m: string) => messages.push(m) };

beforeEach(() => {
  messages = [];
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(buildDir(name), { recursive: true, force: true });
});

describe("the machine's store of finished builds", () => {
  it("keeps a finished build in the store under its key", async () => {
    rmSync(buildDir(name), { recursive: true, force: true });
    const first = await ensureBuilt(name, opts);
    expect(first).toMatchObject({ built: true });
    expect(runs()).toBe(1);
    const entry = join(store, "build", name, first!.key);
    expect(JSON.parse(readFileSync(join(entry, ".sfbench-build.json"), "utf8"))).toMatchObject({ key: first!.key });
    accessSync(join(entry, "bin", "app"), constants.X_OK);
    expect(statSync(entry).mode & 0o777).toBe(statSync(buildDir(name)).mode & 0o777);
    expect(messages.join("\n")).toMatch(/kept the build [0-9a-f]{12} in the machine's store/);
  });

  it("copies the stored build into a clone that lacks it, without running the command", async () => {
    rmSync(buildDir(name), { recursive: true, force: true });
    const reused = await ensureBuilt(name, opts);
    expect(reused).toMatchObject({ built: false, reusedFrom: join(store, "build", name, reused!.key) });
    expect(runs()).toBe(1);
    expect(app()).toBe("v1"); // exec bit kept
    expect(messages.join("\n")).toMatch(new RegExp(`stored-build: reused the machine's build ${reused!.key.slice(0, 12)} \\(built 20`));
    // the clone's stamp, written after the copy, makes the next call answer at once
    expect(await ensureBuilt(name, opts)).toMatchObject({ built: false, seconds: 0 });
  });

  it("builds again when an input changed, and keeps both keys", async () => {
    writeFileSync(source, "v2\n");
    const changed = await ensureBuilt(name, opts);
    expect(changed?.built).toBe(true);
    expect(runs()).toBe(2);
    expect(app()).toBe("v2");
    expect(keysInStore()).toHaveLength(2);
  });

  it("builds when forced, even though the store holds the key", async () => {
    const forced = await ensureBuilt(name, { ...opts, force: true });
    expect(forced?.built).toBe(true);
    expect(runs()).toBe(3);
    expect(keysInStore()).toContain(forced!.key);
  });

  it(`keeps at most ${KEEP} keys per target, the most recently used`, async () => {
    const keys: string[] = [];
    for (const v of ["v3", "v4", "v5"]) {
      writeFileSync(source, `${v}\n`);
      keys.push((await ensureBuilt(name, opts))!.key);
    }
    expect(keysInStore().sort()).toEqual(keys.sort());
    expect(readdirSync(join(store, "build", name)).filter((n) => n.startsWith("."))).toEqual([]); // no copies left behind
  });

  it("only warns when the store cannot be written, and the build stands", async () => {
    const blocked = join(root, "not-a-directory");
    writeFileSync(blocked, "");
    writeFileSync(source, "v6\n");
    const result = await ensureBuilt(name, { ...opts, cacheDir: join(blocked, "store") });
    expect(result?.built).toBe(true);
    expect(app()).toBe("v6");
    expect(messages.join("\n")).toMatch(/warning: stored-build: could not keep the build in the machine's store .*not-a-directory/);
    expect(existsSync(join(buildDir(name), ".sfbench-build.json"))).toBe(true);
  });
});
