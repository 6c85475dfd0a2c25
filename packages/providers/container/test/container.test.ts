/**
 * The container provider on real podman: node-postgres's image built offline
 * on the local bases (cached under .sfbench/podman/), started as a container
 * with a CPU quota and a memory limit on a network of the run's own (from
 * inside, only the run's own PostgreSQL answers: not a server on the host's
 * loopback, not one on all the host's addresses, not the bridge's gateway,
 * not the metadata address), published on a loopback port, verified by the
 * conformance suite, measured by the experiment engine's quick profile (0
 * anomalies, cost > 0 taken from the container's cgroup, which was charged),
 * killed with kill -9 and started again with nothing lost and nothing taken
 * off its cost, and torn down with nothing left but its kept data (its
 * node's /data and its PostgreSQL's directory, stripped of anything that
 * would gain privileges on the host), which a later run through the image's
 * provider starts on.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "@sfbench/conformance";
import { isAlive } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { freePort, k6Path, paths, up } from "@sfbench/services";
import { runBenchmark } from "@sfbench/engine";
import { manifestDigest } from "@sfbench/core";
import { buildTargetImage } from "../src/image.ts";
import { podman } from "../src/podman.ts";
import { PIDS_LIMIT, readContainerState, runContainers, startContainerTarget, teardownRun } from "../src/container.ts";
import { containerTargetControl } from "../src/control.ts";
import { imageTargetProvider } from "../src/provider.ts";

const exec = promisify(execFile);
const runId = `test-${randomUUID().slice(0, 8)}`;
const { manifest } = findTarget("node-postgres");
const machine = { name: "test-1cpu-1gib", cpus: 1, memoryBytes: 2 ** 30 };
let image = "";
const resultsDir = mkdtempSync(join(tmpdir(), "sfbench-container-"));
const kept = join(resultsDir, "kept");
const again = `${runId}-again`;

beforeAll(async () => {
  image = (await buildTargetImage("node-postgres", { onProgress: (m) => console.log(m) })).ref;
});

afterAll(async () => {
  await teardownRun(runId);
  await teardownRun(again);
  rmSync(resultsDir, { recursive: true, force: true });
});

const post = async <T>(url: string, body: unknown): Promise<T> => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status, `POST ${url}`).toBe(200);
  return (await res.json()) as T;
};

/** The host firewall's rules (IPv4 and IPv6) tagged with the run. */
async function fenceRules(id: string): Promise<string[]> {
  const rules = await Promise.all(["iptables", "ip6tables"].map(async (t) => (await exec(t, ["-w", "10", "-S"])).stdout.split("\n")));
  return rules.flat().filter((l) => l.includes(`"sfbench run ${id}"`));
}

/**
 * What answers, tried from inside `container` with Node's net (the image's
 * own runtime): the run's PostgreSQL, and servers the test opens on the
 * host's loopback and on all its addresses.
 */
async function probeFromInside(container: string, network: string): Promise<Record<string, string>> {
  const gateway = (await podman(["network", "inspect", "--format", "{{range .Subnets}}{{.Gateway}}{{end}}", network])).stdout.trim();
  const own = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal && !a.address.startsWith("10.8"))?.address;
  const loopback = createServer((s) => s.end());
  const everywhere = createServer((s) => s.end());
  await new Promise<void>((r) => loopback.listen(0, "127.0.0.1", r));
  await new Promise<void>((r) => everywhere.listen(0, "0.0.0.0", r));
  const portOf = (s: ReturnType<typeof createServer>) => (s.address() as AddressInfo).port;
  const targets: [string, string, number][] = [
    ["the run's own PostgreSQL", "127.0.0.1", 5432],
    ["a server on the host's loopback", "127.0.0.1", portOf(loopback)],
    ["a server on all the host's addresses, at the bridge's gateway", gateway, portOf(everywhere)],
    ...(own ? [["a server on all the host's addresses, at the host's own address", own, portOf(everywhere)] as [string, string, number]] : []),
    ["the metadata address", "169.254.169.254", 80],
  ];
  const script = `const net = require("net"); const out = {};
    Promise.all(${JSON.stringify(targets)}.map(([what, host, port]) => new Promise((done) => {
      const s = net.connect({ host, port });
      const end = (how) => { out[what] = how; s.destroy(); done(); };
      s.setTimeout(2000, () => end("no answer"));
      s.on("connect", () => end("connected"));
      s.on("error", (e) => end(e.code === "ECONNREFUSED" ? "refused" : "no answer"));
    }))).then(() => console.log(JSON.stringify(out)));`;
  try {
    const found = JSON.parse((await podman(["exec", container, "node", "-e", script])).stdout) as Record<string, string>;
    if (!own) found["a server on all the host's addresses, at the host's own address"] = "no answer";
    return found;
  } finally {
    loopback.close();
    everywhere.close();
  }
}

