/**
 * Ports for a process that binds them later: every sfbench process that hands
 * a port to a child (the services, the providers, k6, a target's own launcher
 * inside its image) chooses it here, so they share one lease and one range.
 */
import { execFile } from "node:child_process";
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

/** netavark's chain of host port forwards: one jump per published port, commented with the network's name. */
export const HOSTPORT_CHAIN = "NETAVARK-HOSTPORT-DNAT";

/** A forward of one host port, as `iptables -t nat -S NETAVARK-HOSTPORT-DNAT` lists it. */
export interface PortForward {
  port: number;
  /** the network netavark made it for */
  network: string;
  /** the chain its DNAT rules are in */
  target: string;
  /** the rule's words after "-A <chain>", to delete it */
  rule: string[];
}

/** Splits one `iptables -S` line into its words, a quoted comment kept whole. */
export function splitRule(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/** The tcp forwards of a NETAVARK-HOSTPORT-DNAT listing (other lines, other protocols: none). */
export function parseForwards(listing: string): PortForward[] {
  return listing.split("\n").flatMap((line) => {
    if (!line.startsWith(`-A ${HOSTPORT_CHAIN} `)) return [];
    const [, , ...rule] = splitRule(line);
    const at = (flag: string) => rule[rule.indexOf(flag) + 1];
    const port = Number(at("--dport"));
    const network = /^dnat name: (\S+)/.exec(rule.includes("--comment") ? (at("--comment") ?? "") : "")?.[1];
    const target = rule.includes("-j") ? at("-j") : undefined;
    if (at("-p") !== "tcp" || !Number.isInteger(port) || !network || !target) return [];
    return [{ port, network, target, rule }];
  });
}

/** How long one reading of the forwards serves freePort: only forwards older than a lease matter (below). */
const FORWARDS_MAX_AGE_MS = 2_000;
let forwardsRead: { at: number; ports: Promise<ReadonlySet<number>> } | undefined;

/**
 * The host ports the kernel forwards to a container. A port podman publishes
 * is a DNAT rule, not a listener: a bind on it succeeds, and a connection to
 * it goes to the container. A forward whose run died with its podman storage
 * (a CI clone removed mid-run) stays in the kernel and keeps its port: a
 * node handed that port would bind it and never see a request, and a busy
 * CI run lost a landing to one. A live run's forwards are on ports it was
 * handed here and leased, so a reading up to FORWARDS_MAX_AGE_MS old is
 * enough. No firewall to read (not root, no iptables, no chain): none.
 */
export function forwardedPorts(maxAgeMs = FORWARDS_MAX_AGE_MS): Promise<ReadonlySet<number>> {
  if (forwardsRead && Date.now() - forwardsRead.at < maxAgeMs) return forwardsRead.ports;
  const ports = new Promise<ReadonlySet<number>>((resolve) => {
    execFile("iptables", ["-w", "5", "-t", "nat", "-S", HOSTPORT_CHAIN], { timeout: 10_000 }, (err, stdout) =>
      resolve(new Set(err ? [] : parseForwards(stdout).map((f) => f.port))),
    );
  });
  forwardsRead = { at: Date.now(), ports };
  return ports;
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
 * handed it before its child has bound it, and a port the kernel forwards to
 * a container is never handed out (forwardedPorts). Falls back to the kernel's
 * choice when the ports below the range are taken.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.max(1025, high - 9999);
  const forwarded = await forwardedPorts();
  for (let i = 0; i < 50; i++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (!forwarded.has(port) && (await portFree(port)) && lease(port)) return port;
  }
  return kernelPort();
}
