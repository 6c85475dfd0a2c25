/**
 * Throttling of sign-in and sign-up over HTTP (the route handler's function,
 * real PostgreSQL): per account and per address, 429 with Retry-After and a
 * message that says when to retry. X-Forwarded-For is what Next.js fills with
 * the socket's address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressKey, clientAddress } from "../src/server/auth/client-address.ts";
import type { ThrottleLimits } from "../src/server/auth/throttle.ts";
import { handleTrpc } from "../src/server/trpc/http.ts";
import { browser, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
  await browser(t.db, "victim@example.com"); // password "correct horse battery"
  await browser(t.db, "regular@example.com");
  await browser(t.db, "owner@example.com");
});
afterAll(async () => {
  await t?.drop();
});

interface Answer {
  status: number;
  retryAfter: string | null;
  cookie: boolean;
  /** the device cookie a successful sign-in set, as a Cookie header value */
  device?: string;
  message?: string;
  retryAfterSeconds?: number | null;
}

async function post(procedure: string, input: unknown, address: string, limits?: Partial<ThrottleLimits>, cookie?: string): Promise<Answer> {
  const res = await handleTrpc(
    new Request(`${ORIGIN}/api/trpc/${procedure}`, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/json", "x-forwarded-for": address, ...(cookie ? { cookie } : {}) },
      body: JSON.stringify(input),
    }),
    { db: t.db, limits },
  );
  const body = (await res.json()) as { error?: { message: string; data: { retryAfterSeconds: number | null } } };
  return {
    status: res.status,
    retryAfter: res.headers.get("retry-after"),
    cookie: res.headers.getSetCookie().length > 0,
    device: res.headers
      .getSetCookie()
      .find((c) => c.startsWith("sfbench_device="))
      ?.split(";")[0],
    message: body.error?.message,
    retryAfterSeconds: body.error?.data.retryAfterSeconds,
  };
}
const signIn = (email: string, password: string, address: string, limits?: Partial<ThrottleLimits>, cookie?: string) =>
  post("auth.signIn", { email, password }, address, limits, cookie);

/** Moves every recorded attempt back in time (as if that much time had passed). */
async function age(minutes: number) {
  await t.db.$executeRaw`UPDATE "AuthAttempt" SET "createdAt" = "createdAt" - make_interval(mins => ${minutes}::int)`;
}

describe("sign-in throttling", () => {
  it("answers 30 wrong passwords sent at once with 10 checks and 20 refusals, then refuses the right one too, with Retry-After", async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn("victim@example.com", `wrong password ${i}`, `192.0.2.${i + 1}`)));
    expect(answers.filter((a) => a.status === 401)).toHaveLength(10);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(20);
    expect(answers.some((a) => a.cookie)).toBe(false);

    const right = await signIn("victim@example.com", "correct horse battery", "192.0.2.200");
    expect(right.status).toBe(429);
    expect(right.cookie).toBe(false);
    expect(right.message).toMatch(
      /^too many sign-in attempts for this account \(at most 10 in 15 minutes\): try again in 1[45] minutes \(at \d\d:\d\d:\d\d UTC\)$/,
    );
    expect(Number(right.retryAfter)).toBeGreaterThan(14 * 60);
    expect(Number(right.retryAfter)).toBeLessThanOrEqual(15 * 60);
    expect(right.retryAfterSeconds).toBe(Number(right.retryAfter));
    // refusals are not recorded: hammering does not push the time to retry further out
    expect(await t.db.authAttempt.count({ where: { action: "sign-in", counts: true } })).toBe(10);
  });

  it("lets the right password in once the window has passed, and does not count a successful sign-in", async () => {
    await age(16);
    const right = await signIn("victim@example.com", "correct horse battery", "192.0.2.200");
    expect(right).toMatchObject({ status: 200, cookie: true });
    for (let i = 0; i < 4; i++) expect((await signIn("regular@example.com", "correct horse battery", "192.0.2.201", { signInPerAccount: 3 })).status).toBe(200);
  });

  it("lets the owner's browser in while strangers' wrong passwords hold the account, and limits that browser's own attempts apart", async () => {
    const first = await signIn("owner@example.com", "correct horse battery", "198.51.100.1");
    expect(first.status).toBe(200);
    const device = first.device!;
    expect(device).toMatch(/^sfbench_device=sfd_/);
    const stranger = (await signIn("regular@example.com", "correct horse battery", "198.51.100.2")).device!;
    // strangers spend the account's attempts from everywhere
    await Promise.all(Array.from({ length: 12 }, (_, i) => signIn("owner@example.com", `guess ${i}`, `198.51.100.${i + 10}`)));
    expect((await signIn("owner@example.com", "correct horse battery", "198.51.100.99")).status).toBe(429);
    // a device cookie that is not this account's (another account's, or made up) is no device at all
    expect((await signIn("owner@example.com", "correct horse battery", "198.51.100.99", undefined, stranger)).status).toBe(429);
    expect((await signIn("owner@example.com", "correct horse battery", "198.51.100.99", undefined, "sfbench_device=sfd_made-up")).status).toBe(429);
    // the owner's browser gets in, and is not given a second device cookie
    const owner = await signIn("owner@example.com", "correct horse battery", "198.51.100.1", undefined, device);
    expect(owner).toMatchObject({ status: 200, cookie: true, device: undefined });
    // a stolen device cookie buys a guesser its own limit, no more
    const limits = { signInPerAccount: 3 };
    for (let i = 0; i < 3; i++) expect((await signIn("owner@example.com", `device guess ${i}`, "198.51.100.3", limits, device)).status).toBe(401);
    const held = await signIn("owner@example.com", "correct horse battery", "198.51.100.3", limits, device);
    expect(held.status).toBe(429);
    expect(held.message).toMatch(/^too many sign-in attempts from this browser \(at most 3 in 15 minutes\)/);
  });

  it("limits one address trying many accounts, and not the other addresses", async () => {
    const limits = { signInPerAddress: 5 };
    for (let i = 0; i < 5; i++) expect((await signIn(`spray${i}@example.com`, "a guessed password", "203.0.113.7", limits)).status).toBe(401);
    const sixth = await signIn("spray5@example.com", "a guessed password", "203.0.113.7", limits);
    expect(sixth.status).toBe(429);
    expect(sixth.message).toMatch(/^too many sign-in attempts from your address \(at most 5 in 15 minutes\): try again in/);
    expect(Number(sixth.retryAfter)).toBeGreaterThan(0);
    expect((await signIn("spray5@example.com", "a guessed password", "203.0.113.8", limits)).status).toBe(401);
    // the same /64 is the same address
    for (let i = 0; i < 5; i++) await signIn(`v6-${i}@example.com`, "a guessed password", `2001:db8:1:2::${i + 1}`, limits);
    expect((await signIn("v6-x@example.com", "a guessed password", "2001:db8:1:2:ffff::9", limits)).status).toBe(429);
    expect((await signIn("v6-x@example.com", "a guessed password", "2001:db8:1:3::1", limits)).status).toBe(401);
  });
});

