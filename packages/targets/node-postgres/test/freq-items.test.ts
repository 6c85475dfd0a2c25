import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody, FreqItems } from "@sfbench/core";
import { shopper, startTarget, testDatabase, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;
let s: ReturnType<typeof shopper>;

beforeAll(async () => {
  t = await startTarget(await testDatabase("freq_items"));
  s = shopper(t);
});
afterAll(async () => {
  await t?.close();
});

/** Products with chosen ids, one order per given set; then waits until co-purchase counts are written. */
async function graph(ids: readonly string[], orders: readonly (readonly string[])[]): Promise<void> {
  for (const id of ids) await s.namedProduct(id);
  for (const order of orders) await s.buy(order);
  await t.server.settle();
}

const repeat = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);

async function freq(id: string, query = ""): Promise<string[]> {
  const answer = await t.call("GET", `/products/${id}/freq-items${query}`);
  expect(answer.status, answer.text).toBe(200);
  return FreqItems.parse(answer.body).sort();
}

describe("co-purchase counts", () => {
  it("count[p][q] = count[q][p] = orders containing both, once written after the answers", async () => {
    await graph(["cp-a", "cp-b", "cp-c"], [["cp-a", "cp-b"], ["cp-a", "cp-b", "cp-c"], ["cp-b", "cp-c"], ["cp-c"]]);
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ p: string; q: string; count: string }>("SELECT p, q, count FROM co_purchase WHERE p LIKE 'cp-%' ORDER BY p, q");
      expect(rows.map((r) => `${r.p}>${r.q}=${r.count}`)).toEqual(["cp-a>cp-b=2", "cp-a>cp-c=1", "cp-b>cp-a=2", "cp-b>cp-c=2", "cp-c>cp-a=1", "cp-c>cp-b=2"]);
    } finally {
      await db.end();
    }
  });

  it("counts every order when many checkouts finish at once", async () => {
    const ids = ["burst-a", "burst-b", "burst-c"];
    for (const id of ids) await s.namedProduct(id);
    await Promise.all(Array.from({ length: 50 }, () => s.buy(ids)));
    await t.server.settle();
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ count: string }>("SELECT count FROM co_purchase WHERE p LIKE 'burst-%'");
      expect(rows.map((r) => Number(r.count))).toEqual(repeat(6, 50));
    } finally {
      await db.end();
    }
  });
});

describe("freq-items", () => {
  beforeAll(async () => {
    // count[r]: a 3, b 2, c 2, d 1
    await graph(["r", "a", "b", "c", "d"], [...repeat(3, ["r", "a"]), ...repeat(2, ["r", "b"]), ...repeat(2, ["r", "c"]), ["r", "d"]]);
  });

  it("returns the most frequent partners first, by descending count", async () => {
    expect(await freq("r", "?top=1")).toEqual(["a"]);
  });

  it("breaks ties by ascending id", async () => {
    expect(await freq("r", "?top=2")).toEqual(["a", "b"]);
  });

  it("defaults to top=3, depth=1 and returns fewer when fewer exist", async () => {
    expect(await freq("r")).toEqual(["a", "b", "c"]);
    expect(await freq("r", "?top=100")).toEqual(["a", "b", "c", "d"]);
  });

  it("answers [] for a product never bought with another", async () => {
    await s.namedProduct("lonely");
    expect(await freq("lonely", "?top=5&depth=5")).toEqual([]);
  });

  it("follows a chain to the given depth", async () => {
    await graph(
      ["x1", "x2", "x3", "x4", "x5"],
      [
        ["x1", "x2"],
        ["x2", "x3"],
        ["x3", "x4"],
        ["x4", "x5"],
      ],
    );
    expect(await freq("x1", "?top=1&depth=1")).toEqual(["x2"]);
    expect(await freq("x1", "?top=1&depth=3")).toEqual(["x2", "x3", "x4"]);
    expect(await freq("x1", "?top=1&depth=20")).toEqual(["x2", "x3", "x4", "x5"]);
  });

  it("terminates on cycles and excludes the root", async () => {
    await graph(
      ["c1", "c2", "c3"],
      [
        ["c1", "c2"],
        ["c2", "c3"],
        ["c3", "c1"],
      ],
    );
    expect(await freq("c1", "?top=1&depth=20")).toEqual(["c2", "c3"]);
    expect(await freq("c1", "?top=2&depth=20")).toEqual(["c2", "c3"]);
  });

  it("excludes the visited set before taking the top n", async () => {
    // count[m]: n 5, o 1; count[n]: m 5, z 1. visit(m, 2): C = {n}; top(n, 1, {m, n}) = {z}, not {}.
    await graph(["m", "n", "o", "z"], [...repeat(5, ["m", "n"]), ["m", "o"], ["n", "z"]]);
    expect(await freq("m", "?top=1&depth=2")).toEqual(["n", "z"]);
  });

  it("visits children with V' = V ∪ C, so siblings are not each other's answers", async () => {
    // count[h]: s1 2, s2 2; count[s1]: s2 3, h 2, l1 1, l3 1; count[s2]: s1 3, h 2, l2 1.
    // With s2 excluded from top(s1, 2, V') the answer gains l3.
    await graph(
      ["h", "s1", "s2", "l1", "l2", "l3"],
      [...repeat(2, ["h", "s1"]), ...repeat(2, ["h", "s2"]), ...repeat(3, ["s1", "s2"]), ["s1", "l1"], ["s1", "l3"], ["s2", "l2"]],
    );
    expect(await freq("h", "?top=2&depth=2")).toEqual(["l1", "l2", "l3", "s1", "s2"]);
  });

  it("answers 404 for an unknown root and 400 for bad top or depth", async () => {
    const unknown = await t.call("GET", "/products/nobody/freq-items");
    expect(unknown.status).toBe(404);
    for (const query of ["?top=0", "?top=101", "?depth=0", "?depth=21", "?top=abc", "?top=1.5", "?top=&depth=2"]) {
      const answer = await t.call("GET", `/products/r/freq-items${query}`);
      expect(answer.status, query).toBe(400);
      expect(ErrorBody.parse(answer.body).error).toBe("bad-request");
    }
  });
});
