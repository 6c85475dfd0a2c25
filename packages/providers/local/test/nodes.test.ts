/**
 * Multi-node targets and the resilience operations, with real processes: a
 * target declaring nodes runs as n processes sharing its own PostgreSQL behind
 * sfbench's balancer (or routing itself); one node can be killed with kill -9
 * while the others serve, restarted on its port and data directory, and a node
 * added while the target runs. A single-process target is killed and
 * restarted whole, with its data.
 */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { localTargetControl } from "../src/control.ts";
import { addNode, killNode, killTarget, nodeLogs, restartNode, restartTarget, targetPids } from "../src/nodes.ts";
import { isAlive, runningTarget, startTarget, stopTarget, waitGone } from "../src/run.ts";
import { costPids } from "../src/storage.ts";
import { ephemeralLow } from "../src/target-process.ts";

const allowedCpus = (pid: number) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
const opts = { targetsRoot: fixtures };

afterEach(async () => {
  for (const name of ["shared-counter", "self-routed", "solo"]) await stopTarget(name);
});

interface WhoAmI {
  index: number;
  nodes: number;
  pid: number;
  port: number;
  clusterPort: number;
  peers: string;
  dataDir: string;
}

const getJson = async <T>(url: string, init?: RequestInit): Promise<T> => {
  const res = await fetch(url, init);
  // a failed answer's body says why (the balancer's 502 names the node and the error)
  expect(res.status, `${init?.method ?? "GET"} ${url}${res.status === 200 ? "" : `: ${await res.clone().text()}`}`).toBe(200);
  return (await res.json()) as T;
};

/** Which node indices answer `n` requests through the target's URL. */
async function answering(url: string, n: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await getJson<WhoAmI>(`${url}/whoami`)).index);
  return seen;
}

