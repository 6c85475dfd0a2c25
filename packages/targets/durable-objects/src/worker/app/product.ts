/**
 * One Durable Object per product: price, stock, the stock held by checkouts
 * in flight, and the co-purchase counts count[p][*] of SPEC 2.1 step 6.
 *
 * Storage (the synchronous KV API of a SQLite-backed object; the writes of
 * one call commit together, and the output gate holds the answer until
 * they are on disk):
 *   product        {price, stock}
 *   hold:<order>   amount retracted by a checkout that has not settled yet
 *   co:<q>         count[p][q]
 *
 * A hold makes retract, release and settle idempotent per order, so a
 * checkout that is resumed after a crash neither retracts nor counts twice.
 */
import { DurableObject } from "cloudflare:workers";
import { fail, ok, type Env, type Outcome } from "./env.ts";
import { openSpan, traced, type TraceContext } from "./trace.ts";

export interface ProductState {
  price: number;
  stock: number;
}

const HOLD = "hold:";
const CO = "co:";

export class ProductObject extends DurableObject<Env> {
  private product: ProductState | undefined;
  private loaded = false;
  /** count[p][q], loaded on first use */
  private counts: Map<string, number> | undefined;
  /** partners by descending count, then ascending id; rebuilt after counts change */
  private ranked: string[] | undefined;

  private get kv() {
    return this.ctx.storage.kv;
  }

  private state(): ProductState | undefined {
    if (!this.loaded) {
      this.product = this.kv.get<ProductState>("product");
      this.loaded = true;
    }
    return this.product;
  }

  private save(state: ProductState): void {
    this.product = state;
    this.loaded = true;
    this.kv.put("product", state);
  }

  /** POST /products: a new product (its id was just drawn). */
  create(key: string, price: number, stock: number, trace?: TraceContext): void {
    const span = openSpan(trace, "product", "createProduct", key);
    this.save({ price, stock });
    span?.end();
  }

  /** PATCH /products/{id}: upsert; price is set, stock is added. */
  upsert(key: string, price: number | undefined, stock: number, trace?: TraceContext): void {
    const span = openSpan(trace, "product", "upsertProduct", key);
    const current = this.state();
    this.save({ price: price ?? current?.price ?? 0, stock: (current?.stock ?? 0) + stock });
    span?.end();
  }

  read(key: string, trace?: TraceContext): ProductState | null {
    const span = openSpan(trace, "product", "getProduct", key);
    const state = this.state();
    span?.end();
    return state ?? null;
  }

  /** Checkout fan-out: takes `amount` from stock atomically, or nothing; answers the price. */
  retract(key: string, orderId: string, amount: number, trace?: TraceContext): Outcome<{ price: number }> {
    const span = openSpan(trace, "product", "retractStock", key);
    try {
      const state = this.state();
      if (!state) return fail("not-found", `product ${key} does not exist`);
      if (this.kv.get<number>(HOLD + orderId) !== undefined) return ok({ price: state.price }); // a resumed checkout
      if (state.stock < amount) return fail("insufficient-stock", `product ${key} has ${state.stock} in stock, the cart wants ${amount}`);
      this.save({ ...state, stock: state.stock - amount });
      this.kv.put(HOLD + orderId, amount);
      return ok({ price: state.price });
    } finally {
      span?.end();
    }
  }

  /** Compensation: puts back what the order retracted, if it still holds anything. */
  release(key: string, orderId: string, trace?: TraceContext): void {
    const span = openSpan(trace, "product", "restoreStock", key);
    const held = this.kv.get<number>(HOLD + orderId);
    const state = this.state();
    if (held !== undefined && state) {
      this.save({ ...state, stock: state.stock + held });
      this.kv.delete(HOLD + orderId);
    }
    span?.end();
  }

  /**
   * After a completed order (off the latency path): the hold becomes final and
   * count[p][q] grows by one for every other product q of the order. Keyed on
   * the hold, so an order is counted once however often this is called.
   */
  settle(orderId: string, partners: string[]): void {
    if (this.kv.get<number>(HOLD + orderId) === undefined) return;
    this.kv.delete(HOLD + orderId);
    const counts = this.loadCounts();
    for (const q of partners) {
      const next = (counts.get(q) ?? 0) + 1;
      counts.set(q, next);
      this.kv.put(CO + q, next);
    }
    this.ranked = undefined;
  }

  /**
   * SPEC 2.2 visit(p, depth, V): top-n here, then the children concurrently,
   * each a call to another product object. Nothing is locked while children
   * run, so a cycle (a product visited by several branches at once, or by its
   * own descendants) cannot deadlock. `budget` caps the visits below this
   * one, split evenly among the children: a query that could visit more
   * answers too-large instead of running for minutes.
   */
  async visit(key: string, top: number, depth: number, visited: string[], budget: number, trace?: TraceContext): Promise<Outcome<string[]>> {
    return traced(trace, "product", "top", key, async (child) => {
      if (!this.state()) return fail("not-found", `product ${key} does not exist`);
      const chosen = this.top(top, new Set(visited));
      if (depth === 1 || chosen.length === 0) return ok(chosen);
      if (chosen.length > budget) return fail("too-large", "the query would visit more products than the limit");
      const share = Math.floor((budget - chosen.length) / chosen.length);
      const next = [...visited, ...chosen];
      const answers = await Promise.all(chosen.map((q) => this.env.PRODUCTS.getByName(q).visit(q, top, depth - 1, next, share, child)));
      const found = new Set(chosen);
      for (const answer of answers) {
        if (!answer.ok) return answer;
        for (const q of answer.value) found.add(q);
      }
      return ok([...found]);
    });
  }

  /** top(p, n, V): the n partners with the highest count, ties by ascending id, not in V. */
  private top(n: number, excluded: ReadonlySet<string>): string[] {
    const chosen: string[] = [];
    for (const q of this.rank()) {
      if (chosen.length === n) break;
      if (!excluded.has(q)) chosen.push(q);
    }
    return chosen;
  }

  private rank(): string[] {
    if (!this.ranked) {
      const counts = this.loadCounts();
      this.ranked = [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
    }
    return this.ranked;
  }

  private loadCounts(): Map<string, number> {
    if (!this.counts) {
      this.counts = new Map();
      for (const [k, v] of this.kv.list<number>({ prefix: CO })) this.counts.set(k.slice(CO.length), v);
    }
    return this.counts;
  }
}
