/**
 * A run's own network: a podman bridge that holds the run's containers and
 * nothing else, fenced so that what runs on it reaches only the run itself.
 *
 * A submitted image is code a stranger wrote. On the host's network its
 * 127.0.0.1 would be the installation's loopback, where the portal's
 * database, the worker's queue, k6's API and every other run listen. On a
 * bridge of its own, 127.0.0.1 is the run's own loopback; what is left is
 * the bridge's way out, closed by two rules per run on the host's firewall
 * (iptables and ip6tables, on the bridge's interface, tagged with the run's
 * id so teardown and the worker's sweep find them; a rule a crash left on an
 * interface podman gives a later network again only says what that
 * network's own fence says):
 * - INPUT: nothing new from the bridge reaches the host (its gateway
 *   address, its other addresses, a server on 0.0.0.0); answers to
 *   connections the host opened (the load, the health check) still pass;
 * - FORWARD: nothing from the bridge leaves it (another run's bridge, the
 *   host's outside, the cloud metadata address 169.254.169.254); traffic
 *   between the run's own pods on the bridge stays allowed.
 * The bridge has no DNS server (kube play's pods find each other through
 * /etc/hosts). The load generator reaches the target through ports podman
 * publishes on 127.0.0.1 only: a DNAT in the kernel, no user-space proxy in
 * the measured path.
 */
import { HOSTPORT_CHAIN, parseForwards, splitRule, type PortForward } from "@sfbench/core/ports";
import { hostCommand } from "./host-command.ts";
import { podman } from "./podman.ts";

export const RUN_NETWORK_LABEL = "org.sfbench.run-network";
/** who made the network ("container" runs, "kube-play"), so each sweeps only its own */
export const NETWORK_OWNER_LABEL = "org.sfbench.network-owner";

/** The firewall rules' comment, which names the run they fence. */
const ruleComment = (runId: string) => `sfbench run ${runId}`;

const TABLES = ["iptables", "ip6tables"] as const;

/** The two rules that fence `iface` (iptables-save syntax after the chain). */
function fenceRules(iface: string, runId: string): { chain: string; rule: string[] }[] {
  const comment = ["-m", "comment", "--comment", ruleComment(runId)];
  return [
    { chain: "INPUT", rule: ["-i", iface, "-m", "conntrack", "--ctstate", "NEW,INVALID", ...comment, "-j", "DROP"] },
    { chain: "FORWARD", rule: ["-i", iface, "!", "-o", iface, ...comment, "-j", "DROP"] },
  ];
}

export class RunNetworkError extends Error {}

const firewall = (table: (typeof TABLES)[number], args: string[]) =>
  hostCommand(table, ["-w", "10", ...args], {
    timeoutMs: 30_000,
    neededFor: "a run's network cannot be fenced without it (apt install iptables)",
    fail: (message) => new RunNetworkError(message),
  });

/** Puts the fence around `iface`, first in its chains (before podman's own accept rules); idempotent. */
export async function fenceInterface(iface: string, runId: string): Promise<void> {
  for (const table of TABLES) {
    for (const { chain, rule } of fenceRules(iface, runId)) {
      const present = await firewall(table, ["-C", chain, ...rule]).then(
        () => true,
        () => false,
      );
      if (!present) await firewall(table, ["-I", chain, "1", ...rule]);
    }
  }
}

/** Removes every rule tagged with `runId` (or, without one, every rule sfbench tagged for any run). */
export async function removeFences(runId?: string): Promise<void> {
  const tag = runId ? `"${ruleComment(runId)}"` : '"sfbench run ';
  for (const table of TABLES) {
    let listing: string;
    try {
      listing = await firewall(table, ["-S"]);
    } catch {
      continue;
    }
    for (const line of listing.split("\n")) {
      if (!line.startsWith("-A ") || !line.includes(tag)) continue;
      const [, chain, ...rest] = splitRule(line);
      await firewall(table, ["-D", chain!, ...rest]).catch(() => undefined);
    }
  }
}

export interface RunNetwork {
  /** podman's name for the network */
  name: string;
  /** the bridge's interface on the host */
  iface: string;
}

