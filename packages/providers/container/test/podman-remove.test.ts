/**
 * A removal that meets a busy mount is tried again, and only then: the
 * runner here stands in for podman and fails as podman 4.3 does when a
 * container being created elsewhere still holds a copy of the removed
 * one's /dev/shm.
 */
import { describe, expect, it } from "vitest";
import { PodmanError, podmanRemove, type PodmanRun } from "../src/podman.ts";

const busy = new PodmanError(
  "podman pod rm --force failed: Error: 1 error occurred:\n\t* unlinkat /s/overlay-containers/f95d/userdata/shm: device or resource busy",
);

/** A runner that fails with each of `failures` in turn, then succeeds; it records every call. */
function runner(failures: Error[]) {
  const calls: string[][] = [];
  const run = async (args: string[]): Promise<PodmanRun> => {
    calls.push(args);
    const failure = failures.shift();
    if (failure) throw failure;
    return { stdout: "", stderr: "" };
  };
  return { run, calls };
}

describe("a podman removal", () => {
  it("is tried again while a mount of the removed container is busy, until it succeeds", async () => {
    const { run, calls } = runner([busy, busy]);
    await podmanRemove(["pod", "rm", "--force", "p"], {}, run);
    expect(calls).toEqual([
      ["pod", "rm", "--force", "p"],
      ["pod", "rm", "--force", "p"],
      ["pod", "rm", "--force", "p"],
    ]);
  });

  it("throws any other failure at once", async () => {
    const other = new PodmanError("podman pod rm --force failed: Error: no pod with name or ID p found");
    const { run, calls } = runner([other]);
    await expect(podmanRemove(["pod", "rm", "--force", "p"], {}, run)).rejects.toBe(other);
    expect(calls).toHaveLength(1);
  });
});
