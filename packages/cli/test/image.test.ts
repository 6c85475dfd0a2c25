/**
 * The command line of the container provider: `sfbench image build` and
 * `sfbench run --image` refuse what they cannot do with exit 2 and a message
 * naming the flag, before anything is built or started. (Building and
 * running on real podman: packages/providers/container's tests.)
 */
import { describe, expect, it } from "vitest";
import { sfbenchInProcess } from "./helpers.ts";

describe("sfbench image and run --image usage", () => {
  // each row only reads its flags: the CLI's main in this process, as the shell would see it (help.test.ts starts the entry point)
  it.each([
    [["image", "build"], /sfbench image build: missing <name\.\.\.>; bundled targets: .*node-postgres/],
    [["image", "build", "nope"], /sfbench image build: unknown target nope; bundled targets: .*node-postgres/],
    [["image", "push"], /sfbench image: unknown subcommand "push"; allowed: build/],
    [["run", "--image", "localhost/x:1"], /--image needs exactly one of --manifest FILE or --target NAME/],
    [["run", "--image", "localhost/x:1", "--target", "node-postgres", "--manifest", "t.json"], /--image needs exactly one of --manifest FILE or --target NAME/],
    [["run", "--image", "localhost/x:1", "--url", "http://127.0.0.1:1"], /give exactly one of --url URL, --target NAME or --image REF/],
    [["run", "--target", "node-postgres", "--cpus", "1"], /--manifest, --cpus and --memory go with --image REF/],
    // an image runs as up to the manifest's nodes.max containers behind sfbench's balancer
    [
      ["run", "--image", "localhost/x:1", "--target", "node-postgres", "--nodes", "9"],
      /--nodes: 9 is not a node count node-postgres supports \(allowed: 1 to 4\)/,
    ],
    [["run", "--image", "localhost/x:1", "--target", "node-postgres", "--cpus", "0"], /--cpus: 0 is not a CPU quota/],
    [["run", "--image", "localhost/x:1", "--target", "node-postgres", "--memory", "lots"], /--memory: lots is not a memory limit/],
  ])("sfbench %j exits 2 with a one-line message", async (args, message) => {
    const r = await sfbenchInProcess(args);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
  });
});
