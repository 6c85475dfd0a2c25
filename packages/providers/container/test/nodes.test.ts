/**
 * Several containers behind sfbench's balancer, on real podman with
 * node-postgres's image (its manifest declares nodes, up to 4, elastic): two
 * nodes answer through the balancer; one killed with kill -9, the other still
 * answers every request; the killed one started again; a third added (the
 * balancer re-reads its backends); a container killed from outside (podman
 * kill) is reported as a death; teardown leaves no container, no balancer, no
 * state.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, portFree } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { freePort, paths } from "@sfbench/services";
import { buildTargetImage } from "../src/image.ts";
import { podman } from "../src/podman.ts";
import { readContainerState, runContainers, startContainerTarget, teardownRun } from "../src/container.ts";
import { containerTargetControl } from "../src/control.ts";

const runId = `test-nodes-${randomUUID().slice(0, 8)}`;
const { manifest } = findTarget("node-postgres");
const machine = { name: "test-1cpu-512mib", cpus: 1, memoryBytes: 512 * 2 ** 20 };
let image = "";

beforeAll(async () => {
  image = (await buildTargetImage("node-postgres", { onProgress: (m) => console.log(m) })).ref;
});

afterAll(async () => {
  await teardownRun(runId);
});

/** The container's SFBENCH_* environment, as podman set it. */
async function sfbenchEnv(container: string): Promise<Record<string, string>> {
  const env = JSON.parse((await podman(["inspect", "--format", "{{json .Config.Env}}", container])).stdout) as string[];
  return Object.fromEntries(env.filter((e) => e.startsWith("SFBENCH_")).map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
}

/** `n` health requests through the balancer: their statuses. */
async function throughBalancer(url: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await fetch(`${url}${manifest.health}`)).status);
  return out;
}

const answers = async (url: string) => {
  try {
    return (await fetch(`${url}${manifest.health}`, { signal: AbortSignal.timeout(5000) })).status === 200;
  } catch {
    return false;
  }
};

describe("node-postgres from its image as several containers", () => {
  it("runs 2 nodes behind the balancer, survives kill -9 of one, restarts it, adds a third, and is torn down", async () => {
    const PORT = await freePort();
    const started = await startContainerTarget({ runId, image, manifest, machine, port: PORT, nodes: 2, onProgress: (m) => console.log(m) });
    const control = await containerTargetControl(started, manifest);
    expect(control.maxNodes).toBe(4);
    expect(control.elastic).toBe(true);
    expect(control.nodes()).toBe(2);
    let state = readContainerState(runId)!;
    expect(await runContainers(runId)).toHaveLength(2);
    expect(state.balancer && isAlive(state.balancer.pid)).toBe(true);
    // each node: its own port (not the run's: the balancer has that), the class's limits, the cluster environment
    const peers = state.nodes.map((n) => `127.0.0.1:${n.clusterPort}`).join(",");
    for (const n of state.nodes) {
      expect(n.port).not.toBe(PORT);
      const limits = (await podman(["inspect", "--format", "{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}", n.container])).stdout.trim();
      expect(limits).toBe(`${machine.cpus * 1e9} ${machine.memoryBytes}`);
      expect(await sfbenchEnv(n.container)).toMatchObject({
        SFBENCH_NODE_INDEX: String(n.index),
        SFBENCH_NODES: "2",
        SFBENCH_CLUSTER_PORT: String(n.clusterPort),
        SFBENCH_CLUSTER_PEERS: peers,
      });
      expect(await answers(n.url)).toBe(true);
    }
    expect(await throughBalancer(started.url, 6)).toEqual(Array(6).fill(200));
    // the cost roots: both containers and the run's PostgreSQL, not the balancer
    expect(control.pids()).toHaveLength(3);
    expect(control.pids()).not.toContain(state.balancer!.pid);

    // kill -9 node 1: node 0 and its PostgreSQL keep running, the balancer sends everything there
    const [node0, node1] = state.nodes;
    await control.kill(1, "SIGKILL");
    expect(await answers(node1!.url)).toBe(false);
    expect(await answers(node0!.url)).toBe(true);
    expect(isAlive(state.postgres!.pid)).toBe(true);
    expect(await throughBalancer(started.url, 6)).toEqual(Array(6).fill(200));
    expect(control.exited()).toBeUndefined();
    await control.restart(1);
    expect(await answers(node1!.url)).toBe(true);
    expect(control.exited()).toBeUndefined();

    // a third node: SFBENCH_NODES 3 and every cluster port; the balancer re-reads its backends on SIGHUP
    await control.addNode();
    expect(control.nodes()).toBe(3);
    state = readContainerState(runId)!;
    const node2 = state.nodes[2]!;
    expect(await runContainers(runId)).toHaveLength(3);
    expect(await sfbenchEnv(node2.container)).toMatchObject({
      SFBENCH_NODE_INDEX: "2",
      SFBENCH_NODES: "3",
      SFBENCH_CLUSTER_PEERS: state.nodes.map((n) => `127.0.0.1:${n.clusterPort}`).join(","),
    });
    expect(JSON.parse(readFileSync(state.balancer!.backendsFile, "utf8"))).toEqual({ backends: state.nodes.map((n) => n.url) });
    const deadline = performance.now() + 30_000;
    while (!readFileSync(state.balancer!.log, "utf8").includes(node2.url) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(readFileSync(state.balancer!.log, "utf8")).toContain(node2.url);
    expect(await throughBalancer(started.url, 6)).toEqual(Array(6).fill(200));
    expect(control.pids()).toHaveLength(4);

    // a container that dies without the experiment killing it is a death
    await podman(["kill", "--signal", "KILL", node2.container]);
    const seen = performance.now() + 30_000;
    while (control.exited() === undefined && performance.now() < seen) await new Promise((r) => setTimeout(r, 100));
    expect(control.exited()).toMatch(/^node 2: /);

    // teardown: no container, no balancer, no PostgreSQL, no state, the run's port free
    const balancerPid = state.balancer!.pid;
    const pg = state.postgres!.pid;
    await teardownRun(runId);
    expect(await runContainers(runId)).toEqual([]);
    expect(isAlive(balancerPid)).toBe(false);
    expect(isAlive(pg)).toBe(false);
    expect(existsSync(join(paths.home, "containers", runId))).toBe(false);
    expect(await portFree(PORT)).toBe(true);
  });
});
