import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { createServer } from "../src/server.ts";
import { shopper, startTarget, testDatabase } from "./helpers.ts";

let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await testDatabase("lifecycle");
});

describe("lifecycle", () => {
  it("answers 503 on /health and every route until the database is reachable", async () => {
    // nothing listens on port 1: schema creation keeps retrying
    const server = await createServer({ databaseUrl: "postgres://postgres@127.0.0.1:1/none", logLevel: "silent" });
    try {
      const health = await server.app.inject({ method: "GET", url: "/health" });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ error: "starting" });
      const route = await server.app.inject({ method: "POST", url: "/shopping-carts" });
      expect(route.statusCode).toBe(503);
    } finally {
      await server.close();
    }
    await expect(server.ready).rejects.toThrow();
  });

  it("answers 200 on /health once the schema exists, and creating the schema twice is harmless", async () => {
    const [a, b] = await Promise.all([startTarget(databaseUrl), startTarget(databaseUrl)]);
    try {
      expect((await a.call("GET", "/health")).status).toBe(200);
      expect((await b.call("GET", "/health")).status).toBe(200);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("writes pending co-purchase updates before close() resolves", async () => {
    const t = await startTarget(databaseUrl);
    const s = shopper(t);
    for (const id of ["close-a", "close-b"]) await s.namedProduct(id);
    await Promise.all(Array.from({ length: 20 }, () => s.buy(["close-a", "close-b"])));
    await t.close(); // no settle(): close must drain
    await t.close(); // idempotent

    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ count: string }>("SELECT count FROM co_purchase WHERE p LIKE 'close-%'");
      expect(rows.map((r) => Number(r.count))).toEqual([20, 20]);
    } finally {
      await db.end();
    }
  });
});
