/**
 * One run's program, played by podman: rendered under Pulumi's mocks,
 * translated for kube play (translate.ts), and run on a podman network of the
 * run's own, fenced as a container run's is (provider-container's
 * run-network.ts: its pods reach each other and nothing of the host), with
 * its Services' ports published on loopback, and in a user namespace of the
 * run's own (the same block of host ids a container run of that id gets:
 * root in its pods is an unprivileged id outside). The YAML played
 * and the state stay in .sfbench/kube-play/<run id>/ until `downRun`, which
 * is idempotent and also cleans up after a play that failed half way.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRunNetwork, podman, podmanRemove, removeRunNetwork, userNamespaceBase, USERNS_SIZE } from "@sfbench/provider-container";
import { z } from "zod";
import { runNamespace, type RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import { renderRun } from "@sfbench/infra-pulumi/render";
import { kubePlayHome } from "./home.ts";
import { ensureStandins, STANDINS } from "./images.ts";
import { toKubePlay, type KubePlayDocument } from "./translate.ts";

/** kube play has no API server: the program's Kubernetes provider gets this in place of a kubeconfig (under mocks it is never read) */
export const NO_CLUSTER = { kind: "kubeconfig", kubeconfig: "# podman kube play: no API server, no kubeconfig\n" } as const;
/** static pod IPs start here in the run's subnet, above what podman's own IPAM hands out first */
const FIRST_POD_HOST = 100;
const HEALTH_POLL_MS = 500;
const DEFAULT_READY_TIMEOUT_MS = 300_000;
/** playing or removing a few pods takes seconds; past this podman is stuck on a lock, and killing it frees the lock */
export const PLAY_TIMEOUT_MS = 300_000;
/** each short podman command around a play: inspecting, listing, removing */
const STEP_TIMEOUT_MS = 120_000;

const runDir = (runId: string) => join(kubePlayHome(), runId);

export interface PlayOptions {
  runId: string;
  /** the run's stack configuration, without a cluster */
  config: Omit<RunStackConfigInput, "runId" | "cluster">;
  /** loopback host ports for the Services' ports, used in order */
  hostPorts: number[];
  /** how long the target may take to answer its health route */
  readyTimeoutMs?: number;
  /** a stop while the play is under way: it ends at its next step with the signal's reason, and tears down what it made */
  signal?: AbortSignal;
  onProgress?: (message: string) => void;
}

export interface PlayedRun {
  runId: string;
  network: string;
  /** the YAML played */
  file: string;
  doc: KubePlayDocument;
  /** http://127.0.0.1:<published port> of the target's Service (replica 0's pod) */
  url: string;
  /** the target's containers, one per replica, in replica order */
  targetContainers: string[];
}

const State = z.object({ network: z.string(), file: z.string(), prefix: z.string() });

/** The run's subnet's `host`-th address (podman's subnets are IPv4 /24 or wider). */
export function hostInSubnet(subnet: string, host: number): string {
  const [addr, bits] = subnet.split("/");
  const octets = addr!.split(".").map(Number);
  const size = 2 ** (32 - Number(bits));
  if (octets.length !== 4 || !(host > 0 && host < size - 1)) throw new Error(`host ${host} is not in subnet ${subnet}`);
  const n = (octets.reduce((a, o) => a * 256 + o, 0) & ~(size - 1)) + host;
  return [24, 16, 8, 0].map((s) => (n >>> s) & 255).join(".");
}

