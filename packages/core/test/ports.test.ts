import net from "node:net";
import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ephemeralLow, freePort, parseForwards, PORT_LEASE_MS, portFree, portLeaseDir, splitRule } from "../src/ports.ts";

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("ports handed to a child process", () => {
  it("the ephemeral range's start is the kernel's", () => {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    expect(ephemeralLow()).toBe(low);
  });

  it("come from the 10,000 ports below the ephemeral range, and can be bound", async () => {
    const low = ephemeralLow();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeLessThan(low);
      expect(port).toBeGreaterThanOrEqual(Math.max(1025, low - 10_000));
    }
    const server = await listen(ports[0]!);
    try {
      expect(await portFree(ports[0]!)).toBe(false);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    expect(await portFree(ports[0]!)).toBe(true);
  });

  it("are not the port an outgoing connection was just given", async () => {
    // An outgoing connection's source port comes from the ephemeral range, so
    // a port handed out here cannot be one some connection already holds.
    const server = await listen(0);
    const { port: serverPort } = server.address() as net.AddressInfo;
    const client = net.connect(serverPort, "127.0.0.1");
    await new Promise((resolve) => client.once("connect", resolve));
    try {
      expect(client.localPort).toBeGreaterThanOrEqual(ephemeralLow());
      for (let i = 0; i < 20; i++) expect(await freePort()).not.toBe(client.localPort);
    } finally {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  // ten thousand lease files written and aged: seconds of file-system work on a loaded machine, not a timer
  it("are leased: one handed out is not handed out again, by this process or another, until its lease expires", { timeout: 60_000 }, async () => {
    const saved = process.env.SFBENCH_PORT_LEASES;
    process.env.SFBENCH_PORT_LEASES = mkdtempSync(join(tmpdir(), "sfbench-leases-"));
    try {
      const dir = portLeaseDir();
      const ports = await Promise.all(Array.from({ length: 200 }, () => freePort()));
      expect(new Set(ports).size).toBe(200);
      for (const port of ports) expect(existsSync(join(dir, String(port)))).toBe(true);
      // every port below the range leased by someone else: the kernel's choice, above it
      const low = ephemeralLow();
      const from = Math.max(1025, low - 10_000);
      for (let port = from; port < low; port++) writeFileSync(join(dir, String(port)), "");
      expect(await freePort()).toBeGreaterThanOrEqual(low);
      // the leases expired (their holders long gone): taken over, and the new lease is fresh
      const old = (Date.now() - PORT_LEASE_MS - 60_000) / 1000;
      for (let port = from; port < low; port++) utimesSync(join(dir, String(port)), old, old);
      const port = await freePort();
      expect(port).toBeLessThan(low);
      expect(Date.now() - statSync(join(dir, String(port))).mtimeMs).toBeLessThan(PORT_LEASE_MS);
    } finally {
      if (saved === undefined) delete process.env.SFBENCH_PORT_LEASES;
      else process.env.SFBENCH_PORT_LEASES = saved;
    }
  });
});

describe("the host's port forwards", () => {
  it("reads an `iptables -S` line back into its words, the comment kept whole", () => {
    expect(splitRule('-A FORWARD -i br3 ! -o br3 -m comment --comment "sfbench run r-1" -j DROP')).toEqual([
      "-A",
      "FORWARD",
      "-i",
      "br3",
      "!",
      "-o",
      "br3",
      "-m",
      "comment",
      "--comment",
      "sfbench run r-1",
      "-j",
      "DROP",
    ]);
  });

  // as netavark lists them: a run killed with its container storage left the first two on this machine
  const LISTING = [
    "-N NETAVARK-HOSTPORT-DNAT",
    '-A NETAVARK-HOSTPORT-DNAT -p tcp -m tcp --dport 19113 -m comment --comment "dnat name: sfbench-test-hostile-a07936b2 id: 05a3019d7c1a" -j NETAVARK-DN-200931B7B124E',
    '-A NETAVARK-HOSTPORT-DNAT -p udp -m udp --dport 19114 -m comment --comment "dnat name: sfbench-test-hostile-a07936b2 id: 05a3019d7c1a" -j NETAVARK-DN-200931B7B124E',
    '-A NETAVARK-HOSTPORT-DNAT -p tcp -m tcp --dport 8080 -m comment --comment "dnat name: other-tool id: 9f2c" -j NETAVARK-DN-1D8721804F16F',
  ].join("\n");

  it("are read from netavark's listing: port, network and chain, tcp only", () => {
    expect(parseForwards(LISTING).map(({ port, network, target }) => ({ port, network, target }))).toEqual([
      { port: 19113, network: "sfbench-test-hostile-a07936b2", target: "NETAVARK-DN-200931B7B124E" },
      { port: 8080, network: "other-tool", target: "NETAVARK-DN-1D8721804F16F" },
    ]);
    expect(parseForwards(LISTING)[0]!.rule).toEqual([
      "-p",
      "tcp",
      "-m",
      "tcp",
      "--dport",
      "19113",
      "-m",
      "comment",
      "--comment",
      "dnat name: sfbench-test-hostile-a07936b2 id: 05a3019d7c1a",
      "-j",
      "NETAVARK-DN-200931B7B124E",
    ]);
  });
});
