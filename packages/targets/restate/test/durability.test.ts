/**
 * durability: durable means state survives kill -9 of every process of the
 * target (launcher, Restate server, service endpoint, gateway) and a restart
 * on the same SFBENCH_DATA_DIR. What is Restate's own: the registered
 * deployment moves when the endpoint's old port is taken at the restart, and
 * a fresh data directory starts empty.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CheckoutResult, FreqItems, Order } from "@sfbench/core";
import { targetDataDir } from "@sfbench/provider-local";
import { eventually, shopper } from "@sfbench/target-suite";
import { crash, NAME, start, type RunningTarget } from "./helpers.ts";

const PORT = 18612;
let t: RunningTarget | undefined;

/**
 * Listens on `port` so the restart finds it taken. Just after kill -9 the port
 * can still be held for a moment by the endpoint's closing sockets, and a
 * restart a moment later would find it free again and never move the
 * deployment: so an EADDRINUSE is tried again until the port is ours. Only a
 * holder that keeps it for all of `ms` (a client socket that got it as its
 * ephemeral port) is left to keep it taken for the restart in our place.
 */
async function holdPort(port: number, ms = 20_000): Promise<Server | undefined> {
  const deadline = performance.now() + ms;
  for (;;) {
    const srv = await new Promise<Server | undefined>((resolve, reject) => {
      const s = createServer();
      s.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? resolve(undefined) : reject(e)));
      s.listen(port, "127.0.0.1", () => resolve(s));
    });
    if (srv || performance.now() > deadline) return srv;
    await new Promise((r) => setTimeout(r, 200));
  }
}

afterAll(async () => {
  await t?.stop();
});

describe("durability", () => {
  it("keeps every answered write through kill -9 of all four processes and a restart", { timeout: 240_000 }, async () => {
    t = await start(PORT);
    const s = shopper(t.url);
    const p = await s.product(3, 10);
    const q = await s.product(4, 10);
    await s.ok("PATCH", `/products/${p}`, { stock: 5 });
    const u = await s.user(100);
    await s.ok("PATCH", `/users/${u}/credits/add`, { credits: 50 });
    const c = await s.cart({ [p]: 2, [q]: 1 });
    const { orderId, total } = CheckoutResult.parse((await s.checkout(c, u)).body);
    const open = await s.cart({ [q]: 3 });
    await eventually(async () => FreqItems.parse((await t!.call("GET", `/products/${p}/freq-items`)).body).includes(q));

    await crash(t);
    expect((await fetch(`${t.url}/health`).catch(() => undefined))?.status).toBeUndefined(); // nothing answers

    // The endpoint's old port is taken now: the launcher picks another and moves the deployment there.
    const { service } = JSON.parse(readFileSync(join(targetDataDir(NAME), "ports.json"), "utf8")) as { service: number };
    const squatter = await holdPort(service);
    try {
      t = await start(PORT, { keepData: true });
    } finally {
      squatter?.close();
    }
    // the launcher's lines about the deployment alone, so a failure shows what it did in their place
    const deployment = t
      .log()
      .split("\n")
      .filter((line) => line.includes("deployment"));
    expect(deployment).toContainEqual(expect.stringMatching(/deployment \S+ moved from http:\/\/127\.0\.0\.1:\d+\/ to http:\/\/127\.0\.0\.1:\d+\//));
    expect((await t.call("GET", `/products/${p}`)).body).toEqual({ id: p, price: 3, stock: 13 });
    expect((await t.call("GET", `/products/${q}`)).body).toEqual({ id: q, price: 4, stock: 9 });
    expect((await t.call("GET", `/users/${u}`)).body).toEqual({ id: u, credits: 150 - total });
    expect(Order.parse((await t.call("GET", `/orders/${orderId}`)).body)).toEqual({ id: orderId, cartId: c, userId: u, status: "completed", total: 10 });
    expect((await t.call("GET", `/shopping-carts/${c}`)).body).toMatchObject({ checkedOut: true });
    expect((await t.call("GET", `/products/${p}/freq-items`)).body).toEqual([q]);
    // the cart that was open goes on where it was, and new work runs on the restarted system
    expect((await s.checkout(open, u)).status).toBe(200);
    expect((await t.call("GET", `/products/${q}`)).body).toMatchObject({ stock: 6 });
    expect((await s.checkout(c, u)).status).toBe(409);
  });

  it("starts empty on a fresh data directory", { timeout: 240_000 }, async () => {
    await t?.stop();
    t = await start(PORT);
    const s = shopper(t.url);
    const p = await s.product(1, 1);
    await t.stop();
    t = await start(PORT); // keepData false: the provider clears SFBENCH_DATA_DIR
    expect((await t.call("GET", `/products/${p}`)).status).toBe(404);
  });
});
