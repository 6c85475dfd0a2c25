/**
 * The balancer in front of a multi-node target: a node that refuses the
 * connection is skipped (nothing was sent, so the request is safe to send
 * elsewhere); a node that dies while it works is answered 502 with a SPEC
 * error body, because the request may have had effects.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startBalancer, type Balancer } from "../src/balancer.ts";
import { freePort } from "../src/target-process.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function backend(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(
    () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function balancer(backends: string[]): Promise<Balancer> {
  const b = await startBalancer({ port: 0, backends });
  closers.push(() => b.close());
  return b;
}

describe("the balancer", () => {
  it("passes method, path and body through and alternates between nodes", async () => {
    const a = await backend((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => res.end(`a ${req.method} ${req.url} ${body}`));
    });
    const b = await backend((_req, res) => res.end("b"));
    const lb = await balancer([a.url, b.url]);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await (await fetch(`http://127.0.0.1:${lb.port}/x?y=1`, { method: "POST", body: "{}" })).text());
    expect(answers.sort()).toEqual(["a POST /x?y=1 {}", "a POST /x?y=1 {}", "b", "b"]);
  });

  it("sends a request a dead node refuses to a live one", async () => {
    const live = await backend((_req, res) => res.end("live"));
    const dead = `http://127.0.0.1:${await freePort()}`;
    const lb = await balancer([dead, live.url]);
    for (let i = 0; i < 4; i++) expect(await (await fetch(`http://127.0.0.1:${lb.port}/`)).text()).toBe("live");
  });

  it("sends nothing to a node that died between requests: the next request goes to a live node, not into a stale connection", async () => {
    const a = await backend((_req, res) => res.end("a"));
    const b = await backend((_req, res) => res.end("b"));
    const lb = await balancer([a.url, b.url]);
    for (let i = 0; i < 4; i++) await (await fetch(`http://127.0.0.1:${lb.port}/`)).text();
    a.server.closeAllConnections();
    await new Promise((r) => a.server.close(r));
    const answers = [];
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`http://127.0.0.1:${lb.port}/`);
      answers.push(`${res.status} ${await res.text()}`);
    }
    expect(answers).toEqual(Array<string>(6).fill("200 b"));
  });

  it("answers 502 with an error body when the node dies during the request, and when no node accepts", async () => {
    const dying = await backend((req) => setTimeout(() => req.socket.destroy(), 20));
    const lb = await balancer([dying.url]);
    const res = await fetch(`http://127.0.0.1:${lb.port}/orders/checkout`, { method: "POST", body: "{}" });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: "bad-gateway", message: expect.stringContaining("failed during the request") });
    lb.setBackends([`http://127.0.0.1:${await freePort()}`]);
    const none = await fetch(`http://127.0.0.1:${lb.port}/health`);
    expect(none.status).toBe(502);
    expect(await none.json()).toMatchObject({ error: "bad-gateway", message: expect.stringContaining("no node accepted the connection") });
    expect(() => lb.setBackends([])).toThrow("backends: at least one node is needed");
  });
});
