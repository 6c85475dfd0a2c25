/** The parts that need no Restate server: top-n, the server's config, the port choice, the loc split. */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { locSide, sourceFiles } from "@sfbench/target-suite";
import { topOf } from "../src/app/co-purchase.ts";
import { MAX_FREQ_VISITS, visitBound } from "../src/gateway/routes.ts";
import { choosePorts } from "../src/launcher/ports.ts";
import { ephemeralLow } from "@sfbench/core/ports";
import { readLauncherEnv } from "../src/env.ts";
import { partitionsFor, restateConfig, writeRestateConfig } from "../src/launcher/restate-config.ts";

describe("topOf (SPEC 2.2 top(p, n, V))", () => {
  const counts = { b: 2, a: 3, c: 2, d: 1, e: 5 };

  it("orders by descending count, ties by ascending id, and takes n", () => {
    expect(topOf(counts, 3, new Set())).toEqual(["e", "a", "b"]);
    expect(topOf(counts, 10, new Set())).toEqual(["e", "a", "b", "c", "d"]);
  });

  it("leaves out the visited set before taking n", () => {
    expect(topOf(counts, 2, new Set(["e", "b"]))).toEqual(["a", "c"]);
    expect(topOf({}, 3, new Set())).toEqual([]);
  });
});

describe("the Restate server's configuration", () => {
  const toml = restateConfig("/data/dir", { fabric: 20001, ingress: 20002, admin: 20003, service: 20004 });

  it("binds every listener to 127.0.0.1 on the chosen ports and turns telemetry off", () => {
    expect(toml).toMatch(/^bind-ip = "127\.0\.0\.1"$/m);
    expect(toml).toMatch(/^bind-address = "127\.0\.0\.1:20001"$/m);
    expect(toml).toMatch(/\[ingress\]\nbind-address = "127\.0\.0\.1:20002"/);
    expect(toml).toMatch(/\[admin\]\nbind-address = "127\.0\.0\.1:20003"/);
    expect(toml).toMatch(/^disable-telemetry = true$/m);
    expect(toml).toMatch(/^listen-mode = "tcp"$/m);
  });

  it("sizes the partitions of a new cluster by the cores: two per core, 2 to 24", () => {
    expect(partitionsFor(1)).toBe(2);
    expect(partitionsFor(2)).toBe(4);
    expect(partitionsFor(64)).toBe(24);
    expect(restateConfig("/d", { fabric: 1, ingress: 2, admin: 3, service: 4 }, 6)).toMatch(/^default-num-partitions = 6$/m);
  });

  it("sizes them for the cores the run gives it (SFBENCH_CPUS), not for the machine", () => {
    const dir = mkdtempSync(join(tmpdir(), "restate-config-"));
    const file = writeRestateConfig(
      dir,
      { fabric: 1, ingress: 2, admin: 3, service: 4 },
      readLauncherEnv({ SFBENCH_DATA_DIR: dir, SFBENCH_CPUS: "1" }).SFBENCH_CPUS,
    );
    expect(readFileSync(file, "utf8")).toMatch(/^default-num-partitions = 2$/m);
    expect(() => readLauncherEnv({ SFBENCH_DATA_DIR: dir, SFBENCH_CPUS: "none" })).toThrow(/SFBENCH_CPUS/);
  });

  it("keeps its data under the target's data directory, with a node name that survives restarts", () => {
    expect(toml).toMatch(/^base-dir = "\/data\/dir\/restate"$/m);
    expect(toml).toMatch(/^node-name = "sfbench-restate"$/m);
  });
});

describe("choosePorts", () => {
  const listen = (port = 0) =>
    new Promise<Server>((resolve, reject) => {
      const srv = createServer();
      srv.once("error", reject);
      srv.listen(port, "127.0.0.1", () => resolve(srv));
    });
  const portOf = (srv: Server) => (srv.address() as { port: number }).port;

  it("picks four distinct free ports, none of them the excluded gateway port, and remembers them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-restate-ports-"));
    const busy = await listen();
    try {
      const ports = await choosePorts(dir, [portOf(busy)]);
      const all = Object.values(ports);
      expect(new Set(all).size).toBe(4);
      expect(all).not.toContain(portOf(busy));
      // below the kernel's ephemeral range, where no outgoing connection takes them before Restate binds them
      for (const port of all) expect(port).toBeLessThan(ephemeralLow());
      expect(JSON.parse(readFileSync(join(dir, "ports.json"), "utf8"))).toEqual(ports);
      // a restart on the same data gets the same ports while they are free
      expect(await choosePorts(dir, [])).toEqual(ports);
    } finally {
      busy.close();
    }
  });

  it("replaces a remembered port that is taken now, and ignores a damaged file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sfbench-restate-ports-"));
    const first = await choosePorts(dir, []);
    const squatter = await listen(first.admin);
    try {
      const second = await choosePorts(dir, []);
      expect(second.admin).not.toBe(first.admin);
      expect(second.ingress).toBe(first.ingress);
    } finally {
      squatter.close();
    }
    writeFileSync(join(dir, "ports.json"), "{not json");
    await expect(choosePorts(dir, [])).resolves.toMatchObject({ fabric: expect.any(Number) });
  });
});

describe("visitBound (freq-items queries the gateway refuses)", () => {
  it("is 1 + n + ... + n^(d-1), and lets every query shape of the analytics workload through", () => {
    expect(visitBound(1, 20)).toBe(20);
    expect(visitBound(3, 2)).toBe(4);
    expect(visitBound(2, 10)).toBe(1023);
    expect(visitBound(20, 2)).toBeLessThanOrEqual(MAX_FREQ_VISITS);
    for (let n = 2; n <= 10; n++) expect(visitBound(n, Math.floor(Math.log(1000) / Math.log(n)) + 1)).toBeLessThanOrEqual(MAX_FREQ_VISITS);
  });

  it("exceeds the limit for top=100 depth=20 without overflowing", () => {
    expect(visitBound(100, 20)).toBeGreaterThan(MAX_FREQ_VISITS);
    expect(Number.isFinite(visitBound(100, 20))).toBe(true);
  });
});

describe("target.json", () => {
  it("counts the Virtual Objects as the app, and the gateway and the launcher as gateway", () => {
    const { manifest } = findTarget("restate");
    const sources = sourceFiles(fileURLToPath(new URL("..", import.meta.url)));
    for (const file of sources) expect(locSide(manifest, file).app, file).toBe(file.startsWith("src/app/"));
  });
});
