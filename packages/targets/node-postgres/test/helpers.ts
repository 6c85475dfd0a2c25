/**
 * Test harness: a fresh PostgreSQL database per test file and the target on a
 * real loopback port, spoken to over HTTP only.
 *
 * The database comes from @sfbench/services, or, when TEST_DATABASE_URL is
 * set, from that server (a fresh database is still created per file).
 */
import pg from "pg";
import { createServer, type ServerOptions, type TargetServer } from "../src/server.ts";

async function freshDatabaseOn(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A new, empty database named after the test file. */
export async function testDatabase(name: string): Promise<string> {
  const dbName = `np_test_${name}`;
  const external = process.env.TEST_DATABASE_URL;
  if (external) return freshDatabaseOn(external, dbName);
  const services = await import("@sfbench/services");
  await services.up(["postgres"]);
  return services.createDatabase(dbName, { fresh: true });
}

export interface Answer {
  status: number;
  body: unknown;
  text: string;
  contentType: string | null;
}

export interface RunningTarget {
  url: string;
  server: TargetServer;
  databaseUrl: string;
  /** `body`: an object is sent as JSON; a string is sent as it is (for malformed input). */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  close(): Promise<void>;
}

export async function startTarget(databaseUrl: string, options: Partial<ServerOptions> = {}): Promise<RunningTarget> {
  const server = await createServer({ databaseUrl, ...options });
  await server.ready;
  const address = await server.app.listen({ port: 0, host: "127.0.0.1" });
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "content-type": "application/json", ...headers };
    }
    const res = await fetch(address + path, init);
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, body: parsed, text, contentType: res.headers.get("content-type") };
  };
  return { url: address, server, databaseUrl, call, close: () => server.close() };
}

/** Helpers that build state through the API and insist on 200. */
export function shopper(t: RunningTarget) {
  const ok = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const answer = await t.call(method, path, body);
    if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
    return answer.body;
  };
  return {
    ok,
    product: async (price: number, stock: number) => (await ok("POST", "/products", { price, stock })) as string,
    /** a product with a chosen id (PATCH is an upsert) */
    namedProduct: async (id: string, price = 1, stock = 1_000_000) => (await ok("PATCH", `/products/${encodeURIComponent(id)}`, { price, stock })) as string,
    user: async (credits: number) => (await ok("POST", "/users", { credits })) as string,
    cart: async (items: Record<string, number> = {}) => {
      const cartId = (await ok("POST", "/shopping-carts")) as string;
      for (const [productId, amount] of Object.entries(items)) {
        await ok("POST", `/shopping-carts/${cartId}/products`, { productId, amount });
      }
      return cartId;
    },
    checkout: (cartId: string, userId: string) => t.call("POST", "/orders/checkout", { cartId, userId }),
    /** one completed order of these products, bought by a rich user */
    buy: async (productIds: readonly string[]) => {
      const userId = (await ok("POST", "/users", { credits: 1_000_000_000 })) as string;
      const cartId = (await ok("POST", "/shopping-carts")) as string;
      for (const productId of productIds) await ok("POST", `/shopping-carts/${cartId}/products`, { productId, amount: 1 });
      const answer = await t.call("POST", "/orders/checkout", { cartId, userId });
      if (answer.status !== 200) throw new Error(`checkout -> ${answer.status} ${answer.text}`);
      return answer.body as { orderId: string; total: number };
    },
  };
}
