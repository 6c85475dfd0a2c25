import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diskBytes, watchServerDisk } from "../src/server-disk.ts";

const MiB = 2 ** 20;
const root = mkdtempSync(join(tmpdir(), "sfbench-server-disk-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Resolves once `check` holds, looking every 10 ms for at most 10 s. */
async function eventually(check: () => boolean): Promise<void> {
  for (const deadline = performance.now() + 10_000; !check();) {
    if (performance.now() > deadline) throw new Error("not within 10 s");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the disk of a run's servers", () => {
  it("counts what files hold on disk, through every directory: a sparse file its written part only, a missing path nothing", () => {
    const dir = join(root, "count");
    mkdirSync(join(dir, "a", "b"), { recursive: true });
    writeFileSync(join(dir, "a", "b", "written"), Buffer.alloc(3 * MiB, 1));
    const fd = openSync(join(dir, "a", "sparse"), "w");
    ftruncateSync(fd, 512 * MiB);
    closeSync(fd);
    const bytes = diskBytes(dir);
    expect(bytes).toBeGreaterThanOrEqual(3 * MiB);
    expect(bytes).toBeLessThan(4 * MiB);
    expect(diskBytes(join(root, "never-made"))).toBe(0);
  });

  it("stays quiet under the quota, tells once when its directories pass it, and ends when the run is gone", async () => {
    const [a, b] = [join(root, "watch-a"), join(root, "watch-b")];
    mkdirSync(a);
    const over: number[] = [];
    let running = true;
    let looks = 0;
    const watch = watchServerDisk({
      // b is made only later, as a server started after the run's first look
      dirs: () => (looks++, [a, b]),
      quotaMib: 2,
      running: () => running,
      onOver: (mib) => over.push(mib),
      intervalMs: 10,
    });
    writeFileSync(join(a, "one"), Buffer.alloc(1 * MiB, 1));
    await eventually(() => looks >= 5);
    expect(over).toEqual([]);
    mkdirSync(b);
    writeFileSync(join(b, "two"), Buffer.alloc(2 * MiB, 1));
    await eventually(() => over.length > 0);
    expect(over).toEqual([3]);
    // it does not look again once it told
    const seen = looks;
    await new Promise((r) => setTimeout(r, 100));
    expect(looks).toBe(seen);
    watch.stop();

    // a run torn down ends its watch at the next look, without a word
    let more = 0;
    watchServerDisk({ dirs: () => (more++, [a, b]), quotaMib: 1, running: () => (running = false), onOver: (mib) => over.push(mib), intervalMs: 10 });
    await eventually(() => running === false);
    await new Promise((r) => setTimeout(r, 100));
    expect(more).toBe(0);
    expect(over).toEqual([3]);
  });
});
