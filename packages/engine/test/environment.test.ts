/** The environment fingerprint of a local run (SPEC 6), with the target's storage settings. */
import { describe, expect, it } from "vitest";
import { Environment } from "@sfbench/core";
import { k6Path } from "@sfbench/services";
import { localEnvironment } from "../src/experiment/environment.ts";

describe("the environment fingerprint", () => {
  it("records the target's storage settings as given, and validates", async () => {
    const storage = { postgres: { instance: "dedicated" as const, fsync: "on", synchronous_commit: "on", full_page_writes: "on", version: "17.5" } };
    const env = localEnvironment({ k6: await k6Path(), repoRoot: process.cwd(), storage });
    expect(env.storage).toEqual(storage);
    expect(Environment.safeParse(env).success).toBe(true);
  });

  it("has no storage entry when the target uses no storage of sfbench's", async () => {
    const env = localEnvironment({ k6: await k6Path(), repoRoot: process.cwd() });
    expect("storage" in env).toBe(false);
    expect(env.k6Version).toMatch(/^v\d+\.\d+\.\d+$/);
  });
});
