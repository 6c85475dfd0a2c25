/**
 * Images on real podman, with a one-file fixture target (its context is its
 * own folder, so nothing else in the checkout changes its digest): built
 * offline on the local Node base, cached by its context's digest, rebuilt
 * when forced, saved to an archive under a team's name and loaded back as an
 * upload would be (an archive naming sfbench's own build refused unloaded);
 * started as a container that runs as the image's user with /data writable.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { freePort } from "@sfbench/core/ports";
import { loadImageArchive, requireImage } from "../src/archive.ts";
import { imageExists } from "../src/bases.ts";
import { runContainers, startContainerTarget, teardownRun } from "../src/container.ts";
import { buildTargetImage } from "../src/image.ts";
import { podman } from "../src/podman.ts";

const targetsRoot = fileURLToPath(new URL("./fixtures", import.meta.url));
const runId = `test-${randomUUID().slice(0, 8)}`;
const dir = mkdtempSync(join(tmpdir(), "sfbench-image-"));

afterAll(async () => {
  await teardownRun(runId);
  rmSync(dir, { recursive: true, force: true });
});

describe("a target's image", () => {
  it("is built offline, cached by its context, rebuilt when forced, and survives a save and load", async () => {
    const first = await buildTargetImage("hello", { targetsRoot });
    expect(first.ref).toBe("localhost/sfbench/hello:0.0.1");
    const again = await buildTargetImage("hello", { targetsRoot });
    expect(again).toEqual({ ...first, built: false });
    const forced = await buildTargetImage("hello", { targetsRoot, force: true });
    expect(forced).toMatchObject({ built: true, digest: first.digest });

    // as a team would submit it: under its system's name
    const team = `localhost/a-team/hello:${randomUUID().slice(0, 8)}`;
    await podman(["tag", first.ref, team]);
    const archive = join(dir, "hello.tar");
    await podman(["save", "--output", archive, team]);
    const own = join(dir, "own.tar");
    await podman(["save", "--output", own, first.ref]);
    await podman(["rmi", "--force", first.ref, team]);
    expect(await imageExists(first.ref)).toBe(false);
    await expect(requireImage(team)).rejects.toThrow(/is not in sfbench's podman storage.*sfbench image build/);
    // an archive that names sfbench's own build is refused before anything is loaded: loading it would replace that build for everybody
    await expect(loadImageArchive(own, "sfbench")).rejects.toThrow(
      /names localhost\/sfbench\/hello:0\.0\.1, in localhost\/sfbench\/ or localhost\/sfbench-base\/, which sfbench keeps for its own builds/,
    );
    expect(await imageExists(first.ref)).toBe(false);
    // and one that names another system's image, before anything is loaded: loading it would move that system's name
    await expect(loadImageArchive(archive, "b-team")).rejects.toThrow(
      `names ${team}, outside the namespace of the system "b-team": an image archive of "b-team" may only name localhost/b-team:<tag> or localhost/b-team/<image>:<tag>`,
    );
    expect(await imageExists(team)).toBe(false);
    expect(await loadImageArchive(archive, "a-team")).toContain(team);
    await requireImage(team);
    await podman(["rmi", team]);
  });

  it("runs as the image's user on a loopback port, with /data its own, and leaves nothing after teardown", async () => {
    // the manifest's port, when the run is given none
    const manifest = { ...findTarget("hello", targetsRoot).manifest, port: await freePort() };
    const image = (await buildTargetImage("hello", { targetsRoot })).ref;
    const started = await startContainerTarget({ runId, image, manifest, machine: { name: "test", cpus: 0.5, memoryBytes: 256 * 2 ** 20 } });
    expect(started.url).toBe(`http://127.0.0.1:${manifest.port}`);
    // every address of the run's pod: its port is published to the pod's side of the bridge
    expect(await (await fetch(started.url)).json()).toEqual({ uid: 1000, host: "0.0.0.0" });
    expect(await runContainers(runId)).toEqual([`sfbench-${runId}-node-0`]);
    await teardownRun(runId);
    expect(await runContainers(runId)).toEqual([]);
    await expect(fetch(started.url)).rejects.toThrow();
  });
});
