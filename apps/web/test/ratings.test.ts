import { manifestDigest, type TargetManifest } from "@sfbench/core";
import { importResult } from "@sfbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureResult } from "../fixtures/result-doc.ts";
import { ratingCountsSql } from "../src/server/ratings/counted.ts";
import { browser, caller, failure, fields, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { submission } from "./helpers/submission.ts";

/** What the worker does when a run completes: its result document goes through importResult. */
async function completeRun(runId: string) {
  const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { targetVersion: true, system: true } });
  const manifest = run.targetVersion.manifest as unknown as TargetManifest;
  await importResult(
    t.db,
    fixtureResult({
      size: "small",
      runId,
      target: { name: run.system.slug, system: manifest.system, version: manifest.version, manifestDigest: manifestDigest(manifest) },
    }),
  );
}

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
  const owner = await browser(t.db, "owner@example.com");
  await completeRun((await owner.api.submissions.submit(submission("rated"))).runId);
});
afterAll(async () => {
  await t?.drop();
});

describe("ratings", () => {
  /** An account whose address is verified, so its ratings count (the link itself is followed in email-verification.test.ts). */
  async function established(email: string) {
    const user = await browser(t.db, email);
    await t.db.user.update({ where: { id: user.user.id }, data: { emailVerifiedAt: new Date() } });
    return { ...user, api: (await caller(t.db, { headers: { origin: ORIGIN, cookie: user.cookie } })).api };
  }

  it("keeps one rating per user and system, editable, and averages the ratings that count", async () => {
    const a = await established("a@example.com");
    const b = await established("b@example.com");
    await a.api.ratings.rate({ slug: "rated", programmingModel: 2, understandability: 4 });
    await a.api.ratings.rate({ slug: "rated", programmingModel: 4, understandability: 4, comment: "changed my mind" });
    const rated = await b.api.ratings.rate({ slug: "rated", programmingModel: 5, understandability: 3 });
    expect(rated).toEqual({ summary: { programmingModel: 4.5, understandability: 3.5, count: 2 }, counted: true });
    const { api } = await caller(t.db);
    expect(await api.ratings.summary({ slug: "rated" })).toEqual(rated.summary);
    const mine = await t.db.rating.findMany({ where: { user: { email: "a@example.com" } } });
    expect(mine).toHaveLength(1);
    expect(mine[0]!.comment).toBe("changed my mind");
  });

  it("does not count an unverified account's 5/5, says why, and shows the count next to the mean", async () => {
    const fresh = await browser(t.db, "fresh@example.com");
    const rated = await fresh.api.ratings.rate({ slug: "rated", programmingModel: 5, understandability: 5 });
    expect(rated).toEqual({
      summary: { programmingModel: 4.5, understandability: 3.5, count: 2 },
      counted: false,
      why: "it counts once you verify fresh@example.com with the link mailed to it (you can send a new one)",
    });
    // many unverified accounts move nothing either, however old they are or whatever they submitted
    for (const n of [1, 2, 3]) {
      const sock = await browser(t.db, `sock${n}@example.com`);
      await t.db.user.update({ where: { id: sock.user.id }, data: { createdAt: new Date(Date.UTC(2020, 0, 1)) } });
      await sock.api.ratings.rate({ slug: "rated", programmingModel: 5, understandability: 5 });
    }
    const { api } = await caller(t.db);
    const page = await api.systems.bySlug({ slug: "rated" });
    expect(page.ratings).toEqual({ programmingModel: 4.5, understandability: 3.5, count: 2 });
    expect(page.ratingsPending).toBe(4);
    // the leaderboard's SQL applies the same rule
    const [sql] = await t.db.$queryRaw<{ count: number; programmingModel: number }[]>`
      SELECT count(*)::int AS count, avg("programmingModel")::float8 AS "programmingModel"
      FROM "Rating" WHERE "systemId" = ${page.id}::uuid AND ${ratingCountsSql()}`;
    expect(sql).toEqual({ count: 2, programmingModel: 4.5 });

    // once the address is verified, the rating counts
    await t.db.user.update({ where: { id: fresh.user.id }, data: { emailVerifiedAt: new Date() } });
    expect(await api.ratings.summary({ slug: "rated" })).toEqual({ programmingModel: 14 / 3, understandability: 4, count: 3 });
  });

  it("refuses scores outside 1-5, naming the field", async () => {
    const c = await browser(t.db, "c@example.com");
    const error = await failure(c.api.ratings.rate({ slug: "rated", programmingModel: 0, understandability: 6 }), "BAD_REQUEST");
    expect(fields(error)).toEqual({ programmingModel: ["must be 1 to 5"], understandability: ["must be 1 to 5"] });
  });

  it("does not let an owner rate their own system, nor anyone rate anonymously", async () => {
    const owner = await browser(t.db, "owner-b@example.com");
    await owner.api.submissions.submit(submission("own-rated"));
    await failure(owner.api.ratings.rate({ slug: "own-rated", programmingModel: 5, understandability: 5 }), "FORBIDDEN");
    await failure((await caller(t.db)).api.ratings.rate({ slug: "rated", programmingModel: 5, understandability: 5 }), "UNAUTHORIZED");
  });

  it("answers NOT_FOUND for an unknown system", async () => {
    const d = await browser(t.db, "d@example.com");
    await failure(d.api.ratings.rate({ slug: "no-such-system", programmingModel: 3, understandability: 3 }), "NOT_FOUND");
  });
});
