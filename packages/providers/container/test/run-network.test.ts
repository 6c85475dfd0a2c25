/**
 * The pieces of a run's own network and disk that need no container: a dead
 * run's port forwards on the host's real firewall, one whose network podman
 * still holds refused to a run that asks for its port, and freePort stepping
 * around them (reading the listings is tested in @sfbench/core, with the
 * ports), the data services a run from an image can be given, the disk
 * quota's setting and the host ids of a run's user namespace.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ephemeralLow, forwardedPorts, freePort, portFree } from "@sfbench/core/ports";
import { describe, expect, it, vi } from "vitest";
import { findTarget, TargetBusyError } from "@sfbench/catalogue";
import { runDir, startContainerTarget, userNamespaceBase } from "../src/container.ts";
import { podman } from "../src/podman.ts";
import { forwardsOf, removeStaleForwards } from "../src/run-network.ts";
import { testForwards } from "./port-forwards.ts";
import { DEFAULT_RUN_DISK_MIB, runDiskMib } from "../src/run-volume.ts";

const machine = { name: "test-1cpu-512mib", cpus: 1, memoryBytes: 512 * 2 ** 20 };

describe("a dead run's port forwards", () => {
  it("are removed from the host's firewall for the ports a new run publishes, and nothing else is", async () => {
    const forwards = testForwards();
    const { tag, nat, tryNat } = forwards;
    const [port, otherPort] = [await freePort(), await freePort()];
    const dead = `sfbench-test-dead-${tag}`;
    const deadChain = `SFB-DN-DEAD-${tag}`;
    try {
      forwards.forward(port, dead, deadChain);
      // not sfbench's: another tool's container on this machine
      forwards.forward(port, `other-tool-${tag}`, `SFB-DN-FOREIGN-${tag}`);
      // sfbench's and dead too, but on a port this run does not publish
      forwards.forward(otherPort, `sfbench-test-dead2-${tag}`, `SFB-DN-OTHER-${tag}`);
      expect(await removeStaleForwards([port])).toEqual([dead]);
      const left = nat("-S", "NETAVARK-HOSTPORT-DNAT");
      expect(left).not.toContain(`dnat name: ${dead} `);
      expect(left).toContain(`dnat name: other-tool-${tag} `);
      expect(left).toContain(`dnat name: sfbench-test-dead2-${tag} `);
      expect(tryNat("-S", deadChain)).toBeUndefined();
      // nothing left to remove: the same call again changes nothing
      expect(await removeStaleForwards([port])).toEqual([]);
    } finally {
      forwards.removeAll();
    }
  });
});

describe("a port forwarded to a network podman still holds", () => {
  it("is refused to a run, naming the network, and taken back once that network is removed", async () => {
    const forwards = testForwards();
    const port = await freePort();
    // a run killed with its processes but not its network: podman holds the network, the kernel its forward
    const held = `sfbench-test-held-${forwards.tag}`;
    const runId = `test-held-${forwards.tag}`;
    try {
      await podman(["network", "create", "--disable-dns", held]);
      forwards.forward(port, held, `SFB-DN-HELD-${forwards.tag}`);
      expect(await removeStaleForwards([port])).toEqual([]);
      const start = startContainerTarget({ runId, image: "localhost/sfbench/none:0", manifest: findTarget("node-postgres").manifest, machine, port });
      await expect(start).rejects.toThrow(TargetBusyError);
      await expect(start).rejects.toThrow(`port ${port} on 127.0.0.1 is forwarded to podman network ${held}; choose another port`);
      expect(existsSync(runDir(runId))).toBe(false);
      await podman(["network", "rm", "--force", held]);
      expect(await removeStaleForwards([port])).toEqual([held]);
      expect(await forwardsOf(port)).toEqual([]);
    } finally {
      await podman(["network", "rm", "--force", held]).catch(() => undefined);
      forwards.removeAll();
    }
  });
});

describe("a port the kernel forwards to a container", () => {
  it("is never handed out by freePort, though a bind on it succeeds", async () => {
    const forwards = testForwards();
    const [forwarded, other] = [await freePort(), await freePort()];
    // both ports are leased to this process now: a lease directory of its own leaves only the forward in the way
    const saved = process.env.SFBENCH_PORT_LEASES;
    process.env.SFBENCH_PORT_LEASES = mkdtempSync(join(tmpdir(), "sfbench-leases-"));
    const low = Math.max(1025, ephemeralLow() - 10_000);
    const span = ephemeralLow() - low;
    // the first two draws name the forwarded port, the next one another port
    const draws = [forwarded, forwarded, other].map((p) => (p - low + 0.5) / span);
    const random = vi.spyOn(Math, "random").mockImplementation(() => draws.shift() ?? 0.5);
    try {
      // what a dead run's forward looks like: its container's address long gone
      forwards.forward(forwarded, `sfbench-test-dead-${forwards.tag}`, `SFB-DN-PORTS-${forwards.tag}`);
      expect(await portFree(forwarded)).toBe(true);
      expect((await forwardedPorts(0)).has(forwarded)).toBe(true);
      expect(await freePort()).toBe(other);
    } finally {
      random.mockRestore();
      if (saved === undefined) delete process.env.SFBENCH_PORT_LEASES;
      else process.env.SFBENCH_PORT_LEASES = saved;
      forwards.removeAll();
    }
    expect((await forwardedPorts(0)).has(forwarded)).toBe(false);
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

describe("a run's user namespace", () => {
  it("maps onto a block of 65536 host ids above every account's, the same for every node and restart of a run", () => {
    const ids = ["r-1", "r-2", "campaign-7-round-3", "0b6f9a52-6f0e-4f0e-9a57-2a1b9f1b2c3d"];
    const bases = ids.map(userNamespaceBase);
    for (const base of bases) {
      expect(base).toBeGreaterThanOrEqual(2 ** 24);
      expect((base - 2 ** 24) % 65536).toBe(0);
      // the last id of the block still fits a 32-bit uid, below the kernel's "no id" (2^32 - 1)
      expect(base + 65535).toBeLessThan(2 ** 32 - 1);
    }
    expect(new Set(bases).size).toBe(ids.length);
    expect(ids.map(userNamespaceBase)).toEqual(bases);
  });
});
