/**
 * The pieces of a run's own network that need no podman: reading back the
 * host firewall's rules to remove a run's fence, and the data services a run
 * from an image can be given.
 */
import { describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { requireRunServices } from "../src/container.ts";
import { splitRule } from "../src/run-network.ts";

describe("a run's fence on the host's firewall", () => {
  it("reads an `iptables -S` line back into the words that delete it, the comment kept whole", () => {
    expect(splitRule('-A FORWARD -i podman3 ! -o podman3 -m comment --comment "sfbench run r-1" -j DROP')).toEqual([
      "-A",
      "FORWARD",
      "-i",
      "podman3",
      "!",
      "-o",
      "podman3",
      "-m",
      "comment",
      "--comment",
      "sfbench run r-1",
      "-j",
      "DROP",
    ]);
  });
});

describe("the data services of a run from an image", () => {
  it("gives its own PostgreSQL and refuses the shared Kafka or Redis, naming the field and what is allowed", () => {
    expect(() => requireRunServices(findTarget("node-postgres").manifest)).not.toThrow();
    expect(() => requireRunServices(findTarget("durable-objects").manifest)).not.toThrow();
    expect(() => requireRunServices(findTarget("statefun").manifest)).toThrow(/^services: kafka cannot be given to a run from an image \(allowed: postgres\)/);
  });
});
