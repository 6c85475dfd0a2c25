/**
 * Test harness: the target is built and started by @sfbench/provider-local
 * (the same build and launcher a run uses) and spoken to over HTTP only.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { parseSpanLine, type Span } from "@sfbench/core";

export const TARGET = "statefun";

export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });
}

/** A free port of this target's range (18901-18999; 18900 is the manifest's default). */
export async function freePort(): Promise<number> {
  for (let port = 18901; port <= 18999; port++) if (await portFree(port)) return port;
  throw new Error("no free port in 18901-18999");
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

/** The span lines of one trace in the target's log (the gateway's and the JVM's). */
export function spansOf(logFile: string, traceId: string): Span[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .map(parseSpanLine)
    .filter((s): s is Span => s !== null && s.traceId === traceId);
}

/** The pid of the launcher's child whose command line contains `needle` (the JVM: "dev.sfbench.statefun.Main"). */
export function childPid(launcherPid: number, needle: string): number {
  const children = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, "utf8").trim().split(/\s+/).map(Number);
  for (const pid of children) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    if (cmdline.includes(needle)) return pid;
  }
  throw new Error(`no child of ${launcherPid} runs ${needle}`);
}
