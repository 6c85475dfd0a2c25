/**
 * Debian's Chromium for browser tests (playwright-core drives it): /usr/bin/chromium,
 * or on PATH; else installed with apt-get when running as root (idempotent), else a
 * MissingPrerequisiteError that says what to run.
 */
import { env } from "./env.ts";
import { withLock } from "./lock.ts";
import { findExecutable, run } from "./process.ts";
import { MissingPrerequisiteError, type Progress } from "./types.ts";

const NAMES = ["chromium", "chromium-browser"];

function find(): string | undefined {
  for (const pathEnv of ["/usr/bin", env.PATH]) {
    for (const name of NAMES) {
      const found = findExecutable(name, pathEnv);
      if (found) return found;
    }
  }
  return undefined;
}

/** The Chromium executable, installed first when missing and possible. */
export async function chromiumPath(progress?: Progress): Promise<string> {
  const found = find();
  if (found) return found;
  const aptGet = findExecutable("apt-get", env.PATH);
  if (process.getuid?.() !== 0 || !aptGet) {
    throw new MissingPrerequisiteError("chromium not found: run `sudo apt-get install -y chromium`");
  }
  return withLock("chromium", 1_000_000, async () => {
    const again = find();
    if (again) return again;
    progress?.("installing chromium with apt-get");
    const aptEnv = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const install = () => run(aptGet, ["install", "-y", "--no-install-recommends", "chromium"], { env: aptEnv, timeoutMs: 900_000 });
    await install().catch(async () => {
      await run(aptGet, ["update"], { env: aptEnv, timeoutMs: 600_000 });
      await install();
    });
    const installed = find();
    if (!installed) throw new MissingPrerequisiteError("apt-get installed chromium but it is not on PATH");
    return installed;
  });
}
