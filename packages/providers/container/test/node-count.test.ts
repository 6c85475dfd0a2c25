/**
 * A node count the manifest does not declare is refused before anything
 * starts (no podman needed), with the field to change.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findTarget, TargetError } from "@sfbench/catalogue";
import { runDir, startContainerTarget } from "../src/container.ts";

const { manifest } = findTarget("node-postgres");
const machine = { name: "test-1cpu-512mib", cpus: 1, memoryBytes: 512 * 2 ** 20 };
const start = (m: typeof manifest, nodes: number) =>
  startContainerTarget({ runId: `test-count-${randomUUID().slice(0, 8)}`, image: "localhost/sfbench/none:0", manifest: m, machine, port: 19620, nodes });

describe("the node count of a container run", () => {
  it("refuses more nodes than target.json nodes.max, and none", async () => {
    await expect(start(manifest, manifest.nodes!.max + 1)).rejects.toThrow(
      new TargetError(`nodes: node-postgres supports at most ${manifest.nodes!.max} nodes (target.json nodes.max)`),
    );
    await expect(start(manifest, 0)).rejects.toThrow(/nodes: 0 is not a node count \(allowed: an integer from 1 to 4\)/);
  });

  it("refuses nodes for a manifest that declares none", async () => {
    const single = { ...manifest, name: "single", nodes: undefined };
    await expect(start(single, 2)).rejects.toThrow(/single is a single-process target \(its target.json declares no nodes\), so it runs as 1 node only/);
  });

  it("leaves no state behind when it refuses", async () => {
    const runId = `test-count-${randomUUID().slice(0, 8)}`;
    await expect(startContainerTarget({ runId, image: "localhost/sfbench/none:0", manifest, machine, port: 19620, nodes: 9 })).rejects.toThrow(TargetError);
    expect(existsSync(runDir(runId))).toBe(false);
  });
});
