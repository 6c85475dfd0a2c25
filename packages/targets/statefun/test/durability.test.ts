/**
 * How StateFun keeps what was answered through kill -9 of the whole target
 * (launcher, gateway and JVM at once; that every answered write survives is
 * @sfbench/target-suite's check): state up to the last completed Flink
 * checkpoint comes back from the checkpoint; requests answered after it are
 * replayed from the ingress topic, whose offsets the checkpoint holds.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, isAlive, portFree, startTarget, stopTarget, targetDataDir } from "@sfbench/provider-local";
import { call, eventually, shopper } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

afterAll(async () => {
  await stopTarget(TARGET);
});

/** mtime (ms) of the newest completed checkpoint under the target's data directory, 0 when none. */
function newestCheckpoint(): number {
  const root = join(targetDataDir(TARGET), "checkpoints");
  if (!existsSync(root)) return 0;
  let newest = 0;
  for (const job of readdirSync(root)) {
    const dir = join(root, job);
    if (!statSync(dir).isDirectory()) continue;
    for (const chk of readdirSync(dir).filter((d) => d.startsWith("chk-"))) {
      const meta = join(dir, chk, "_metadata");
      if (existsSync(meta)) newest = Math.max(newest, statSync(meta).mtimeMs);
    }
  }
  return newest;
}

describe("kill -9", () => {
  it("keeps every answered request: checkpointed state and the requests after the checkpoint", { timeout: 300_000 }, async () => {
    await stopTarget(TARGET);
    const port = await freePort();
    const first = await startTarget(TARGET, { port });
    const s = shopper(first.url);

    // before a checkpoint: a completed checkout
    const a = await s.product(7, 100);
    const user = await s.user(1000);
    const cart = await s.cart({ [a]: 2 });
    const checkout = await call(first.url, "POST", "/orders/checkout", { cartId: cart, userId: user });
    expect(checkout.status).toBe(200);
    const { orderId } = checkout.body as { orderId: string };
    const answeredAt = Date.now();
    await eventually(async () => expect(newestCheckpoint()).toBeGreaterThan(answeredAt), 60_000);

    // after the checkpoint: answered, but only in Kafka and the JVM's memory
    const b = await s.product(3, 5);
    await s.ok("PATCH", `/users/${user}/credits/add`, { credits: 500 });
    await s.ok("PATCH", `/products/${a}`, { stock: 10 });

    process.kill(-first.pid, "SIGKILL");
    await eventually(async () => expect(isAlive(first.pid)).toBe(false));
    // the gateway, in the same process group, lets go of the port a moment later
    await eventually(async () => expect(await portFree(port)).toBe(true));
    await stopTarget(TARGET); // forgets the dead instance

    const second = await startTarget(TARGET, { port, keepData: true });
    const log = readFileSync(second.log, "utf8");
    expect(log).toMatch(/restarting deployment/);
    expect(log).toMatch(/statefun: restoring from .*chk-\d+/);
    const get = async (path: string) => {
      const answer = await call(second.url, "GET", path);
      expect(answer.status, `GET ${path}: ${answer.text}`).toBe(200);
      return answer.body;
    };
    expect(await get(`/products/${a}`)).toEqual({ id: a, price: 7, stock: 108 });
    expect(await get(`/products/${b}`)).toEqual({ id: b, price: 3, stock: 5 });
    expect(await get(`/users/${user}`)).toEqual({ id: user, credits: 1486 });
    expect(await get(`/shopping-carts/${cart}`)).toMatchObject({ checkedOut: true });
    expect(await get(`/orders/${orderId}`)).toMatchObject({ status: "completed", total: 14 });
    // the cart is still charged once
    const again = await call(second.url, "POST", "/orders/checkout", { cartId: cart, userId: user });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "cart-checked-out" });
    expect(await get(`/users/${user}`)).toEqual({ id: user, credits: 1486 });
  });
});
