/**
 * What is DBOS's own: a checkout workflow that kill -9 interrupts between its
 * steps is recovered by DBOS.launch() on the restart and completes, and every
 * application transaction in it commits once, also the one whose checkpoint
 * in DBOS's system database was lost (steps.ts). The target is started as a
 * run starts it (@sfbench/provider-local), on a port of 18961-18969.
 *
 * The workflow is stopped at a known point without a hook in the target: the
 * test holds the user's row lock, so the workflow waits in its charge step
 * after the cart and stock steps have committed and been checkpointed.
 */
import { execFileSync } from "node:child_process";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { Order } from "@sfbench/core";
import { isAlive, stopTarget } from "@sfbench/provider-local";
import { eventually, shopper, startForTest, type TestTarget } from "@sfbench/target-suite";

const NAME = "dbos";
const PORT = 18961;
let t: TestTarget | undefined;

afterAll(async () => {
  await t?.stop();
});

/** A connection to the target's own PostgreSQL (the application tables and DBOS's schema `dbos`). */
async function connect(target: TestTarget): Promise<pg.Client> {
  const url = target.started.postgres?.url;
  if (!url) throw new Error("the target started without its PostgreSQL");
  const client = new pg.Client({ connectionString: url });
  // the server stops under this connection when the target is stopped
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Kills every process of the target at once (SIGKILL to its process group): nothing shuts down cleanly. */
async function crash(target: TestTarget): Promise<void> {
  const group = target.started.pid;
  const pids = execFileSync("ps", ["-e", "-o", "pid=,pgid="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, pgid]) => pgid === group)
    .map(([pid]) => pid!);
  process.kill(-group, "SIGKILL");
  while (pids.some(isAlive)) await new Promise((r) => setTimeout(r, 20));
}

const rows = async <T extends pg.QueryResultRow>(db: pg.Client, text: string, values: unknown[]): Promise<T[]> => (await db.query<T>(text, values)).rows;

const checkpointedIn = (db: pg.Client, workflowId: string) =>
  rows<{ function_name: string }>(db, "SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1 ORDER BY function_id", [workflowId]);

describe("recovery of an interrupted checkout workflow", () => {
  it("resumes after kill -9 between steps and commits each transaction once, a lost checkpoint too", { timeout: 240_000 }, async () => {
    t = await startForTest(NAME, PORT);
    const s = shopper(t.url);
    const p = await s.product(3, 10);
    const q = await s.product(4, 10);
    const u = await s.user(100);
    const c = await s.cart({ [p]: 2, [q]: 1 });

    const lock = await connect(t);
    await lock.query("BEGIN");
    await lock.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [u]);
    const answer = fetch(`${t.url}/orders/checkout`, { method: "POST", body: JSON.stringify({ cartId: c, userId: u }) }).catch((err: Error) => err);

    // The workflow holds the cart; its id is the order id. Wait until claimCart and both retractStock steps are checkpointed.
    const orderId = await eventually(
      async () => (await rows<{ checkout_by: string | null }>(lock, "SELECT checkout_by FROM carts WHERE id = $1", [c]))[0]?.checkout_by ?? false,
    );
    const checkpointed = () => checkpointedIn(lock, orderId);
    await eventually(async () => (await checkpointed()).length === 3);
    expect((await checkpointed()).map((r) => r.function_name)).toEqual(["claimCart", "retractStock", "retractStock"]);
    expect((await rows(lock, "SELECT stock::int AS stock FROM products WHERE id = ANY ($1) ORDER BY price", [[p, q]])).map((r) => r.stock)).toEqual([8, 9]);

    await crash(t);
    expect(await answer).toBeInstanceOf(Error); // the request died with the process
    // The charge the dead process was waiting for never commits: its COMMIT was never sent.
    await lock.query("ROLLBACK");
    // As if the process had died after p's retraction committed but before DBOS checkpointed it.
    const [lost] = await rows<{ function_id: number }>(
      lock,
      `DELETE FROM dbos.operation_outputs o USING step_outputs s
       WHERE o.workflow_uuid = $1 AND o.function_name = 'retractStock' AND s.workflow_id = o.workflow_uuid AND s.step = o.function_id AND s.output->>'price' = '3'
       RETURNING o.function_id`,
      [orderId],
    );
    expect(lost).toBeDefined();
    await lock.end();
    await stopTarget(NAME);

    t = await startForTest(NAME, PORT, { keepData: true });
    expect(t.log()).toMatch(/Recovering 1 workflows/);
    const order = await eventually(async () => {
      const res = await t!.call("GET", `/orders/${orderId}`);
      return res.status === 200 ? Order.parse(res.body) : false;
    });
    expect(order).toEqual({ id: orderId, cartId: c, userId: u, status: "completed", total: 10 });
    expect((await t.call("GET", `/users/${u}`)).body).toEqual({ id: u, credits: 90 });
    expect((await t.call("GET", `/products/${p}`)).body).toEqual({ id: p, price: 3, stock: 8 });
    expect((await t.call("GET", `/products/${q}`)).body).toEqual({ id: q, price: 4, stock: 9 });
    expect((await t.call("GET", `/shopping-carts/${c}`)).body).toMatchObject({ checkedOut: true });

    const db = await connect(t);
    try {
      // The re-run step found its committed output instead of retracting again, and DBOS checkpointed it anew.
      expect((await checkpointedIn(db, orderId)).map((r) => r.function_name)).toEqual([
        "claimCart",
        "retractStock",
        "retractStock",
        "retractCredits",
        "recordOrder",
        "coPurchase",
      ]);
      const status = async () =>
        (await rows<{ status: string }>(db, "SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [`${orderId}:co-purchase`]))[0]?.status;
      await eventually(async () => (await status()) === "SUCCESS");
      const counts = await rows<{ count: number }>(db, "SELECT count::int AS count FROM co_purchase WHERE (p, q) IN (($1, $2), ($2, $1))", [p, q]);
      expect(counts.map((r) => r.count)).toEqual([1, 1]);
      expect((await rows<{ status: string }>(db, "SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [orderId]))[0]?.status).toBe("SUCCESS");
    } finally {
      await db.end();
    }
  });
});
