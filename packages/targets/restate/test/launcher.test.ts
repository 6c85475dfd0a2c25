/**
 * The launcher on its own (spawned like provider-local does, detached in its
 * own process group): it owns every process it starts, also when it is
 * stopped half-way or cannot finish starting.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "@sfbench/provider-local";
import { groupPids } from "./helpers.ts";

const root = new URL("..", import.meta.url).pathname;
const dataDirs: string[] = [];
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

function launch(port: number): { proc: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const dataDir = mkdtempSync(join(tmpdir(), "sfbench-restate-launcher-"));
  dataDirs.push(dataDir);
  const proc = spawn(process.execPath, ["--import", "tsx", "src/launcher/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", SFBENCH_DATA_DIR: dataDir, SFBENCH_TRACE: "0" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  proc.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  proc.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return { proc, output: () => out, exit };
}

async function until(what: string, probe: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!probe()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the launcher", () => {
  it("stops what it started and exits 0 when SIGTERM comes during start-up", { timeout: 120_000 }, async () => {
    const l = launch(18620);
    await until("the Restate server to start", () => /ports: ingress/.test(l.output()) && groupPids(l.proc.pid!).length >= 3);
    const pids = groupPids(l.proc.pid!);
    l.proc.kill("SIGTERM");
    expect(await l.exit).toBe(0);
    await until("every child to be gone", () => pids.filter(isAlive).length === 0, 15_000);
  });

  it("exits 1 and leaves nothing when the gateway cannot listen on PORT", { timeout: 180_000 }, async () => {
    const squatter = await new Promise<Server>((resolve) => {
      const srv = createServer();
      srv.listen(18621, "127.0.0.1", () => resolve(srv));
    });
    try {
      const l = launch(18621);
      let pids: number[] = [];
      await until("the children to start", () => (pids = groupPids(l.proc.pid!)).length >= 3);
      expect(await l.exit).toBe(1);
      expect(l.output()).toMatch(/gateway exited with code 1; stopping the target/);
      await until("every child to be gone", () => groupPids(l.proc.pid!).length === 0 && pids.filter(isAlive).length === 0, 15_000);
    } finally {
      squatter.close();
    }
  });
});