describe("sign-up throttling", () => {
  it("allows 5 sign-ups an hour from one address, then answers 429 with Retry-After; other addresses go on", async () => {
    for (let i = 0; i < 5; i++)
      expect((await post("auth.signUp", { email: `bulk${i}@example.com`, password: "a long enough password" }, "198.51.100.9")).status).toBe(200);
    const sixth = await post("auth.signUp", { email: "bulk5@example.com", password: "a long enough password" }, "198.51.100.9");
    expect(sixth.status).toBe(429);
    expect(sixth.message).toMatch(/^too many sign-ups from your address \(at most 5 an hour\): try again in (59|60) minutes \(at \d\d:\d\d:\d\d UTC\)$/);
    expect(Number(sixth.retryAfter)).toBeGreaterThan(59 * 60);
    expect(await t.db.user.count({ where: { email: "bulk5@example.com" } })).toBe(0);
    expect((await post("auth.signUp", { email: "bulk5@example.com", password: "a long enough password" }, "198.51.100.10")).status).toBe(200);
  });

  it("limits sign-ups of one email from many addresses (5 an hour), also when parallel", async () => {
    const tries = await Promise.all(
      Array.from({ length: 7 }, (_, i) => post("auth.signUp", { email: "popular@example.com", password: "a long enough password" }, `198.51.100.${50 + i}`)),
    );
    expect(tries.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(tries.find((a) => a.status === 429)?.message).toMatch(/^too many sign-ups for this email \(at most 5 an hour\)/);
  });
});

describe("the client's address", () => {
  const h = (xff?: string) => new Headers(xff ? { "x-forwarded-for": xff } : {});

  it("is the last X-Forwarded-For entry without a proxy (Next.js sets it), and the one before N trusted proxies", () => {
    expect(clientAddress(h("192.0.2.1"), 0)).toBe("192.0.2.1");
    expect(clientAddress(h("10.9.9.9, 192.0.2.1"), 0)).toBe("192.0.2.1");
    expect(clientAddress(h("spoofed, 192.0.2.1"), 1)).toBe("192.0.2.1");
    expect(clientAddress(h("spoofed, 192.0.2.1, 10.0.0.2"), 2)).toBe("192.0.2.1");
    expect(clientAddress(h("192.0.2.1"), 3)).toBe("192.0.2.1");
    expect(clientAddress(h(), 0)).toBeNull();
  });

  it("counts IPv4-mapped addresses as IPv4 and IPv6 by its /64", () => {
    expect(addressKey("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(addressKey("2001:db8:1:2::7")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd")).toBe("2001:db8:1:2::/64");
    expect(addressKey("[2001:db8::1]:443")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("not an address")).toBe("not an address");
  });
});
