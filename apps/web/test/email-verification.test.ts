import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIn, type MailSink } from "../scripts/mail-sink.ts";
import { hashSecret } from "../src/server/auth/secrets.ts";
import { ratingCountsSql } from "../src/server/ratings/counted.ts";
import { browser, caller, failure, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { mailingTo, mailSink } from "./helpers/mail.ts";
import { importFixture } from "./helpers/results.ts";

let t: TestDatabase;
let sink: MailSink;
beforeAll(async () => {
  t = await testDatabase();
  sink = await mailSink();
  await importFixture(t.db, "rated", { capacity: 1000, seed: 1 });
});
afterAll(async () => {
  await sink?.stop();
  await t?.drop();
});

/** The token of the verification link in the next mail to `email`, as the page reads it from the link. */
async function mailedToken(email: string): Promise<string> {
  const link = new URL(linkIn(await sink.next(email), "/verify-email"));
  expect(link.origin).toBe(ORIGIN);
  return link.searchParams.get("token")!;
}

describe("email verification", () => {
  it("mails a link over SMTP at sign-up; an unverified account's rating is kept but not counted until the link is followed", async () => {
    const rater = await browser(t.db, "rater@example.com", undefined, mailingTo(sink));
    const mail = await sink.next("rater@example.com");
    expect(mail.subject).toBe("Verify your email address for sfbench");
    expect(readFileSync(mail.file, "utf8")).toContain("Subject: Verify your email address for sfbench");
    const token = new URL(linkIn(mail, "/verify-email")).searchParams.get("token")!;
    // only the token's hash is stored
    expect(await t.db.emailVerification.count({ where: { tokenHash: token } })).toBe(0);
    expect(await t.db.emailVerification.count({ where: { tokenHash: hashSecret(token) } })).toBe(1);

    expect(await rater.api.auth.me()).toMatchObject({ email: "rater@example.com", emailVerified: false });
    const rated = await rater.api.ratings.rate({ slug: "rated", programmingModel: 5, understandability: 4 });
    expect(rated).toEqual({
      summary: null,
      counted: false,
      why: "it counts once you verify rater@example.com with the link mailed to it (you can send a new one)",
    });
    const anon = (await caller(t.db, { headers: { origin: ORIGIN } })).api;
    expect((await anon.systems.bySlug({ slug: "rated" })).ratingsPending).toBe(1);

    // the link verifies its account for the account's signed-in owner only: not for an anonymous click
    expect((await failure(anon.auth.verifyEmail({ token }), "UNAUTHORIZED")).message).toBe(
      "sign in as the account that asked for this link, then follow the link again",
    );
    expect(await rater.api.auth.verifyEmail({ token })).toEqual({ email: "rater@example.com", verified: true });
    expect(await anon.ratings.summary({ slug: "rated" })).toEqual({ programmingModel: 5, understandability: 4, count: 1 });
    const page = await anon.systems.bySlug({ slug: "rated" });
    expect(page.ratingsPending).toBe(0);
    // the leaderboard's SQL applies the same rule
    const [sql] = await t.db.$queryRaw<
      { count: number }[]
    >`SELECT count(*)::int AS count FROM "Rating" WHERE "systemId" = ${page.id}::uuid AND ${ratingCountsSql()}`;
    expect(sql).toEqual({ count: 1 });
    // a request after the click sees the verified account (a caller's context is one request's)
    const later = (await caller(t.db, { headers: { origin: ORIGIN, cookie: rater.cookie } })).api;
    expect((await later.ratings.rate({ slug: "rated", programmingModel: 4, understandability: 4 })).counted).toBe(true);
  });

  it("refuses a link that was already used, with a message that says so", async () => {
    const twice = await browser(t.db, "twice@example.com", undefined, mailingTo(sink));
    const token = await mailedToken("twice@example.com");
    await twice.api.auth.verifyEmail({ token });
    const error = await failure(twice.api.auth.verifyEmail({ token }), "CONFLICT");
    expect(error.message).toMatch(/^this verification link was already used \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\); a link works once/);
  });

  it("refuses an expired link and an unknown one, each with what to do", async () => {
    const late = await browser(t.db, "late@example.com", undefined, mailingTo(sink));
    const token = await mailedToken("late@example.com");
    await t.db.emailVerification.update({ where: { tokenHash: hashSecret(token) }, data: { expiresAt: new Date(Date.now() - 60_000) } });
    const expired = await failure(late.api.auth.verifyEmail({ token }), "BAD_REQUEST");
    expect(expired.message).toMatch(/^this verification link expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC; sign in to send a new one$/);
    expect(await t.db.user.findUniqueOrThrow({ where: { email: "late@example.com" } })).toMatchObject({ emailVerifiedAt: null });
    const unknown = await failure(late.api.auth.verifyEmail({ token: `${token}x` }), "NOT_FOUND");
    expect(unknown.message).toMatch(/^this verification link is not valid/);

    // a new link (resend) works
    const resent = await late.api.auth.resendVerification();
    expect(resent).toMatchObject({ alreadyVerified: false, email: "late@example.com" });
    await late.api.auth.verifyEmail({ token: await mailedToken("late@example.com") });
    const later = (await caller(t.db, { headers: { origin: ORIGIN, cookie: late.cookie } })).api;
    expect(await later.auth.me()).toMatchObject({ emailVerified: true });
    expect(await later.auth.resendVerification()).toEqual({ alreadyVerified: true, email: "late@example.com" });
  });

  it("sends at most the hourly number of mails per account, then answers 429 with when to try again", async () => {
    const eager = await browser(t.db, "eager@example.com", undefined, mailingTo(sink, { perHour: 2 }));
    await sink.next("eager@example.com");
    await eager.api.auth.resendVerification();
    await sink.next("eager@example.com");
    const error = await failure(eager.api.auth.resendVerification(), "TOO_MANY_REQUESTS");
    expect(error.message).toMatch(/^too many verification mails for this account \(at most 2 an hour\): try again in \d+ minutes/);
  });

  it("mails nothing when an existing email signs up again, and answers the same", async () => {
    const portal = mailingTo(sink);
    await browser(t.db, "once@example.com", undefined, portal);
    await sink.next("once@example.com");
    const anon = (await caller(t.db, { headers: { origin: ORIGIN }, portal })).api;
    const again = await anon.auth.signUp({ email: "once@example.com", password: "another long password" });
    const fresh = await anon.auth.signUp({ email: "fresh@example.com", password: "another long password" });
    expect(again).toEqual({ ...fresh, email: "once@example.com" });
    // the new account's mail arrives; by then the existing one's would have been sent too
    await sink.next("fresh@example.com");
    expect(sink.received.filter((m) => m.to.includes("once@example.com"))).toHaveLength(1);
  });

  it("points a mailed link where the portal listens, never to the Host or X-Forwarded-Host a request names", async () => {
    const was = process.env.PORT;
    process.env.PORT = "3999"; // as `next start --port 3999` records it
    try {
      const anon = (
        await caller(t.db, { headers: { origin: "http://evil.example", host: "evil.example", "x-forwarded-host": "evil.example" }, portal: mailingTo(sink) })
      ).api;
      await anon.auth.signUp({ email: "target@example.com", password: "correct horse battery" });
      expect(new URL(linkIn(await sink.next("target@example.com"), "/verify-email")).origin).toBe("http://127.0.0.1:3999");
    } finally {
      if (was === undefined) delete process.env.PORT;
      else process.env.PORT = was;
    }
  });

  it("verifies nobody's address for another account: a stranger who signed up first with it gets no verified account from its owner's click", async () => {
    // the stranger signs up with the operator's address and a password of their own; the mail goes to the address's owner
    const portal = mailingTo(sink);
    const stranger = await browser(t.db, "owner-of-address@example.com", undefined, portal);
    const token = await mailedToken("owner-of-address@example.com");
    // the address's owner, signed in with an account of their own, follows the link: refused, and nothing is verified
    const owner = await browser(t.db, "someone-else@example.com", undefined, portal);
    await sink.next("someone-else@example.com");
    const refused = await failure(owner.api.auth.verifyEmail({ token }), "FORBIDDEN");
    expect(refused.message).toMatch(/^this link verifies another account than the one signed in/);
    expect(await t.db.user.findUniqueOrThrow({ where: { email: "owner-of-address@example.com" } })).toMatchObject({ emailVerifiedAt: null });
    // signed out, the page asks to sign in as the account that asked for the link; the stranger never receives the token
    const anon = (await caller(t.db, { headers: { origin: ORIGIN } })).api;
    await failure(anon.auth.verifyEmail({ token }), "UNAUTHORIZED");
    expect(await stranger.api.auth.me()).toMatchObject({ emailVerified: false });
  });
});
