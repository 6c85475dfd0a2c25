/**
 * Test harness: the target is built by provider-local's build step (the same
 * build a local start runs) and started by provider-local, driven over HTTP only.
 */
export const TARGET = "dapr";

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

export async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
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

/** Requests that must answer 200. */
export function shopper(base: string) {
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<unknown> => {
    const answer = await call(base, method, path, body, headers);
    if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
    return answer.body;
  };
  return {
    ok,
    product: async (price: number, stock: number) => (await ok("POST", "/products", { price, stock })) as string,
    user: async (credits: number) => (await ok("POST", "/users", { credits })) as string,
    cart: async (items: Record<string, number>) => {
      const cartId = (await ok("POST", "/shopping-carts")) as string;
      for (const [productId, amount] of Object.entries(items)) await ok("POST", `/shopping-carts/${cartId}/products`, { productId, amount });
      return cartId;
    },
  };
}

/** Polls until `check` holds (or throws its last error after `ms`). */
export async function eventually<T>(check: () => Promise<T>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
