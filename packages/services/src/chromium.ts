/**
 * Debian's Chromium for browser tests (playwright-core drives it): /usr/bin/chromium,
 * or on PATH; else installed with apt-get when running as root (idempotent), else a
 * MissingPrerequisiteError that says what to run.
 */
import { env } from "./env.ts";
import { aptInstall } from "./apt.ts";
import { findExecutable } from "./process.ts";
import type { Progress } from "./types.ts";

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
  await aptInstall(["chromium"], { present: () => find() !== undefined, why: "the browser tests drive chromium", noRecommends: true, progress });
  return find()!;
}
