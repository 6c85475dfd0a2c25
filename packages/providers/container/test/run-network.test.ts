/**
 * The pieces of a run's own network and disk that need no podman: reading
 * back the host firewall's rules to remove a run's fence, the data services
 * a run from an image can be given, and the disk quota's setting.
 */
import { describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { requireRunServices } from "../src/container.ts";
import { splitRule } from "../src/run-network.ts";
import { DEFAULT_RUN_DISK_MIB, runDiskMib } from "../src/run-volume.ts";

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

describe("a run's disk quota", () => {
  it("is SFBENCH_RUN_DISK_MIB in MiB, 4096 unless set, and refuses anything but a size, naming the variable and what is allowed", () => {
    expect(runDiskMib(undefined)).toBe(DEFAULT_RUN_DISK_MIB);
    expect(runDiskMib("")).toBe(DEFAULT_RUN_DISK_MIB);
    expect(runDiskMib("128")).toBe(128);
    for (const bad of ["1g", "12", "-5", "1.5"])
      expect(() => runDiskMib(bad)).toThrow(/^SFBENCH_RUN_DISK_MIB: ".*" is not a size in MiB \(allowed: an integer from 64 to 1048576\)$/);
  });
});
