import { describe, expect, it } from "vitest";
import { swrCache } from "../src/server/cache.ts";

describe("the stale-while-revalidate cache", () => {
  it("loads once, serves a fresh value, serves a stale one while reloading once, and keeps it when a reload fails", async () => {
    let clock = 0;
    let loads = 0;
    let fail = false;
    const cache = swrCache(
      1000,
      async (key) => {
        loads += 1;
        if (fail) throw new Error("database down");
        return `${key}#${loads}`;
      },
      () => clock,
    );
    expect(await Promise.all([cache.get("a"), cache.get("a")])).toEqual(["a#1", "a#1"]);
    clock = 999;
    expect(await cache.get("a")).toBe("a#1");
    clock = 1000;
    expect(await cache.get("a")).toBe("a#1"); // stale: served, reload started
    await new Promise((r) => setTimeout(r, 0));
    expect(await cache.get("a")).toBe("a#2");
    expect(loads).toBe(2);
    fail = true;
    clock = 5000;
    expect(await cache.get("a")).toBe("a#2");
    await new Promise((r) => setTimeout(r, 0));
    expect(await cache.get("a")).toBe("a#2");
    cache.clear();
    await expect(cache.get("a")).rejects.toThrow("database down");
  });

  it("does not cache with a TTL of 0", async () => {
    let loads = 0;
    const cache = swrCache(0, async () => ++loads);
    await cache.get("x");
    await cache.get("x");
    expect(loads).toBe(2);
  });

  it("reloads before serving when the data's version changed (a run completed in another process), within the TTL", async () => {
    let version = "0@0";
    let loads = 0;
    let data = "No completed runs";
    const cache = swrCache(60_000, async () => `${data}#${++loads}`, { now: () => 0, version: async () => version });
    expect(await cache.get("k")).toBe("No completed runs#1");
    expect(await cache.get("k")).toBe("No completed runs#1"); // same version: served from the cache
    data = "one run";
    version = "1@1763800000000";
    expect(await cache.get("k")).toBe("one run#2"); // the next page load shows it
    expect(await cache.get("k")).toBe("one run#2");
    expect(loads).toBe(2);
  });

  it("falls back to the TTL when the version cannot be read", async () => {
    let clock = 0;
    let loads = 0;
    const cache = swrCache(1000, async () => ++loads, { now: () => clock, version: async () => Promise.reject(new Error("database down")) });
    expect(await cache.get("k")).toBe(1);
    expect(await cache.get("k")).toBe(1);
    clock = 2000;
    expect(await cache.get("k")).toBe(1); // stale, reload started
    await new Promise((r) => setTimeout(r, 0));
    expect(await cache.get("k")).toBe(2);
  });
});
