/**
 * "Frequently bought together" (SPEC 2.1 step 6, 2.2): one Virtual Object per
 * product id, apart from the Product object so that counting co-purchases
 * never waits for (or delays) stock retractions on the product's lock.
 *
 * `add` is exclusive and reached only by one-way messages from completed
 * checkouts, which Restate delivers exactly once. `visit` is the recursive
 * traversal of SPEC 2.2 as calls between these objects; it is a shared
 * handler, so a product visited by several branches at once, or a cycle,
 * never waits for a lock held by its own caller.
 */
import * as restate from "@restatedev/restate-sdk";
import { RestatePromise, serde, type ObjectContext, type ObjectSharedContext } from "@restatedev/restate-sdk";
import { DONE, type Done } from "./outcome.ts";
import { spanHeaders, traced } from "./trace.ts";

/** q -> number of completed orders that contained this product and q */
export type Counts = Record<string, number>;

export interface Visit {
  top: number;
  depth: number;
  /** V of SPEC 2.2: products already visited on the path here, excluded from top */
  exclude: string[];
}

const STATE = "counts";

/** top(p, n, V): the n partners with the highest count, ties by ascending id, outside V. */
export function topOf(counts: Counts, n: number, exclude: ReadonlySet<string>): string[] {
  return Object.keys(counts)
    .filter((q) => !exclude.has(q))
    .sort((a, b) => counts[b]! - counts[a]! || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, n);
}

export const coPurchase = restate.object({
  name: "CoPurchase",
  handlers: {
    add: traced("product", "addCoPurchases", async (ctx: ObjectContext, others: string[]): Promise<Done> => {
      const counts = (await ctx.get<Counts>(STATE)) ?? {};
      for (const q of others) counts[q] = (counts[q] ?? 0) + 1;
      ctx.set<Counts>(STATE, counts);
      return DONE;
    }),

    visit: restate.handlers.object.shared(
      traced("product", "top", async (ctx: ObjectSharedContext, { top, depth, exclude }: Visit, span): Promise<string[]> => {
        const counts = (await ctx.get<Counts>(STATE)) ?? {};
        const chosen = topOf(counts, top, new Set(exclude));
        if (depth <= 1 || chosen.length === 0) return chosen;
        const next: Visit = { top, depth: depth - 1, exclude: [...exclude, ...chosen] };
        // The same handler on other keys; a generic call, since this object cannot name its own type here.
        const below = await RestatePromise.all(
          chosen.map((key) =>
            ctx.genericCall<Visit, string[]>({
              service: "CoPurchase",
              method: "visit",
              key,
              parameter: next,
              inputSerde: serde.json,
              outputSerde: serde.json,
              headers: spanHeaders(span),
            }),
          ),
        );
        return [...new Set([...chosen, ...below.flat()])];
      }),
    ),
  },
});

export type CoPurchase = typeof coPurchase;
