/**
 * A machine crash, for the targets whose manifest says `durable` (acknowledged
 * after an fsync): the whole target runs with its data directories on
 * lossyfs, which keeps written file data in its own memory until an fsync;
 * the crash kills every process of the target and the file system, so what
 * only the page cache held is gone, as after a power cut. Every acknowledged
 * write must be there after the restart. A kill -9 alone (the other suite)
 * cannot tell an fsync from a write the page cache still holds.
 *
 * Targets whose data is only in their own PostgreSQL share one storage
 * engine and its settings (fsync and synchronous commit on, the storage
 * fingerprint of every run): services' lossyfs test shows those keep every
 * commit, so node-postgres stands for them here; the targets with a storage
 * engine of their own (Restate's, workerd's SQLite, Temporal's SQLite
 * history beside its PostgreSQL) are each crashed.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CheckoutResult } from "@sfbench/core";
import { killTarget, restartTarget, startTarget, stopTarget } from "@sfbench/provider-local";
import { listTargets } from "@sfbench/catalogue";
import { mountLossy, paths, type LossyMount } from "@sfbench/services";
import { selectTargets } from "../src/env.ts";
import { call, shopper } from "../src/http.ts";

/** after the main suite's ports (19700 + catalogue index) */
const FIRST_PORT = 19780;

/** targets that keep state in a storage engine of their own beside their PostgreSQL: the Temporal dev server's SQLite history */
const ownEngineBesidePostgres = new Set(["temporal"]);

const catalogue = listTargets();
const crashed = catalogue.filter(
  (t) =>
    t.manifest.guarantees.durability === "durable" &&
    (t.name === "node-postgres" || ownEngineBesidePostgres.has(t.name) || !(t.manifest.services ?? []).includes("postgres")),
);
const selected = selectTargets(catalogue.map((t) => t.name));

// SFBENCH_TARGETS may select only targets that keep their data in a PostgreSQL, whose crash node-postgres covers: vitest fails a file with no test
if (!crashed.some((t) => selected.includes(t.name))) {
  it.skip(`a machine crash: none of ${selected.join(", ")} keeps its data in a storage engine of its own`, () => {});
}

for (const [index, { name }] of crashed.entries()) {
  if (!selected.includes(name)) continue;

  describe(`${name} on a file system that loses unsynced writes`, () => {
    // the target's own directory (its data, its PostgreSQL's) is the mount; the backing directory is the "disk"
    const dir = join(paths.home, "targets", name);
    const disk = join(paths.home, "targets", `${name}.disk`);
    let mount: LossyMount | undefined;

    afterAll(async () => {
      await stopTarget(name);
      await mount?.unmount();
      rmSync(disk, { recursive: true, force: true });
    });

    it("keeps every acknowledged checkout, product and charge through a machine crash", async () => {
      await stopTarget(name); // an instance an earlier test left running holds files under the mount point
      rmSync(disk, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      mkdirSync(disk, { recursive: true });
      mount = await mountLossy(disk, dir);

      const before = await startTarget(name, { port: FIRST_PORT + index, trace: false });
      const s = shopper(before.url);
      const products = [];
      for (let i = 0; i < 6; i++) products.push(await s.product(10 + i, 100));
      const userId = await s.user(10_000);
      const orders: { orderId: string; total: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const cartId = await s.cart({ [products[i]!]: 1, [products[i + 3]!]: 2 });
        const answer = await s.checkout(cartId, userId);
        expect(answer.status, answer.text).toBe(200);
        orders.push(CheckoutResult.parse(answer.body));
      }

      // the crash: every process of the target, then the file system with whatever was not fsynced
      await killTarget(name);
      await mount.crash();
      mount = await mountLossy(disk, dir);
      const after = await restartTarget(name);

      for (const { orderId, total } of orders)
        expect(await call(after.url, "GET", `/orders/${orderId}`)).toMatchObject({ status: 200, body: { id: orderId, status: "completed", total } });
      for (let i = 0; i < 6; i++) {
        const sold = i < 3 ? 1 : 2;
        expect((await call(after.url, "GET", `/products/${products[i]}`)).body).toMatchObject({ stock: 100 - sold });
      }
      const spent = orders.reduce((n, o) => n + o.total, 0);
      expect((await call(after.url, "GET", `/users/${userId}`)).body).toMatchObject({ credits: 10_000 - spent });
    });
  });
}
