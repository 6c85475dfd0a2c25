/**
 * A node is gone only when every process of its group is: a launcher can die
 * a moment before the server it started, which still holds the port.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { groupMembers, killGroup, waitGone, waitGroupGone } from "../src/target-process.ts";

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
});