describe("node-postgres from its image, in a podman container", () => {
  it("starts with the machine class's limits, verifies, runs the quick profile, survives kill -9 and is torn down", async () => {
    // a port handed out like a run's: a fixed one may be held by a forward a killed run left in the kernel
    const PORT = await freePort();
    const started = await startContainerTarget({ runId, image, manifest, machine, port: PORT, trace: false, onProgress: (m) => console.log(m) });
    expect(started.url).toBe(`http://127.0.0.1:${PORT}`);
    const control = await containerTargetControl(started, manifest);
    const node = readContainerState(runId)!.nodes[0]!;

    // the limits podman set are the class's
    const limits = (await podman(["inspect", "--format", "{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}", node.container])).stdout.trim();
    expect(limits).toBe(`${machine.cpus * 1e9} ${machine.memoryBytes}`);
    // the fence of the run's bridge is up (and goes with the run, below)
    expect(await fenceRules(runId)).toHaveLength(4);
    await expect(probeFromInside(node.container, started.network!)).resolves.toEqual({
      "the run's own PostgreSQL": "connected",
      "a server on the host's loopback": "refused",
      "a server on all the host's addresses, at the bridge's gateway": "no answer",
      "a server on all the host's addresses, at the host's own address": "no answer",
      "the metadata address": "no answer",
    });
    // confined: no capability at all, none to gain, a bounded number of tasks
    const [info] = JSON.parse((await podman(["inspect", node.container])).stdout) as {
      EffectiveCaps: string[] | null;
      HostConfig: { SecurityOpt: string[]; PidsLimit: number };
    }[];
    expect(info!.EffectiveCaps ?? []).toEqual([]);
    expect(info!.HostConfig.SecurityOpt).toContain("no-new-privileges");
    expect(info!.HostConfig.PidsLimit).toBe(PIDS_LIMIT);
    const status = (await podman(["exec", node.container, "cat", "/proc/1/status"])).stdout;
    expect(status).toMatch(/^CapEff:\s+0+$/m);
    expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
    // the cost roots: the container's first process and the run's own PostgreSQL
    expect(control.pids()).toHaveLength(2);
    expect(control.pids()).toContain(started.postgres!.pid);

    const report = await runConformance(started.url, { micro: false });
    expect(
      report.failed,
      report.checks
        .filter((c) => !c.passed)
        .map((c) => c.id)
        .join(", "),
    ).toBe(0);

    await up(["k6"]);
    const cgroupBefore = control.cgroupCpuSeconds();
    const costBefore = control.cost.cpuSeconds();
    const { doc } = await runBenchmark({
      target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
      baseUrl: started.url,
      k6: await k6Path(),
      profile: "quick",
      cells: [{ workload: "checkout", distribution: "uniform" }],
      control,
      seed: 1,
      repoRoot: paths.root,
      resultsDir,
      rawRoot: join(resultsDir, "raw"),
      targetPids: () => control.pids(),
      checkAlive: (stage) => {
        const how = control.exited();
        if (how) throw new Error(`target exited with ${how} during ${stage}`);
      },
    });
    expect(doc.error).toBeUndefined();
    expect(doc.status).toBe("completed");
    const cell = doc.cells[0]!;
    expect(cell.anomalies?.total).toBe(0);
    expect(cell.cost?.targetCpuSeconds ?? 0).toBeGreaterThan(0);
    // the container's own cgroup was charged for the load, and the cost came from it (the stable phase is part of the run)
    expect(control.cgroupCpuSeconds()).toBeGreaterThan(cgroupBefore);
    expect(doc.environment.cost).toEqual({ source: "cgroup" });
    const costAfterRun = control.cost.cpuSeconds();
    expect(costAfterRun - costBefore).toBeGreaterThanOrEqual(cell.cost!.targetCpuSeconds);

    // kill -9 the container (and its PostgreSQL: the whole single-node target), start it again: nothing written is lost
    const user = await post<string>(`${started.url}/users`, { credits: 77 });
    const product = await post<string>(`${started.url}/products`, { price: 5, stock: 9 });
    const oldPid = control.pids()[0]!;
    await control.kill(0, "SIGKILL");
    expect(isAlive(oldPid)).toBe(false);
    await expect(fetch(`${started.url}/health`)).rejects.toThrow();
    await control.restart(0);
    expect(control.exited()).toBeUndefined();
    // the killed container's cgroup went with it; what it had used stays in the cost
    expect(control.cost.cpuSeconds()).toBeGreaterThanOrEqual(costAfterRun);
    expect(await (await fetch(`${started.url}/users/${user}`)).json()).toEqual({ id: user, credits: 77 });
    expect(await (await fetch(`${started.url}/products/${product}`)).json()).toEqual({ id: product, price: 5, stock: 9 });

    // the node's own disk: a file the run keeps, and one that would gain privileges on the host's disk
    const write = (file: string, mode: number) =>
      podman(["exec", node.container, "node", "-e", `require("fs").writeFileSync(${JSON.stringify(file)}, "kept", { mode: ${mode} })`]);
    await write("/data/marker", 0o644);
    await write("/data/setuid", 0o4755);

    // teardown keeping the data (after a clean stop): no container, no PostgreSQL, no state; a second teardown is fine
    const pg = readContainerState(runId)!.postgres!.pid;
    await teardownRun(runId, { keepDataIn: kept });
    expect(readdirSync(kept).sort()).toEqual(["postgres", "volume"]);
    expect(statSync(join(kept, "volume", "node-0", "data", "setuid")).mode & 0o7777).toBe(0o755);
    expect(existsSync(join(kept, "postgres", "postgres.log"))).toBe(false);
    expect(await runContainers(runId)).toEqual([]);
    expect(isAlive(pg)).toBe(false);
    expect(readContainerState(runId)).toBeUndefined();
    expect(existsSync(join(paths.home, "containers", runId))).toBe(false);
    expect(await fenceRules(runId)).toEqual([]);
    expect((await podman(["network", "ls", "--format", "{{.Name}}"])).stdout.split("\n")).not.toContain(started.network);
    await teardownRun(runId);

    // the image's provider starts a later run on the kept data (a campaign's populated state), and keeps that run's in turn
    const provider = imageTargetProvider(again, manifest, { stored: image }, { machine });
    await provider.restore!(kept);
    const restored = await provider.start({ trace: false, onProgress: (m) => console.log(m) });
    expect(await (await fetch(`${restored.url}/users/${user}`)).json()).toEqual({ id: user, credits: 77 });
    expect(await (await fetch(`${restored.url}/products/${product}`)).json()).toEqual({ id: product, price: 5, stock: 9 });
    const second = readContainerState(again)!.nodes[0]!.container;
    expect((await podman(["exec", second, "cat", "/data/marker"])).stdout).toBe("kept");
    const bytes = await provider.snapshot!(join(resultsDir, "kept-again"));
    expect(bytes).toBeGreaterThan(1 << 20);
    expect(readContainerState(again)).toBeUndefined();
    expect(await runContainers(again)).toEqual([]);
  });
});
