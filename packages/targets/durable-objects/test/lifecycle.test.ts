/**
 * The launcher owns workerd: stopping the target leaves no process of it,
 * workerd dying on its own ends the launcher with code 1 (so the runner sees
 * the target fail), and a missing SFBENCH_DATA_DIR is a clear error.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { groupMembers, isAlive } from "@sfbench/provider-local";
import { start } from "./helpers.ts";

const workerdOf = (pgid: number) => groupMembers(pgid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd"));

describe("the launcher and workerd", () => {
  it("runs workerd in the launcher's process group, and stopping the target leaves none of them", async () => {
    const t = await start(18716);
    const pgid = t.started.pid;
    expect(workerdOf(pgid)).toHaveLength(1);
    await t.stop();
    expect(groupMembers(pgid)).toEqual([]);
  });

  it("exits with code 1 when workerd dies on its own", async () => {
    const t = await start(18716);
    const [workerd] = workerdOf(t.started.pid);
    process.kill(workerd!, "SIGKILL");
    const deadline = performance.now() + 10_000;
    // until the exit is reported, not just until the pid is gone: the exit event comes a moment later
    while (t.started.exited() === undefined && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(isAlive(t.started.pid)).toBe(false);
    expect(t.started.exited()).toBe("code 1");
    expect(t.log()).toMatch(/workerd \(pid \d+\) exited, stopping/);
    await t.stop();
  });

  it("refuses to start without SFBENCH_DATA_DIR, naming it", () => {
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: "18717" };
    delete env.SFBENCH_DATA_DIR;
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/launcher/main.ts"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env,
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/SFBENCH_DATA_DIR: /);
  });
});
