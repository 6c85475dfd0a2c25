import { describe, expect, it } from "vitest";
import { PROFILE_SETTINGS } from "@sfbench/engine";
import { DEFAULT_PROFILE, SubmitInput } from "../src/shared/submit.ts";

describe("submission defaults", () => {
  it("a submission without a profile gets a publishable one (its knee is bisected, so the leaderboard can rank it)", () => {
    const input = SubmitInput.parse({ name: "x", system: "X", version: "0.1.0", manifest: "{}" });
    expect(input.profile).toBe(DEFAULT_PROFILE);
    expect(PROFILE_SETTINGS[input.profile].knee.fineSteps).toBeGreaterThan(0);
    expect(PROFILE_SETTINGS[input.profile].knee.resolution).toBeLessThanOrEqual(0.1);
  });
});
