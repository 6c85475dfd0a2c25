import { accessSync, chmodSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { ensureK6, storedK6 } from "../src/k6.ts";
import { MissingPrerequisiteError } from "../src/types.ts";

// No real k6 and no real Go: a fake k6 is a script that prints the pinned
// version, a fake go "installs" one into GOBIN and counts its calls.
const root = mkdtempSync(path.join(tmpdir(), "sfbench-k6-cache-"));
// like the real one, it names itself by the name it was started with
const fakeK6 = (version: string) => `#!/bin/sh\necho "$(basename "$0") ${version} (fake, linux/amd64)"\n`;
const executable = (file: string, text: string) => {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
};

const noTools = path.join(root, "empty-path"); // a PATH with neither k6 nor go
mkdirSync(noTools);
const withGo = path.join(root, "go-path");
const goCalls = path.join(root, "go-calls.log");
const built = path.join(root, "k6-as-built");
executable(built, fakeK6("v1.8.1"));
executable(path.join(withGo, "go"), `#!/bin/sh\necho "$*" >> ${goCalls}\nmkdir -p "$GOBIN"\ncp ${built} "$GOBIN/k6"\n`);

let n = 0;
/** A fresh clone's view: an empty GOBIN of its own. */
const fresh = () => path.join(root, `clone-${++n}`, "bin");
let messages: string[] = [];
const progress = (m: string) => messages.push(m);

beforeEach(() => {
  messages = [];
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe("k6 from the machine's store", () => {
  it("names the stored k6 by version and platform", () => {
    expect(path.relative(root, storedK6(root))).toMatch(/^bin\/k6-v1\.8\.1-[a-z0-9]+-[a-z0-9]+\/k6$/);
  });

  it("copies the stored k6 of the pinned version into the clone, with neither k6 nor Go on PATH", async () => {
    const store = path.join(root, "store-reuse");
    executable(storedK6(store), fakeK6("v1.8.1"));
    const gobin = fresh();
    const k6 = await ensureK6({ pathEnv: noTools, gobin, cacheDir: store }, progress);
    expect(k6).toBe(path.join(gobin, "k6"));
    accessSync(k6, constants.X_OK);
    expect(messages.join("\n")).toContain(`reused the machine's k6 v1.8.1 (${storedK6(store)})`);
  });

  it("ignores a stored k6 of another version", async () => {
    const store = path.join(root, "store-other");
    executable(storedK6(store), fakeK6("v0.49.0"));
    await expect(ensureK6({ pathEnv: noTools, gobin: fresh(), cacheDir: store }, progress)).rejects.toThrow(MissingPrerequisiteError);
  });

  it("keeps what go install built in the store, so the next clone does not build", async () => {
    const store = path.join(root, "store-build");
    const first = await ensureK6({ pathEnv: withGo, gobin: fresh(), cacheDir: store }, progress);
    expect(readFileSync(goCalls, "utf8").trim().split("\n")).toHaveLength(1);
    expect(readFileSync(storedK6(store), "utf8")).toBe(readFileSync(first, "utf8"));
    expect(messages.join("\n")).toContain(`kept k6 in the machine's store (${storedK6(store)})`);
    await ensureK6({ pathEnv: withGo, gobin: fresh(), cacheDir: store }, progress);
    expect(readFileSync(goCalls, "utf8").trim().split("\n")).toHaveLength(1);
  });

  it("only warns when the store cannot be written", async () => {
    const blocked = path.join(root, "not-a-directory");
    writeFileSync(blocked, "");
    const k6 = await ensureK6({ pathEnv: withGo, gobin: fresh(), cacheDir: path.join(blocked, "store") }, progress);
    expect(existsSync(k6)).toBe(true);
    expect(messages.join("\n")).toMatch(/warning: could not keep k6 in the machine's store .*not-a-directory/);
  });
});
