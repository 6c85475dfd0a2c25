/**
 * The launcher owns workerd: stopping the target leaves no process of it,
 * workerd dying on its own ends the launcher with code 1 (so the runner sees
 * the target fail), and a missing SFBENCH_DATA_DIR is a clear error.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isAlive } from "@sfbench/provider-local";
import { start } from "./helpers.ts";

/** Live pids in a process group. */
function group(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return Number(fields[2]) === pgid && fields[0] !== "Z" ? [Number(d)] : [];
      } catch {
        return [];
      }
    });
}

const workerdOf = (pgid: number) => group(pgid).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd"));

describe("the launcher and workerd", () => {
  it("runs workerd in the launcher's process group, and stopping the target leaves none of them", async () => {
    const t = await start(18716);
    const pgid = t.started.pid;
    expect(workerdOf(pgid)).toHaveLength(1);
    await t.stop();
    expect(group(pgid)).toEqual([]);
  });

  it("exits with code 1 when workerd dies on its own", async () => {
    const t = await start(18716);
    const [workerd] = workerdOf(t.started.pid);
    process.kill(workerd!, "SIGKILL");
    const deadline = Date.now() + 10_000;
    // until the exit is reported, not just until the pid is gone: the exit event comes a moment later
    while (t.started.exited() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
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
