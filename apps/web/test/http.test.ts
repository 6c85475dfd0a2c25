/**
 * The tRPC endpoint over HTTP (the route handler's function, real database):
 * CSRF origin checks on mutations, status codes and the error body that names
 * the field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpc } from "../src/server/trpc/http.ts";
import { browser, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

let t: TestDatabase;
let cookie: string;
let token: string;
beforeAll(async () => {
  t = await testDatabase();
  const user = await browser(t.db, "http@example.com");
  cookie = user.cookie;
  token = (await user.api.tokens.create({ name: "cli" })).token;
});
afterAll(async () => {
  await t?.drop();
});

const post = (procedure: string, body: unknown, headers: Record<string, string>) =>
  handleTrpc(
    new Request(`${ORIGIN}/api/trpc/${procedure}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
    { db: t.db },
  );

interface ErrorBody {
  error: { message: string; data: { code: string; httpStatus: number; fields: Record<string, string[]> | null; stack?: string } };
}

describe("CSRF", () => {
  it("refuses a cross-origin POST that carries the session cookie (403) and changes nothing", async () => {
    const res = await post("tokens.create", { name: "evil" }, { cookie, origin: "https://evil.example" });
    expect(res.status).toBe(403);
    const body = (await res.json()) as ErrorBody;
    expect(body.error.message).toContain("cross-origin request refused");
    expect(await t.db.apiToken.count({ where: { name: "evil" } })).toBe(0);
  });

  it("refuses a cross-site POST that sends Sec-Fetch-Site instead of Origin, and a cookie POST that sends neither", async () => {
    expect((await post("tokens.create", { name: "evil" }, { cookie, "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect((await post("tokens.create", { name: "evil" }, { cookie })).status).toBe(403);
  });

  it("accepts the same POST from the portal's own origin", async () => {
    const res = await post("tokens.create", { name: "fine" }, { cookie, origin: ORIGIN });
    expect(res.status).toBe(200);
  });

  it("accepts the CLI: a Bearer token and no Origin", async () => {
    const res = await post("tokens.create", { name: "from-cli" }, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
  });

  it("refuses a cross-origin sign-in (login CSRF)", async () => {
    const res = await post("auth.signIn", { email: "http@example.com", password: "correct horse battery" }, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});

describe("errors over HTTP", () => {
  it("answers bad input with 400 and the fields by name, without a stack", async () => {
    const res = await post("auth.signUp", { email: "nope", password: "x" }, { origin: ORIGIN });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(Object.keys(body.error.data.fields ?? {}).sort()).toEqual(["email", "password"]);
    expect(body.error.message).toMatch(/^email: must be an email address/m);
    expect(body.error.data.stack).toBeUndefined();
  });

  it("answers a malformed body and an unknown procedure without a 500", async () => {
    const garbage = await handleTrpc(
      new Request(`${ORIGIN}/api/trpc/auth.signIn`, { method: "POST", headers: { origin: ORIGIN, "content-type": "application/json" }, body: "{not json" }),
      { db: t.db },
    );
    expect(garbage.status).toBe(400);
    expect((await post("nothing.here", {}, { origin: ORIGIN })).status).toBe(404);
    const badUuid = await handleTrpc(new Request(`${ORIGIN}/api/trpc/runs.byId?input=${encodeURIComponent(JSON.stringify({ id: "1; drop table" }))}`), {
      db: t.db,
    });
    expect(badUuid.status).toBe(400);
  });

  it("answers 401 for a mutation that needs an account, 404 for an unknown run", async () => {
    expect((await post("submissions.submit", {}, { origin: ORIGIN })).status).toBe(401);
    const missing = await handleTrpc(
      new Request(`${ORIGIN}/api/trpc/runs.byId?input=${encodeURIComponent(JSON.stringify({ id: "00000000-0000-4000-8000-000000000000" }))}`),
      { db: t.db },
    );
    expect(missing.status).toBe(404);
  });
});
