import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, caller, cookieFrom, failure, fields, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describe("accounts", () => {
  it("signs up, sets an httpOnly SameSite=Lax session cookie, and knows the user on the next request", async () => {
    const anon = await caller(t.db, { headers: { origin: ORIGIN } });
    const user = await anon.api.auth.signUp({ email: "Ada@Example.com", password: "correct horse battery" });
    expect(user.email).toBe("ada@example.com");
    const setCookie = anon.resHeaders.getSetCookie()[0]!;
    expect(setCookie).toMatch(/^sfbench_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const { api } = await caller(t.db, { headers: { cookie: cookieFrom(anon.resHeaders) } });
    expect(await api.auth.me()).toEqual({ id: user.id, email: "ada@example.com" });
  });

  it("stores the password hashed with argon2id and the session only as a digest", async () => {
    const row = await t.db.user.findUniqueOrThrow({ where: { email: "ada@example.com" }, include: { sessions: true } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain("correct horse battery");
    expect(row.sessions[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("refuses a second account with the same email, naming the field", async () => {
    const anon = await caller(t.db, { headers: { origin: ORIGIN } });
    const error = await failure(anon.api.auth.signUp({ email: "ADA@example.com", password: "another long password" }), "CONFLICT");
    expect(fields(error).email?.[0]).toContain("an account with this email exists");
  });

  it("names the field of a bad email or a short password (400, not 500)", async () => {
    const anon = await caller(t.db, { headers: { origin: ORIGIN } });
    const error = await failure(anon.api.auth.signUp({ email: "not-an-email", password: "short" }), "BAD_REQUEST");
    expect(Object.keys(fields(error)).sort()).toEqual(["email", "password"]);
    expect(fields(error).password![0]).toContain("at least 10 characters");
  });

  it("signs in with the right password only, with the same answer for an unknown email", async () => {
    const anon = await caller(t.db, { headers: { origin: ORIGIN } });
    const wrong = await failure(anon.api.auth.signIn({ email: "ada@example.com", password: "wrong password!" }), "UNAUTHORIZED");
    const unknown = await failure(anon.api.auth.signIn({ email: "nobody@example.com", password: "wrong password!" }), "UNAUTHORIZED");
    expect(wrong.message).toBe(unknown.message);
    const user = await anon.api.auth.signIn({ email: "ADA@example.com", password: "correct horse battery" });
    expect(user.email).toBe("ada@example.com");
    expect(cookieFrom(anon.resHeaders)).toMatch(/^sfbench_session=/);
  });

  it("signs out: the session row is deleted and the cookie no longer signs anyone in", async () => {
    const { api, cookie } = await browser(t.db, "grace@example.com");
    expect((await api.auth.me())?.email).toBe("grace@example.com");
    const out = await caller(t.db, { headers: { origin: ORIGIN, cookie } });
    await out.api.auth.signOut();
    expect(out.resHeaders.getSetCookie()[0]).toContain("Max-Age=0");
    const after = await caller(t.db, { headers: { cookie } });
    expect(await after.api.auth.me()).toBeNull();
  });

  it("does not accept an expired session", async () => {
    const { cookie, user } = await browser(t.db, "old@example.com");
    await t.db.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const { api } = await caller(t.db, { headers: { cookie } });
    expect(await api.auth.me()).toBeNull();
  });
});
