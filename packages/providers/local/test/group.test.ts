/**
 * A node is gone only when every process of its group is: a launcher can die
 * a moment before the server it started, which still holds the port.
 */
import { spawn } from "node:child_process";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, groupMembers, isAlive, killGroup, waitGone, waitGroupGone } from "../src/target-process.ts";

/** How a connection to 127.0.0.1:port ends: "connected" or the error's code. */
function connect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/** A Node.js HTTP server (several threads) on `port`, in a process group of its own, once it listens. */
async function server(port: number): Promise<number> {
  const child = spawn(process.execPath, ["-e", `require("node:http").createServer((q, r) => r.end()).listen(${port}, "127.0.0.1", () => console.log("up"))`], {
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    child.stdout!.once("data", resolve);
    child.once("exit", (code) => reject(new Error(`server on ${port} exited with ${code}`)));
  });
  child.stdout!.destroy();
  return child.pid!;
}

describe("waiting for a node's processes to be gone", () => {
  it("counts a group as alive while a child outlives its leader, and gone once the whole group is", async () => {
    const leader = spawn("sh", ["-c", "sleep 30 & sleep 30 & wait"], { detached: true, stdio: "ignore" });
    const pgid = leader.pid!;
    try {
      await expect.poll(() => groupMembers(pgid).length, { timeout: 10_000 }).toBe(3);
      process.kill(pgid, "SIGKILL"); // the leader only
      expect(await waitGone(pgid, 10_000)).toBe(true);
      // the leader is gone but its children are not: the node is not gone
      expect(groupMembers(pgid)).toHaveLength(2);
      expect(await waitGroupGone(pgid, 300)).toBe(false);
      killGroup(pgid, "SIGKILL");
      expect(await waitGroupGone(pgid, 10_000)).toBe(true);
      expect(groupMembers(pgid)).toEqual([]);
    } finally {
      killGroup(pgid, "SIGKILL");
    }
  });

  it("counts a killed server as gone only once its port refuses connections", { timeout: 120_000 }, async () => {
    // its leader thread is a zombie while its other threads still exit and hold the listening socket
    for (let i = 0; i < 10; i++) {
      const port = await freePort();
      const pid = await server(port);
      killGroup(pid, "SIGKILL");
      expect(await waitGroupGone(pid, 10_000)).toBe(true);
      expect(isAlive(pid)).toBe(false);
      expect(await connect(port)).toBe("ECONNREFUSED");

      // the same for one process waited on alone
      const otherPort = await freePort();
      const other = await server(otherPort);
      killGroup(other, "SIGKILL");
      expect(await waitGone(other, 10_000)).toBe(true);
      expect(await connect(otherPort)).toBe("ECONNREFUSED");
    }
  });
});
