/**
 * Waiting for a child to listen: portAnswers connects, where portFree would
 * bind the port for a moment, and a child whose listen fell in that moment
 * exited with "address in use" (a busy CI run lost sfbench's balancer so).
 */
import net from "node:net";
import { freePort } from "@sfbench/core/ports";
import { describe, expect, it } from "vitest";
import { portAnswers } from "../src/process.ts";

function listen(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("whether a port answers", () => {
  it("is asked by connecting, which never takes the port from the listener being waited for", async () => {
    const port = await freePort();
    expect(await portAnswers(port)).toBe(false);
    // a child's listen racing the waiter's probes, many times over: not one may find the port taken
    let waiting = true;
    const waiter = (async () => {
      while (waiting) await portAnswers(port);
    })();
    try {
      for (let i = 0; i < 300; i++) {
        const server = await listen(port);
        expect(await portAnswers(port)).toBe(true);
        await new Promise((resolve) => server.close(resolve));
      }
    } finally {
      waiting = false;
      await waiter;
    }
  });
});
