/**
 * Ports for a process that binds them later: every sfbench process that hands
 * a port to a child (the services, the providers, k6, a target's own launcher
 * inside its image) chooses it here, so they share one lease and one range.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** Every port sfbench hands out is on the loopback address. */
const HOST = "127.0.0.1";

/** The first port of the kernel's ephemeral range (what listen(0) and outgoing connections take). */
export function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low >= 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Whether a listener can bind `port` on the loopback address right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

/** A port the kernel hands out for listen(0), released again. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * How long a port handed out stays promised to whoever asked for it. A
 * PostgreSQL binds its port only after initdb, which takes tens of seconds
 * on a loaded machine; meanwhile the port is free, and another process of
 * sfbench (the other test lane, a second campaign) would be handed it too.
 */
export const PORT_LEASE_MS = 10 * 60_000;

/** Where the leases of all sfbench processes on this machine are kept. */
export function portLeaseDir(): string {
  return process.env.SFBENCH_PORT_LEASES ?? path.join(tmpdir(), "sfbench-port-leases");
}

/**
 * Takes the lease on `port` for this process: false when another one holds
 * it. A lease file is created exclusively; an expired one is moved aside by
 * rename, which only one of two processes racing for it can do.
 */
function lease(port: number): boolean {
  const dir = portLeaseDir();
  const file = path.join(dir, String(port));
  const take = (): boolean => {
    try {
      closeSync(openSync(file, "wx"));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return true; // no lease directory to write to: the bind check alone decides
      mkdirSync(dir, { recursive: true });
      return take();
    }
  };
  if (take()) return true;
  let expired: boolean;
  try {
    expired = Date.now() - statSync(file).mtimeMs > PORT_LEASE_MS;
  } catch {
    expired = true; // its holder just moved it aside
  }
  if (!expired) return false;
  try {
    renameSync(file, `${file}.expired-${process.pid}`);
    unlinkSync(`${file}.expired-${process.pid}`);
  } catch {
    return false; // another process took it first
  }
  return take();
}

/**
 * A free port to hand to a process that binds it later (a service, a target
 * node, k6's API, a portal). It comes from the 10,000 ports below the
 * kernel's ephemeral range: a port from listen(0), released for the child,
 * could meanwhile become an outgoing connection's source port or another
 * listen(0)'s port, and the child would exit with "address in use"; a node
 * killed and restarted on it could also see a connection to itself. A port
 * handed out is leased (PORT_LEASE_MS) so that no other sfbench process is
 * handed it before its child has bound it. Falls back to the kernel's
 * choice when the ports below the range are taken.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.max(1025, high - 9999);
  for (let i = 0; i < 50; i++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if ((await portFree(port)) && lease(port)) return port;
  }
  return kernelPort();
}
