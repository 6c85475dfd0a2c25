/**
 * Vitest global setup of every package: the scratch folders the tests make
 * under os.tmpdir() (databases' dumps, result folders, image archives of
 * hundreds of MB, Chromium profiles) go into one folder per package run,
 * removed when the run ends. A test run leaves the machine's /tmp as it
 * found it, whether or not each test cleans up after itself, and a run that
 * is killed leaves one folder named for it instead of a hundred.
 *
 * The test workers, and every process they start, inherit TMPDIR from the
 * process that runs this setup.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SCRATCH_PREFIX = "sfbench-tests-";

export function setup(): () => void {
  const previous = process.env.TMPDIR;
  const scratch = mkdtempSync(join(tmpdir(), SCRATCH_PREFIX));
  // open to every user as /tmp is: PostgreSQL runs as its own system user and must reach the folders the tests give it
  chmodSync(scratch, 0o1777);
  process.env.TMPDIR = scratch;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  };
}
