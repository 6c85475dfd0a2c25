/**
 * Test harness: the target is built and started by @sfbench/provider-local
 * (the same Maven build and start command a run uses) and spoken to over
 * HTTP only.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { parseSpanLine, type Span } from "@sfbench/core";
import { nodeLogs } from "@sfbench/provider-local";

export const TARGET = "pekko";

export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** A free port of this target's range (18911-18949; 18910 is the manifest's default). */
export async function freePort(): Promise<number> {
  for (let port = 18911; port <= 18949; port++) if (await portFree(port)) return port;
  throw new Error("no free port in 18911-18949");
}

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
export async function eventually<T>(check: () => Promise<T>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The span lines of one trace in the logs of every node of the running target. */
export function spansOf(traceId: string): Span[] {
  return nodeLogs(TARGET)
    .filter((f) => existsSync(f))
    .flatMap((f) => readFileSync(f, "utf8").split("\n"))
    .map(parseSpanLine)
    .filter((s): s is Span => s !== null && s.traceId === traceId);
}
