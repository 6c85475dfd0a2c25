import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildDir, ensureBuilt, expandArgs } from "../src/build.ts";
import { runningTarget, startTarget, stopTarget } from "../src/run.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
// a private copy, so the test can change a build input
const root = mkdtempSync(join(tmpdir(), "sfbench-build-"));
cpSync(join(fixtures, "builds"), join(root, "builds"), { recursive: true });
cpSync(join(fixtures, "build-fails"), join(root, "build-fails"), { recursive: true });
const opts = { targetsRoot: root };

afterAll(async () => {
  await stopTarget("builds");
  rmSync(root, { recursive: true, force: true });
  rmSync(buildDir("builds"), { recursive: true, force: true });
  rmSync(buildDir("build-fails"), { recursive: true, force: true });
});

describe("the build step of a target (target.json build)", () => {
  it("builds once, reuses the cached build while the inputs are unchanged, and rebuilds when one changes", async () => {
    const first = await ensureBuilt("builds", { ...opts, force: true });
    expect(first?.built).toBe(true);
    const again = await ensureBuilt("builds", opts);
    expect(again).toMatchObject({ built: false, key: first!.key });
    writeFileSync(join(root, "builds", "src", "b.txt"), "v2\n");
    const changed = await ensureBuilt("builds", opts);
    expect(changed?.built).toBe(true);
    expect(changed?.key).not.toBe(first!.key);
  });

  it("starts the target with SFBENCH_BUILD_DIR pointing at what was built", async () => {
    const t = await startTarget("builds", opts);
    expect(await (await fetch(t.url + "/")).text()).toBe("v1+v2");
    await stopTarget("builds");
    expect(runningTarget("builds")).toBeUndefined();
  });

  it("fails a start whose build fails, with the command's last log lines, and caches nothing", async () => {
    await expect(startTarget("build-fails", opts)).rejects.toThrow(/building build-fails failed \(exit code 2\).*\n.*compile error: missing semicolon/s);
    expect(existsSync(join(buildDir("build-fails"), ".sfbench-build.json"))).toBe(false);
    expect(runningTarget("build-fails")).toBeUndefined();
  });

  it("expands $SFBENCH_BUILD_DIR and ${SFBENCH_DATA_DIR} in argv, and nothing else", () => {
    expect(
      expandArgs(["-jar", "$SFBENCH_BUILD_DIR/app.jar", "--data=${SFBENCH_DATA_DIR}", "$HOME"], { SFBENCH_BUILD_DIR: "/b", SFBENCH_DATA_DIR: "/d" }),
    ).toEqual(["-jar", "/b/app.jar", "--data=/d", "$HOME"]);
  });

  it("needs nothing for a target without a build", async () => {
    expect(await ensureBuilt("healthy", { targetsRoot: fixtures })).toBeUndefined();
  });
});