describe("a target with nodes behind sfbench's balancer", () => {
  it("runs n real nodes on one shared state; one is killed, restarted and another added while requests keep being answered", { timeout: 240_000 }, async () => {
    const t = await startTarget("shared-counter", { ...opts, nodes: 2 });
    expect(t.url).toBe("http://127.0.0.1:19520");
    expect(t.nodes).toHaveLength(2);
    expect(t.balancer?.port).toBe(19520);
    expect(t.nodes!.map((n) => n.port)).not.toContain(19520);
    // below the ephemeral range: while a node is down nothing else takes its port, and a request to it is refused
    for (const n of t.nodes!) expect(n.port).toBeLessThan(ephemeralLow());

    // every node knows its index, the node count, and every node's cluster port
    const who = await Promise.all(t.nodes!.map((n) => getJson<WhoAmI>(`${n.url}/whoami`)));
    expect(who.map((w) => [w.index, w.nodes])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(who[0]!.peers).toBe(t.nodes!.map((n) => `127.0.0.1:${n.clusterPort}`).join(","));
    expect(who[0]!.peers).toBe(who[1]!.peers);
    expect(new Set(who.map((w) => w.dataDir)).size).toBe(2);
    expect(who.map((w) => w.pid)).toEqual(t.nodes!.map((n) => n.pid));

    // round robin over both, and they share one state (not two copies)
    expect(new Set(await answering(t.url, 6))).toEqual(new Set([0, 1]));
    for (let i = 0; i < 10; i++) await getJson(`${t.url}/count`, { method: "POST" });
    for (const n of t.nodes!) expect(await getJson<number>(`${n.url}/count`)).toBe(10);

    // the cost is the nodes and the target's own PostgreSQL, never the balancer
    const pids = targetPids("shared-counter");
    expect(pids.nodes.map((n) => n.alive)).toEqual([true, true]);
    expect(costPids(runningTarget("shared-counter")!)).toEqual([...t.nodes!.map((n) => n.pid), t.postgres!.pid]);
    expect(costPids(runningTarget("shared-counter")!)).not.toContain(pids.balancer);

    // kill -9 node 1: node 0 answers everything, nothing fails (a refused connection goes to the next node)
    const killed = await killNode("shared-counter", 1);
    expect(killed).toMatchObject({ index: 1, pid: t.nodes![1]!.pid, signal: "SIGKILL" });
    expect(killed.goneAt).toBeGreaterThanOrEqual(killed.at);
    expect(isAlive(t.nodes![1]!.pid)).toBe(false);
    expect(isAlive(t.nodes![0]!.pid)).toBe(true);
    expect(new Set(await answering(t.url, 6))).toEqual(new Set([0]));
    await expect(restartNode("shared-counter", 0)).rejects.toThrow(/node 0 of shared-counter \(pid \d+\) is still running; kill it first/);
    await expect(killNode("shared-counter", 5)).rejects.toThrow(/node: 5 is not a node of shared-counter \(allowed: 0\.\.1\)/);

    // restarted on its port with its data directory; the shared state is still there
    const again = await restartNode("shared-counter", 1);
    expect(again).toMatchObject({ index: 1, port: t.nodes![1]!.port, clusterPort: t.nodes![1]!.clusterPort, dataDir: t.nodes![1]!.dataDir });
    expect(again.pid).not.toBe(t.nodes![1]!.pid);
    expect(await getJson<number>(`${again.url}/count`)).toBe(10);
    expect(runningTarget("shared-counter")?.killed).toBeUndefined();
    // the balancer takes it back once its short down-time is over
    await new Promise((r) => setTimeout(r, 600));
    expect(new Set(await answering(t.url, 6))).toEqual(new Set([0, 1]));

    // a third node joins while the target runs and gets its share; the balancer had died meanwhile, so a new one
    // serves it (a SIGHUP to the old pid would reach whatever took it)
    const oldBalancer = targetPids("shared-counter").balancer!;
    process.kill(-oldBalancer, "SIGKILL");
    expect(await waitGone(oldBalancer, 10_000)).toBe(true);
    const added = await addNode("shared-counter");
    expect(targetPids("shared-counter").balancer).not.toBe(oldBalancer);
    expect(added.index).toBe(2);
    expect(added.port).toBeLessThan(ephemeralLow());
    const w2 = await getJson<WhoAmI>(`${added.url}/whoami`);
    expect(w2).toMatchObject({ index: 2, nodes: 3 });
    expect(w2.peers.split(",")).toHaveLength(3);
    expect(new Set(await answering(t.url, 9))).toEqual(new Set([0, 1, 2]));
    expect(nodeLogs("shared-counter")).toEqual([t.log, t.nodes![1]!.log, added.log]);
    expect(new Set(nodeLogs("shared-counter")).size).toBe(3);
    expect(await getJson<number>(`${added.url}/count`)).toBe(10);
    await expect(addNode("shared-counter")).rejects.toThrow(/already runs 3 nodes, its maximum \(target\.json nodes\.max\)/);

    // the whole target restarted: every node new, the state kept
    const before = targetPids("shared-counter").nodes.map((n) => n.pid);
    const restarted = await restartTarget("shared-counter");
    expect(restarted.nodes!.map((n) => n.pid).some((p) => before.includes(p))).toBe(false);
    expect(before.some(isAlive)).toBe(false);
    expect(await getJson<number>(`${t.url}/count`)).toBe(10);

    // a crash of the whole system, its PostgreSQL included: WAL recovery on the kept data, the counter is still 10
    const crash = await killTarget("shared-counter");
    expect(crash.nodes.map((n) => n.index)).toEqual([0, 1, 2]);
    expect(crash.postgres?.pid).toBe(t.postgres!.pid);
    expect(isAlive(t.postgres!.pid)).toBe(false);
    const recovered = await restartTarget("shared-counter");
    expect(recovered.postgres!.pid).not.toBe(t.postgres!.pid);
    expect(await getJson<number>(`${t.url}/count`)).toBe(10);
    for (const n of recovered.nodes!) expect(await getJson<number>(`${n.url}/count`)).toBe(10);

    // stop takes every node, the balancer and PostgreSQL
    const balancer = targetPids("shared-counter").balancer!;
    expect(await stopTarget("shared-counter")).toBe(true);
    for (const p of [...recovered.nodes!.map((n) => n.pid), balancer, recovered.postgres!.pid]) expect(isAlive(p)).toBe(false);
  });

  it("refuses a node count the manifest does not declare, naming the field", async () => {
    await expect(startTarget("shared-counter", { ...opts, nodes: 4 })).rejects.toThrow(
      "nodes: shared-counter supports at most 3 nodes (target.json nodes.max)",
    );
    await expect(startTarget("shared-counter", { ...opts, nodes: 0 })).rejects.toThrow("nodes: 0 is not a node count (allowed: an integer from 1 to 3)");
    await expect(startTarget("solo", { ...opts, nodes: 2 })).rejects.toThrow(
      /nodes: solo is a single-process target \(its target\.json declares no nodes\), so it runs as 1 node only/,
    );
  });
});

describe("a run's control over a target's processes", () => {
  it.skipIf(cpus().length < 2)(
    "starts again and adds on the CPUs the run placed it on, not on the caller's: nodes and a restarted PostgreSQL",
    { timeout: 120_000 },
    async () => {
      const t = await startTarget("shared-counter", { ...opts, nodes: 2 });
      const control = localTargetControl(t);
      // a run pins itself to the generator's core: without placeOn, what it starts would run there too
      control.placeOn!("1");
      await control.kill(1, "SIGKILL");
      await control.restart(1);
      const restarted = targetPids("shared-counter").nodes.find((n) => n.index === 1)!;
      expect(allowedCpus(restarted.pid)).toBe("1");
      await control.addNode();
      const added = targetPids("shared-counter").nodes.find((n) => n.index === 2)!;
      expect(allowedCpus(added.pid)).toBe("1");

      // the whole system crashes, its PostgreSQL with it: the restarted server and its backends run there too
      await killTarget("shared-counter");
      await restartTarget("shared-counter", { cpus: "1" });
      const pg = runningTarget("shared-counter")!.postgres!.pid;
      expect(allowedCpus(pg)).toBe("1");

      // placed nowhere again: a restart runs wherever the caller may
      control.placeOn!(undefined);
      await control.kill(1, "SIGKILL");
      await control.restart(1);
      const free = targetPids("shared-counter").nodes.find((n) => n.index === 1)!;
      expect(allowedCpus(free.pid)).toBe(allowedCpus(process.pid));
    },
  );
});

describe("a target that routes itself", () => {
  it("runs node 0 on the target's port and the members with nodes.command; members find each other by their cluster ports", { timeout: 60_000 }, async () => {
    const t = await startTarget("self-routed", { ...opts, nodes: 2 });
    expect(t.balancer).toBeUndefined();
    expect(t.nodes![0]!.port).toBe(19530);
    const members = await getJson<{ role: string; index: number; nodes: number; pid: number }[]>(`${t.url}/members`);
    expect(members.map((m) => [m.role, m.index, m.nodes])).toEqual([
      ["entry", 0, 2],
      ["member", 1, 2],
    ]);
    const added = await addNode("self-routed");
    const joined = await getJson<{ role: string; index: number; nodes: number }>(`http://127.0.0.1:${added.clusterPort}/`);
    expect(joined).toEqual({ role: "member", index: 2, nodes: 3, pid: added.pid });
  });
});

describe("a single-process target", () => {
  it("is killed whole with kill -9, stays known while it is down, and restarts on its port", { timeout: 60_000 }, async () => {
    const t = await startTarget("solo", opts);
    const killed = await killNode("solo", 0);
    expect(killed.pid).toBe(t.pid);
    await expect(fetch(`${t.url}/health`)).rejects.toThrow();
    expect(runningTarget("solo")?.killed).toEqual([0]);
    await expect(addNode("solo")).rejects.toThrow("solo cannot take a node while it runs: target.json nodes.elastic is not true");
    const restarted = await restartTarget("solo");
    expect(restarted.url).toBe(t.url);
    expect(restarted.pid).not.toBe(t.pid);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    expect(runningTarget("solo")?.killed).toBeUndefined();
    expect(costPids(runningTarget("solo")!)).toEqual([restarted.pid]);
  });
});
