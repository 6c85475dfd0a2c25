/**
 * A bundled target as a folder's own tests start it: through
 * @sfbench/provider-local from its target.json, as a run does, with the
 * requests and its log at hand. provider-local keeps one running instance per
 * target name, so an instance a crashed earlier test run left is stopped first.
 */
import { readFileSync } from "node:fs";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, type Answer } from "./http.ts";

export interface TestTarget {
  started: StartedTarget;
  url: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** the target's stdout + stderr so far (the provider's log file) */
  log(): string;
  stop(): Promise<void>;
}

export async function startForTest(name: string, port: number, opts: { trace?: boolean; keepData?: boolean } = {}): Promise<TestTarget> {
  await stopTarget(name);
  const started = await startTarget(name, { port, trace: opts.trace ?? false, keepData: opts.keepData ?? false });
  const url = started.url;
  return {
    started,
    url,
    call: (method, path, body, headers) => call(url, method, path, body, headers),
    log: () => readFileSync(started.log, "utf8"),
    stop: async () => void (await stopTarget(name)),
  };
}
