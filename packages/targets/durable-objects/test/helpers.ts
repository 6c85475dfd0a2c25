/**
 * Tests start the target the way sfbench does: through @sfbench/provider-local
 * from target.json (launcher, Miniflare, workerd), on a port of 18700-18799.
 * provider-local keeps one running instance per target name, so the test
 * files run one after another (vitest.config.ts).
 */
import { readFileSync } from "node:fs";
import { killTarget, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";

export const NAME = "durable-objects";

export interface Answer {
  status: number;
  body: unknown;
  text: string;
}

export interface RunningTarget {
  started: StartedTarget;
  url: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** the target's stdout + stderr so far (the provider's log file) */
  log(): string;
  stop(): Promise<void>;
}

export async function start(port: number, opts: { trace?: boolean; keepData?: boolean } = {}): Promise<RunningTarget> {
  await stopTarget(NAME); // an instance a crashed earlier test run left behind
  const started = await startTarget(NAME, { port, trace: opts.trace ?? false, keepData: opts.keepData ?? false });
  const url = started.url;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const init: RequestInit = { method, headers };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "content-type": "application/json", ...headers };
    }
    const res = await fetch(url + path, init);
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text };
  };
  return { started, url, call, log: () => readFileSync(started.log, "utf8"), stop: async () => void (await stopTarget(NAME)) };
}

/**
 * Kills every process of the target at once (SIGKILL to its process group): a
 * crash, no dispose. Waits until the whole group is gone, workerd included:
 * the launcher dies first, and a workerd still exiting holds the port.
 */
export async function crash(t: RunningTarget): Promise<void> {
  const killed = await killTarget(NAME, "SIGKILL");
  if (killed.nodes.some((n) => n.goneAt === undefined)) throw new Error(`a process of ${NAME} (pid ${t.started.pid}'s group) outlived SIGKILL by 10 s`);
  await stopTarget(NAME); // forgets the dead instance's state file
}

/** Helpers that build state through the API and insist on 200. */
export function shopper(t: RunningTarget) {
  const ok = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const answer = await t.call(method, path, body);
    if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const cart = async (items: Record<string, number> = {}) => {
    const cartId = (await ok("POST", "/shopping-carts")) as string;
    for (const [productId, amount] of Object.entries(items)) await ok("POST", `/shopping-carts/${cartId}/products`, { productId, amount });
    return cartId;
  };
  return {
    ok,
    cart,
    product: async (price: number, stock: number) => (await ok("POST", "/products", { price, stock })) as string,
    namedProduct: async (id: string, price = 1, stock = 1_000_000) => (await ok("PATCH", `/products/${encodeURIComponent(id)}`, { price, stock })) as string,
    user: async (credits: number) => (await ok("POST", "/users", { credits })) as string,
    checkout: (cartId: string, userId: string, headers?: Record<string, string>) => t.call("POST", "/orders/checkout", { cartId, userId }, headers),
    /** one completed order of these products, bought by a rich user */
    buy: async (productIds: readonly string[]) => {
      const userId = (await ok("POST", "/users", { credits: 1_000_000_000 })) as string;
      const cartId = await cart(Object.fromEntries(productIds.map((p) => [p, 1])));
      const answer = await t.call("POST", "/orders/checkout", { cartId, userId });
      if (answer.status !== 200) throw new Error(`checkout -> ${answer.status} ${answer.text}`);
      return answer.body as { orderId: string; total: number };
    },
  };
}

/** Waits until `probe` returns true (co-purchase counts are written after the answer). */
export async function eventually(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
