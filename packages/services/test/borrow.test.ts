/**
 * Borrowing a shared server, with a fake server (a flag) under a name of this
 * test's own: started when down, stopped by the last borrower to give it back,
 * left alone when it was up before or kept by someone meanwhile. The real
 * Kafka case is in lifecycle.test.ts, on a private home.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { borrowService, keepService, liveBorrowers } from "../src/borrow.ts";
import { paths } from "../src/env.ts";
import type { Service, ServiceStatus } from "../src/types.ts";

function fakeServer(runningAtFirst = false) {
  const calls: string[] = [];
  let running = runningAtFirst;
  const report = (): ServiceStatus => ({ name: "redis", running, detail: running ? "up" : "down" });
  const service: Service = {
    up: async () => {
      calls.push("up");
      running = true;
      return report();
    },
    down: async () => {
      calls.push("down");
      running = false;
    },
    status: async () => report(),
  };
  return { service, calls, running: () => running };
}

const noProgress = () => undefined;
const names: string[] = [];
const uniqueName = () => {
  names.push(`fake-${randomUUID().slice(0, 8)}`);
  return names.at(-1)!;
};

afterAll(() => {
  for (const name of names) rmSync(path.join(paths.home, "services", "borrowed", name), { recursive: true, force: true });
});

describe("borrowing a shared server", () => {
  it("starts a server that is down and stops it when given back", async () => {
    const name = uniqueName();
    const s = fakeServer();
    const b = await borrowService(name, s.service, noProgress);
    expect(b.started).toBe(true);
    expect(s.running()).toBe(true);
    expect(await liveBorrowers(name)).toBe(1);
    await b.release();
    await b.release();
    expect(s.calls).toEqual(["up", "down"]);
    expect(await liveBorrowers(name)).toBe(0);
  });

  it("leaves a server that was up before as it found it", async () => {
    const name = uniqueName();
    const s = fakeServer(true);
    const b = await borrowService(name, s.service, noProgress);
    expect(b.started).toBe(false);
    await b.release();
    expect(s.calls).toEqual([]);
    expect(s.running()).toBe(true);
  });

  it("is stopped by the last of two borrowers, not the first", async () => {
    const name = uniqueName();
    const s = fakeServer();
    const first = await borrowService(name, s.service, noProgress);
    const second = await borrowService(name, s.service, noProgress);
    expect([first.started, second.started]).toEqual([true, false]);
    await first.release();
    expect(s.running()).toBe(true);
    await second.release();
    expect(s.calls).toEqual(["up", "down"]);
  });

  it("stays up when someone asks for it with up() while it is borrowed", async () => {
    const name = uniqueName();
    const s = fakeServer();
    const b = await borrowService(name, s.service, noProgress);
    await keepService(name);
    await b.release();
    expect(s.calls).toEqual(["up"]);
    expect(s.running()).toBe(true);
  });

  it("does not count a borrower whose process died without giving it back", async () => {
    const name = uniqueName();
    const s = fakeServer();
    const b = await borrowService(name, s.service, noProgress);
    const dead = spawnSync("true").pid!;
    const dir = path.join(paths.home, "services", "borrowed", name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${dead}-gone`), String(dead));
    expect(await liveBorrowers(name)).toBe(1);
    await b.release();
    expect(s.calls).toEqual(["up", "down"]);
  });

  it("stops nothing when the start failed, and records no borrower", async () => {
    const name = uniqueName();
    const s = fakeServer();
    s.service.up = async () => {
      throw new Error("no broker today");
    };
    await expect(borrowService(name, s.service, noProgress)).rejects.toThrow("no broker today");
    expect(await liveBorrowers(name)).toBe(0);
  });
});