/**
 * Takes `ports` back from forwards a dead run left behind. netavark's DNAT
 * rules live in the kernel, not in podman's storage: a run killed with its
 * storage (a CI clone removed mid-run) leaves its forwards, the first rule
 * for a port wins, and a later run that publishes the same port sends every
 * request to a container that no longer exists. Only sfbench's forwards
 * (their network is named "sfbench-...") on the ports this run publishes, for
 * a network this podman does not hold, are removed: another installation's
 * live run never publishes a port this one was handed. Answers the networks
 * whose forwards it removed.
 */
export async function removeStaleForwards(ports: readonly number[]): Promise<string[]> {
  if (ports.length === 0) return [];
  const removed = new Set<string>();
  for (const f of await readForwards()) {
    if (!ports.includes(f.port) || !f.network.startsWith("sfbench-")) continue;
    const held = await podman(["network", "exists", f.network]).then(
      () => true,
      () => false,
    );
    if (held) continue;
    await firewall("iptables", ["-t", "nat", "-D", HOSTPORT_CHAIN, ...f.rule]).catch(() => undefined);
    // its own chain goes once no jump is left to it (a network with several ports has one chain for all)
    await firewall("iptables", ["-t", "nat", "-F", f.target])
      .then(() => firewall("iptables", ["-t", "nat", "-X", f.target]))
      .catch(() => undefined);
    removed.add(f.network);
  }
  return [...removed];
}

/**
 * The networks whose forwards hold `port` on this machine: none where no
 * forward was ever made or no firewall can be read.
 */
export async function forwardsOf(port: number): Promise<string[]> {
  return [...new Set((await readForwards()).flatMap((f) => (f.port === port ? [f.network] : [])))];
}

/** The host's port forwards: none where no forward was ever made on this machine (no chain) or no firewall can be read. */
async function readForwards(): Promise<PortForward[]> {
  try {
    return parseForwards(await firewall("iptables", ["-t", "nat", "-S", HOSTPORT_CHAIN]));
  } catch {
    return [];
  }
}

/**
 * Makes the run's bridge (no DNS, named interface, labelled) and fences it;
 * removes what it made if the fence cannot be put up. `publishes`: the host
 * ports the run will publish, taken back first from a dead run's forwards.
 */
export async function createRunNetwork(runId: string, name: string, owner: string, publishes: readonly number[] = []): Promise<RunNetwork> {
  await removeRunNetwork(runId, name);
  await removeStaleForwards(publishes);
  const labels = ["--label", `${RUN_NETWORK_LABEL}=${runId}`, "--label", `${NETWORK_OWNER_LABEL}=${owner}`];
  await podman(["network", "create", "--disable-dns", ...labels, name]);
  let iface = "";
  try {
    // podman picks the bridge's name (podman<N>); this podman cannot be told one
    iface = (await podman(["network", "inspect", "--format", "{{.NetworkInterface}}", name])).stdout.trim();
    if (!/^[A-Za-z0-9_.-]{1,15}$/.test(iface)) throw new RunNetworkError(`podman network ${name} names no bridge interface (${JSON.stringify(iface)})`);
    await fenceInterface(iface, runId);
  } catch (e) {
    await removeRunNetwork(runId, name);
    throw e;
  }
  return { name, iface };
}

/** Removes the run's network and its fence; idempotent. */
export async function removeRunNetwork(runId: string, name: string): Promise<void> {
  await podman(["network", "rm", "--force", name]).catch(() => undefined);
  await removeFences(runId);
}

/** The runs whose networks, made by `owner`, podman still holds. */
export async function runNetworks(owner: string): Promise<{ runId: string; name: string }[]> {
  const { stdout } = await podman([
    "network",
    "ls",
    "--filter",
    `label=${NETWORK_OWNER_LABEL}=${owner}`,
    "--format",
    `{{.Name}} {{index .Labels "${RUN_NETWORK_LABEL}"}}`,
  ]);
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [name, runId] = l.split(" ");
      return { name: name!, runId: runId! };
    });
}
