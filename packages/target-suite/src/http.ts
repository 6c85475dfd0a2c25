/**
 * The target's API as a test speaks it: plain HTTP requests, the shopper
 * that builds state and insists on 200, and a poll for what a target writes
 * after its answer (co-purchase counts, span lines). Black-box: every target
 * is spoken to the same way, whatever it runs on.
 */

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

/** One request; an object body is sent as JSON, a string body as it is (for malformed input). */
export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json", ...headers };
  }
  const res = await fetch(base + path, init);
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

/** Requests that build state through the API and must answer 200. */
export function shopper(base: string) {
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<unknown> => {
    const answer = await call(base, method, path, body, headers);
    if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const cart = async (items: Record<string, number> = {}) => {
    const cartId = (await ok("POST", "/shopping-carts")) as string;
    for (const [productId, amount] of Object.entries(items)) await ok("POST", `/shopping-carts/${cartId}/products`, { productId, amount });
    return cartId;
  };
  const checkout = (cartId: string, userId: string, headers?: Record<string, string>) => call(base, "POST", "/orders/checkout", { cartId, userId }, headers);
  return {
    ok,
    cart,
    checkout,
    product: async (price: number, stock: number) => (await ok("POST", "/products", { price, stock })) as string,
    /** a product with a chosen id (PATCH is an upsert) */
    namedProduct: async (id: string, price = 1, stock = 1_000_000) => (await ok("PATCH", `/products/${encodeURIComponent(id)}`, { price, stock })) as string,
    user: async (credits: number) => (await ok("POST", "/users", { credits })) as string,
    /** one completed order of these products, bought by a rich user */
    buy: async (productIds: readonly string[]) => {
      const userId = (await ok("POST", "/users", { credits: 1_000_000_000 })) as string;
      const cartId = await cart(Object.fromEntries(productIds.map((p) => [p, 1])));
      const answer = await checkout(cartId, userId);
      if (answer.status !== 200) throw new Error(`checkout -> ${answer.status} ${answer.text}`);
      return answer.body as { orderId: string; total: number };
    },
  };
}

/**
 * Polls until `check` holds: it resolves to anything but `false` (an
 * assertion that throws, or a probe that answers a boolean). After `ms` the
 * last error is thrown, or one that says the probe never held.
 */
export async function eventually<T>(check: () => Promise<T>, ms = 30_000): Promise<Exclude<T, false>> {
  const deadline = performance.now() + ms;
  for (;;) {
    let failure: unknown;
    try {
      const value = await check();
      if (value !== false) return value as Exclude<T, false>;
      failure = new Error(`not true within ${ms} ms`);
    } catch (e) {
      failure = e;
    }
    if (performance.now() > deadline) throw failure;
    await new Promise((r) => setTimeout(r, 100));
  }
}
