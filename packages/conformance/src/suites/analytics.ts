/**
 * Frequently-bought-together (SPEC 2.2) on a graph the suite builds through
 * checkouts, with ids it chooses (PATCH upsert) so that tie-breaks are known.
 *
 *   a: b 3, c 2, d 2, e 1      (c and d tie: ascending id puts c first)
 *   b: a 3, f 2                f: b 2, h 1
 *   c: a 2, g 1                g: c 1
 *   d: a 2, h 1                h: d 1, f 1
 *   cycle x-y-z-x, one order each; and one order {m1, m2, m3}
 */
import { Actions, runPrefix } from "../actions.ts";
import { expectError, expectSet, fail, type Check } from "../check.ts";
import type { Client } from "../client.ts";

const NAMES = ["a", "b", "c", "d", "e", "f", "g", "h", "lonely", "x", "y", "z", "m1", "m2", "m3"] as const;
type Name = (typeof NAMES)[number];

const ORDERS: Array<[Name[], number]> = [
  [["a", "b"], 3],
  [["a", "c"], 2],
  [["a", "d"], 2],
  [["a", "e"], 1],
  [["b", "f"], 2],
  [["c", "g"], 1],
  [["d", "h"], 1],
  [["f", "h"], 1],
  [["x", "y"], 1],
  [["y", "z"], 1],
  [["z", "x"], 1],
  [["m1", "m2", "m3"], 1],
];

interface Graph {
  id: Record<Name, string>;
  names: Map<string, string>;
}

/** Co-purchase counts are updated after the answer: wait until the last order is visible. */
async function waitQuiet(a: Actions, id: Record<Name, string>, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last: string[] = [];
  while (performance.now() < deadline) {
    last = await a.freqItems(id.h, 2);
    const m = await a.freqItems(id.m3, 2);
    if ([id.d, id.f].every((x) => last.includes(x)) && [id.m1, id.m2].every((x) => m.includes(x))) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  fail(`co-purchase counts did not appear within ${timeoutMs} ms of the last checkout (freq-items of h: ${JSON.stringify(last)})`);
}

async function buildGraph(c: Client, quietMs: number): Promise<Graph> {
  const a = new Actions(c);
  const prefix = runPrefix();
  const id = Object.fromEntries(NAMES.map((n) => [n, `${prefix}-${n}`])) as Record<Name, string>;
  for (const n of NAMES) await a.upsertProduct(id[n], { price: 1, stock: 1000 });
  const user = await a.createUser(100_000);
  for (const [items, times] of ORDERS)
    await a.buyTogether(
      user,
      items.map((n) => id[n]),
      times,
    );
  await waitQuiet(a, id, quietMs);
  return { id, names: new Map(NAMES.map((n) => [id[n], n])) };
}

export function analytics(opts: { quietMs: number }): Check[] {
  let graph: Promise<Graph> | undefined;
  const setup = (c: Client) => (graph ??= buildGraph(c, opts.quietMs)).catch((e: Error) => fail(`building the co-purchase graph failed: ${e.message}`));
  const q =
    (id: string, top: number | undefined, depth: number | undefined, expected: Name[], what: string): Check["run"] =>
    async (c) => {
      const g = await setup(c);
      const answer = await new Actions(c).freqItems(g.id[id as Name], top, depth);
      expectSet(
        answer,
        expected.map((n) => g.id[n]),
        what,
        g.names,
      );
    };
  return [
    { id: "top-descending", title: "top=1 answers the most frequent co-purchase", run: q("a", 1, 1, ["b"], "freq-items of a, top 1") },
    { id: "tie-break-ascending-id", title: "equal counts are broken by ascending id", run: q("a", 2, 1, ["b", "c"], "freq-items of a, top 2 (c and d tie)") },
    { id: "defaults", title: "without a query top=3 and depth=1 are used", run: q("a", undefined, undefined, ["b", "c", "d"], "freq-items of a, no query") },
    {
      id: "fewer-than-top",
      title: "a product with fewer co-purchases than top answers all of them",
      run: q("b", 10, 1, ["a", "f"], "freq-items of b, top 10"),
    },
    { id: "symmetric", title: "counts are kept in both directions (count[p][q] = count[q][p])", run: q("g", 1, 1, ["c"], "freq-items of g, top 1") },
    { id: "no-co-purchases", title: "a product never bought with another answers []", run: q("lonely", 3, 1, [], "freq-items of a lonely product") },
    { id: "all-pairs-of-an-order", title: "an order of three products counts every pair", run: q("m2", 5, 1, ["m1", "m3"], "freq-items of m2") },
    { id: "depth-linear", title: "top=1 depth=3 follows the chain a -> b -> f -> h", run: q("a", 1, 3, ["b", "f", "h"], "freq-items of a, top 1 depth 3") },
    {
      id: "depth-fan-out",
      title: "top=3 depth=2 visits every child, excluding the root and the visited",
      run: q("a", 3, 2, ["b", "c", "d", "f", "g", "h"], "freq-items of a, top 3 depth 2"),
    },
    { id: "visited-excluded", title: "top counts exclude visited products before taking n", run: q("b", 1, 2, ["a", "c"], "freq-items of b, top 1 depth 2") },
    {
      id: "cycle-terminates",
      title: "a cycle with depth 10 terminates and answers each product once",
      run: q("x", 2, 10, ["y", "z"], "freq-items of x in the cycle x-y-z, top 2 depth 10"),
    },
    {
      id: "unknown-product-404",
      title: "freq-items of an unknown product answers 404",
      run: async (c) => expectError(await c.get(`/products/${runPrefix()}-missing/freq-items`), 404),
    },
  ];
}
