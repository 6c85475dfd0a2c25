import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpc } from "../src/server/trpc/http.ts";
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
  it("signs up without signing in; signing in sets an httpOnly SameSite=Lax session cookie, known on the next request", async () => {
    const anon = await caller(t.db, { headers: { origin: ORIGIN } });
    expect(await anon.api.auth.signUp({ email: "Ada@Example.com", password: "correct horse battery" })).toEqual({
      email: "ada@example.com",
      next: "sign in with this email and password; a link to verify the address is on its way",
    });
    expect(anon.resHeaders.getSetCookie()).toEqual([]);
    const user = await anon.api.auth.signIn({ email: "ada@example.com", password: "correct horse battery" });
    expect(user.email).toBe("ada@example.com");
    const setCookie = anon.resHeaders.getSetCookie()[0]!;
    expect(setCookie).toMatch(/^sfbench_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const { api } = await caller(t.db, { headers: { cookie: cookieFrom(anon.resHeaders) } });
    expect(await api.auth.me()).toEqual({ id: user.id, email: "ada@example.com", emailVerified: false, operator: false });
  });

  it("stores the password hashed with argon2id and the session only as a digest", async () => {
    const row = await t.db.user.findUniqueOrThrow({ where: { email: "ada@example.com" }, include: { sessions: true } });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain("correct horse battery");
    expect(row.sessions[0]!.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("answers a sign-up with an existing email exactly as one with a new email, over HTTP, and leaves the account as it was", async () => {
    const signUp = async (email: string) => {
      const res = await handleTrpc(
        new Request(`${ORIGIN}/api/trpc/auth.signUp`, {
          method: "POST",
          headers: { origin: ORIGIN, "content-type": "application/json", "x-forwarded-for": "198.51.100.20" },
          body: JSON.stringify({ email, password: "another long password" }),
        }),
        { db: t.db },
      );
      const headers = [...res.headers.entries()].filter(([name]) => name !== "date");
      return { status: res.status, body: (await res.text()).replace(email.toLowerCase(), "<email>"), headers };
    };
    const existing = await signUp("ADA@example.com");
    const fresh = await signUp("brand-new@example.com");
    expect(existing.status).toBe(200);
    expect(existing).toEqual(fresh);
    expect(existing.headers.map(([name]) => name)).not.toContain("set-cookie");
    // the existing account keeps its password: only its owner can sign in
    const anon = await caller(t.db, { headers: { origin: ORIGIN } });
    await failure(anon.api.auth.signIn({ email: "ada@example.com", password: "another long password" }), "UNAUTHORIZED");
    expect((await anon.api.auth.signIn({ email: "ada@example.com", password: "correct horse battery" })).email).toBe("ada@example.com");
    expect(await t.db.user.count({ where: { email: "ada@example.com" } })).toBe(1);
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
