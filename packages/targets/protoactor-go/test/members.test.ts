/**
 * Several cluster members: grains are spread over the launcher and its member
 * processes, and when a member dies (kill -9) its grains activate again on the
 * members left, from PostgreSQL, at their next call.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, up } from "@sfbench/services";
import { call, eventually, shopper } from "@sfbench/target-suite";
import { builtBinary, spawnTarget, type Process } from "./helpers.ts";

const PORT = 18805;
let binary: string;
let running: Process | undefined;
const logFile = join(mkdtempSync(join(tmpdir(), "protoactor-members-")), "target.log");

beforeAll(async () => {
  binary = await builtBinary();
  await up(["postgres"]);
});

afterEach(async () => {
  running?.signal("SIGKILL");
  await running?.exited;
  running = undefined;
});

/** The pids of the target's `member` processes (its process group). */
function memberPids(leader: number): number[] {
  return execFileSync("ps", ["-o", "pid=,args=", "-g", String(leader)], { encoding: "utf8" })
    .trim()
    .split("\n")
    .filter((l) => l.trim().endsWith("protoactor-target member"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

describe("cluster members", () => {
  it("starts PROTOACTOR_MEMBERS processes, and grains of a killed member come back on the others with their state", async () => {
    const databaseUrl = await createDatabase("protoactor_go_test_members", { fresh: true });
    running = await spawnTarget(binary, { port: PORT, databaseUrl, logFile, members: 3 });
    const members = memberPids(running.child.pid!);
    expect(members).toHaveLength(2);

    const s = shopper(running.url);
    // enough products that every member owns some (rendezvous hashing over 3 members)
    const products = await Promise.all(Array.from({ length: 30 }, (_, i) => s.product(i + 1, 100)));
    const userId = await s.user(1_000_000);

    process.kill(members[0]!, "SIGKILL");
    // every product answers again (re-activated where needed), with the state it had
    await eventually(async () => {
      for (const [i, id] of products.entries()) expect(await s.ok("GET", `/products/${id}`)).toEqual({ id, price: i + 1, stock: 100 });
    }, 30_000);
    const cartId = await s.cart({ [products[0]!]: 1, [products[29]!]: 2 });
    const checkout = await call(running.url, "POST", "/orders/checkout", { cartId, userId });
    expect(checkout.status).toBe(200);
    expect(checkout.body).toMatchObject({ total: 1 + 30 * 2 });
    expect(memberPids(running.child.pid!)).toHaveLength(1);
  });
});