export async function playRun(opts: PlayOptions): Promise<PlayedRun> {
  const { runId, onProgress, signal } = opts;
  const checkStopped = () => signal?.throwIfAborted();
  checkStopped();
  const prefix = runNamespace(runId);
  const network = prefix;
  const dir = runDir(runId);
  const file = join(dir, "run.yaml");
  mkdirSync(dir, { recursive: true });
  // state first: a play that fails half way is torn down by downRun
  writeFileSync(join(dir, "state.json"), JSON.stringify({ network, file, prefix }));
  try {
    await ensureStandins(onProgress);
    const objects = await renderRun({ ...opts.config, runId, cluster: NO_CLUSTER });
    onProgress?.(`rendered ${objects.length} objects: ${objects.map((o) => `${o.kind} ${o.metadata.name}`).join(", ")}`);
    await createRunNetwork(runId, network, "kube-play", opts.hostPorts);
    const subnet = (await podman(["network", "inspect", "--format", "{{range .Subnets}}{{.Subnet}} {{end}}", network])).stdout.trim().split(" ")[0]!;
    const podCount = objects.filter((o) => o.kind === "Deployment").reduce((n, d) => n + ((d.spec as { replicas?: number }).replicas ?? 1), 0);
    const podIps = Array.from({ length: podCount }, (_, i) => hostInSubnet(subnet, FIRST_POD_HOST + i));
    const doc = toKubePlay(objects, { prefix, hostPorts: opts.hostPorts, podIps, images: STANDINS });
    for (const d of doc.dropped) onProgress?.(`not played: ${d.kind} ${d.name} (${d.why})`);
    await requireImages(doc);
    writeFileSync(file, doc.yaml);
    checkStopped();
    onProgress?.(`podman kube play --network ${network} --userns ${userns(runId)} ${file}`);
    await podman(["kube", "play", "--network", network, "--userns", userns(runId), ...doc.pods.flatMap((p) => ["--ip", p.ip]), file], {
      timeoutMs: PLAY_TIMEOUT_MS,
    });
    checkStopped();
    const targetPods = doc.pods.filter((p) => p.from === "target");
    const port = doc.published.find((p) => p.service === "target" && p.pod === targetPods[0]?.pod);
    if (!port) throw new Error("the program's target Service publishes no port");
    const url = `http://127.0.0.1:${port.hostPort}`;
    const health = `${url}${opts.config.target.health ?? "/health"}`;
    await waitHealthy(
      health,
      targetPods.flatMap((p) => p.containers),
      opts.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS,
      checkStopped,
    );
    onProgress?.(`the target answers ${health}`);
    return { runId, network, file, doc, url, targetContainers: targetPods.flatMap((p) => p.containers) };
  } catch (e) {
    await downRun(runId);
    throw e;
  }
}

/**
 * Every pod's user namespace: an explicit map in "auto" mode, which needs no
 * subordinate id ranges (/etc/subuid) and maps the pods' 65536 ids onto the
 * run's block above 2^24 (what a cluster's `hostUsers: false` does with its own ranges).
 */
export function userns(runId: string): string {
  const base = userNamespaceBase(runId);
  return `auto:uidmapping=0:${base}:${USERNS_SIZE},gidmapping=0:${base}:${USERNS_SIZE}`;
}

async function requireImages(doc: KubePlayDocument): Promise<void> {
  const images = new Set(
    doc.objects
      .filter((o) => o.kind === "Deployment")
      .flatMap((d) => (d.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers.map((c) => c.image)),
  );
  for (const image of images) {
    const present = await podman(["image", "exists", image]).then(
      () => true,
      () => false,
    );
    if (!present)
      throw new Error(
        `image ${image} is not in the project's podman storage and no registry is reachable: build it first (a bundled target: \`sfbench image build <name>\`; services: only PostgreSQL has a stand-in)`,
      );
  }
}

async function waitHealthy(url: string, containers: string[], timeoutMs: number, checkStopped: () => void): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    checkStopped();
    const ok = await fetch(url, { signal: AbortSignal.timeout(HEALTH_POLL_MS * 4) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    for (const c of containers) {
      const state = (await podman(["inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", c], { timeoutMs: STEP_TIMEOUT_MS })).stdout.trim();
      if (state.startsWith("exited")) {
        const logs = await podman(["logs", "--tail", "20", c]).then(
          (r) => `${r.stdout}${r.stderr}`,
          () => "",
        );
        throw new Error(`${c} exited (${state}) before answering ${url}:\n${logs.trim()}`);
      }
    }
    if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, HEALTH_POLL_MS));
  }
}

/** Removes everything of a run's play: its pods, volumes and network, and its state; idempotent. */
export async function downRun(runId: string): Promise<void> {
  const dir = runDir(runId);
  const stateFile = join(dir, "state.json");
  const prefix = runNamespace(runId);
  const state = existsSync(stateFile) ? State.parse(JSON.parse(readFileSync(stateFile, "utf8"))) : { network: prefix, file: join(dir, "run.yaml"), prefix };
  const down = (args: string[]) => podman(args, { timeoutMs: STEP_TIMEOUT_MS });
  if (existsSync(state.file)) await down(["kube", "down", state.file]).catch(() => undefined);
  const pods = (await down(["pod", "ps", "--filter", `name=^${state.prefix}-`, "--format", "{{.Name}}"])).stdout.split("\n").filter(Boolean);
  if (pods.length) await podmanRemove(["pod", "rm", "-f", ...pods], { timeoutMs: STEP_TIMEOUT_MS });
  const volumes = (await down(["volume", "ls", "--filter", `name=^${state.prefix}-`, "--format", "{{.Name}}"])).stdout.split("\n").filter(Boolean);
  if (volumes.length) await down(["volume", "rm", "-f", ...volumes]);
  await removeRunNetwork(runId, state.network);
  rmSync(dir, { recursive: true, force: true });
}
