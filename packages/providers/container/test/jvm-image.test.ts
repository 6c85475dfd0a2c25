/**
 * A JVM target's image on real podman: pekko's Dockerfile built offline from
 * the host's Maven build (its jars passed as the `host-build` context, the
 * Maven stage skipped) on the local Java 17 stand-in, cached by the host
 * build's key and its context; started as a container beside its own
 * PostgreSQL, verified by the conformance suite, torn down with nothing left.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runConformance } from "@sfbench/conformance";
import { ensureBuilt } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { freePort } from "@sfbench/core/ports";
import { buildTargetImage } from "../src/image.ts";
import { podman } from "../src/podman.ts";
import { runContainers, startContainerTarget, teardownRun } from "../src/container.ts";
import { JRE_BASE } from "../src/jre-bases.ts";

const runId = `test-${randomUUID().slice(0, 8)}`;
const { manifest } = findTarget("pekko");
const machine = { name: "test-1cpu-1gib", cpus: 1, memoryBytes: 2 ** 30 };

afterAll(async () => {
  await teardownRun(runId);
});

describe("pekko from its image, built from the host's Maven build", () => {
  it("builds offline on the Java stand-in, answers the conformance suite from the container and is torn down", async () => {
    const host = await ensureBuilt("pekko", { onProgress: (m) => console.log(m) });
    const built = await buildTargetImage("pekko", { onProgress: (m) => console.log(m) });
    expect(built.ref).toBe(`localhost/sfbench/pekko:${manifest.version}`);
    expect((await buildTargetImage("pekko")).built).toBe(false);
    // the jar in the image is the host build's, byte for byte
    const inImage = (await podman(["run", "--rm", "--network=none", "--entrypoint", "sha256sum", built.ref, "/opt/pekko/pekko-app.jar"])).stdout.split(" ")[0];
    const onHost = createHash("sha256")
      .update(readFileSync(join(host!.dir, "pekko-app.jar")))
      .digest("hex");
    expect(inImage).toBe(onHost);
    expect((await podman(["image", "inspect", "--format", "{{.Id}}", JRE_BASE])).stdout.trim()).not.toBe("");

    const PORT = await freePort();
    const started = await startContainerTarget({ runId, image: built.ref, manifest, machine, port: PORT, trace: false, onProgress: (m) => console.log(m) });
    expect(started.url).toBe(`http://127.0.0.1:${PORT}`);
    const report = await runConformance(started.url, { micro: false });
    expect(
      report.failed,
      report.checks
        .filter((c) => !c.passed)
        .map((c) => c.id)
        .join(", "),
    ).toBe(0);

    await teardownRun(runId);
    expect(await runContainers(runId)).toEqual([]);
  });
});
