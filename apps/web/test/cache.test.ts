import { describe, expect, it } from "vitest";
import { swrCache } from "../src/server/cache.ts";

describe("the stale-while-revalidate cache", () => {
  it("loads once, serves a fresh value, serves a stale one while reloading once, and keeps it when a reload fails", async () => {
    let clock = 0;
    let loads = 0;
    let fail = false;
    const cache = swrCache(1000, async (key) => {
      loads += 1;
      if (fail) throw new Error("database down");
      return `${key}#${loads}`;
    }, () => clock);
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
});
