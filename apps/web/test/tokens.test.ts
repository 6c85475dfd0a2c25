import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, caller, cli, failure } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describe("API tokens", () => {
  it("creates a token that is shown once, stored as sha256, and listed only by its prefix", async () => {
    const { api } = await browser(t.db, "owner@example.com");
    const created = await api.tokens.create({ name: "laptop" });
    expect(created.token).toMatch(/^sfb_[\w-]{43}$/);
    expect(created.prefix).toBe(created.token.slice(0, 10));
    const row = await t.db.apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(created.token);
    const list = await api.tokens.list();
    expect(list).toHaveLength(1);
    expect(JSON.stringify(list)).not.toContain(created.token);
  });

  it("authenticates `Authorization: Bearer <token>` and records when it was used", async () => {
    const { api } = await browser(t.db, "cli@example.com");
    const { token, id } = await api.tokens.create({ name: "ci" });
    const viaToken = await cli(t.db, token);
    expect((await viaToken.auth.me())?.email).toBe("cli@example.com");
    expect((await t.db.apiToken.findUniqueOrThrow({ where: { id } })).lastUsedAt).toBeInstanceOf(Date);
  });

  it("stops accepting a revoked token", async () => {
    const { api } = await browser(t.db, "revoker@example.com");
    const { token, id } = await api.tokens.create({ name: "old" });
    await api.tokens.revoke({ id });
    expect(await (await cli(t.db, token)).auth.me()).toBeNull();
    await failure((await cli(t.db, token)).tokens.list(), "UNAUTHORIZED");
    await failure(api.tokens.revoke({ id }), "NOT_FOUND");
  });

  it("expires after the days its owner chose (90 unless told), or works until revoked when told so", async () => {
    const { api } = await browser(t.db, "expiring@example.com");
    const day = 86_400_000;
    const plain = await api.tokens.create({ name: "default" });
    expect(plain.expiresAt!.getTime() - plain.createdAt.getTime()).toBeCloseTo(90 * day, -4);
    const never = await api.tokens.create({ name: "forever", days: null });
    expect(never.expiresAt).toBeNull();
    const short = await api.tokens.create({ name: "short", days: 30 });
    expect((await cli(t.db, short.token).then((c) => c.auth.me()))?.email).toBe("expiring@example.com");
    // a day past its end the token is anonymous, and says so as a refused token would
    await t.db.apiToken.update({ where: { id: short.id }, data: { expiresAt: new Date(Date.now() - day) } });
    expect(await (await cli(t.db, short.token)).auth.me()).toBeNull();
    await failure((await cli(t.db, short.token)).tokens.list(), "UNAUTHORIZED");
    expect((await cli(t.db, never.token).then((c) => c.auth.me()))?.email).toBe("expiring@example.com");
    expect((await api.tokens.list()).map((x) => [x.name, x.expiresAt === null])).toEqual([
      ["short", false],
      ["forever", true],
      ["default", false],
    ]);
    const tooLong = await failure(api.tokens.create({ name: "x", days: 5000 }), "BAD_REQUEST");
    expect(JSON.stringify(tooLong.cause)).toContain("days");
  });

  it("does not let one user revoke or list another user's tokens", async () => {
    const alice = await browser(t.db, "alice@example.com");
    const bob = await browser(t.db, "bob@example.com");
    const { id } = await alice.api.tokens.create({ name: "alice's" });
    await failure(bob.api.tokens.revoke({ id }), "NOT_FOUND");
    expect(await bob.api.tokens.list()).toEqual([]);
    expect((await t.db.apiToken.findUniqueOrThrow({ where: { id } })).revokedAt).toBeNull();
  });

  it("needs an account: anonymous callers get UNAUTHORIZED, and a made-up token is anonymous", async () => {
    const { api } = await caller(t.db);
    await failure(api.tokens.list(), "UNAUTHORIZED");
    await failure((await cli(t.db, "sfb_not-a-real-token-at-all-0000000000000000000")).tokens.create({ name: "x" }), "UNAUTHORIZED");
  });

  it("names the field when a token has no name", async () => {
    const { api } = await browser(t.db, "noname@example.com");
    const error = await failure(api.tokens.create({ name: "   " }), "BAD_REQUEST");
    expect(error.cause && "issues" in error.cause ? JSON.stringify(error.cause.issues) : "").toContain("name");
  });
});
