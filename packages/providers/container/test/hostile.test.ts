/**
 * A hostile image on real podman (a fixture built offline from the local
 * Node base): before it serves, its entrypoint tries the installation's
 * servers (the shared PostgreSQL that holds the portal's database, the
 * worker's queue in Redis, a server on the host's loopback and one on all
 * its addresses) on its own loopback, at its network's gateway and at the
 * host's own address, another run's target at that run's own address, and
 * the metadata address, then forks until the kernel refuses and writes to
 * /data until the disk does. Nothing answers, the fork bomb stops at the
 * run's pids limit, the writes at its disk quota, the other run and
 * the installation's servers are unharmed, and the hostile run itself is
 * measured like any other: it serves once it is done.
 */
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { ports, redisAnswers, up } from "@sfbench/services";
import { PIDS_LIMIT, podName, startContainerTarget, teardownRun } from "../src/container.ts";
import { buildTargetImage } from "../src/image.ts";
import { podman } from "../src/podman.ts";

const targetsRoot = fileURLToPath(new URL("./fixtures", import.meta.url));
const hostileRun = `test-hostile-${randomUUID().slice(0, 8)}`;
const otherRun = `test-other-${randomUUID().slice(0, 8)}`;
const servers: Server[] = [];

const listen = async (host: string) => {
  const s = createServer((c) => c.end());
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, host, r));
  return (s.address() as AddressInfo).port;
};

/** The run's disk quota here: small, so that writing past it is quick. */
const QUOTA_MIB = 128;
const quotaBefore = process.env.SFBENCH_RUN_DISK_MIB;

beforeAll(async () => {
  await up(["postgres", "redis"]);
  process.env.SFBENCH_RUN_DISK_MIB = String(QUOTA_MIB);
});

afterAll(async () => {
  await teardownRun(hostileRun);
  await teardownRun(otherRun);
  for (const s of servers) s.close();
  if (quotaBefore === undefined) delete process.env.SFBENCH_RUN_DISK_MIB;
  else process.env.SFBENCH_RUN_DISK_MIB = quotaBefore;
});

/** The address of a run's pod on its own network. */
async function podAddress(runId: string): Promise<string> {
  const infra = (await podman(["pod", "inspect", "--format", "{{.InfraContainerID}}", podName(runId)])).stdout.trim();
  return (await podman(["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", infra])).stdout.trim();
}

describe("a hostile image", () => {
  it("reaches nothing of the installation or of another run, stops at the pids limit and the disk quota, and still runs", async () => {
    const machine = { name: "test-1cpu-2gib", cpus: 1, memoryBytes: 2 * 2 ** 30 };
    const hello = findTarget("hello", targetsRoot).manifest;
    const other = await startContainerTarget({
      runId: otherRun,
      image: (await buildTargetImage("hello", { targetsRoot })).ref,
      manifest: hello,
      machine,
      port: 19112,
    });
    const own = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal && !a.address.startsWith("10.8"))?.address;
    const probe = {
      "the shared PostgreSQL (the portal's database)": ports.postgres,
      "the worker's queue (Redis)": ports.redis,
      "a server on the host's loopback": await listen("127.0.0.1"),
      "a server on all the host's addresses": await listen("0.0.0.0"),
      "another run's target": 19112,
    };
    const base = findTarget("hostile", targetsRoot).manifest;
    const manifest = {
      ...base,
      local: {
        ...base.local!,
        env: {
          PROBE_PORTS: JSON.stringify(probe),
          // stops a fill the quota did not stop, at twice the quota
          FILL_MAX_MIB: String(2 * QUOTA_MIB),
          PROBE_HOSTS: JSON.stringify({ "the host's own address": own, "the other run's own address": await podAddress(otherRun) }),
        },
      },
    };
    const image = (await buildTargetImage("hostile", { targetsRoot })).ref;
    const started = await startContainerTarget({ runId: hostileRun, image, manifest, machine, port: 19113 });
    const report = (await (await fetch(`${started.url}/report`)).json()) as {
      gateway: string;
      reached: Record<string, string>;
      forks: { started: number; refused?: string };
      disk: { mib: number; refused?: string };
    };

    expect(report.gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // every port at every address was tried, and none answered
    expect(Object.keys(report.reached)).toHaveLength(Object.keys(probe).length * 4 + 1);
    expect(Object.entries(report.reached).filter(([, how]) => how === "connected")).toEqual([]);
    // the fork bomb met the limit, not the host's
    expect(report.forks.refused).toBe("EAGAIN");
    expect(report.forks.started).toBeLessThan(PIDS_LIMIT);
    // the writes met the run's disk, not the machine's
    expect(report.disk.refused).toBe("ENOSPC");
    expect(report.disk.mib).toBeLessThan(QUOTA_MIB);
    // the other run and the installation's servers are unharmed
    expect(await (await fetch(other.url)).json()).toEqual({ uid: 1000, host: "0.0.0.0" });
    expect(await redisAnswers()).toBe(true);
  });
});
