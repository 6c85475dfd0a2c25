import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, caller, failure, fields } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { submission } from "./helpers/submission.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
  const owner = await browser(t.db, "owner@example.com");
  await owner.api.submissions.submit(submission("rated"));
});
afterAll(async () => {
  await t?.drop();
});

describe("ratings", () => {
  it("keeps one rating per user and system, editable, and averages them", async () => {
    const a = await browser(t.db, "a@example.com");
    const b = await browser(t.db, "b@example.com");
    await a.api.ratings.rate({ slug: "rated", programmingModel: 2, understandability: 4 });
    await a.api.ratings.rate({ slug: "rated", programmingModel: 4, understandability: 4, comment: "changed my mind" });
    const summary = await b.api.ratings.rate({ slug: "rated", programmingModel: 5, understandability: 3 });
    expect(summary).toEqual({ programmingModel: 4.5, understandability: 3.5, count: 2 });
    const { api } = await caller(t.db);
    expect(await api.ratings.summary({ slug: "rated" })).toEqual(summary);
    const mine = await t.db.rating.findMany({ where: { user: { email: "a@example.com" } } });
    expect(mine).toHaveLength(1);
    expect(mine[0]!.comment).toBe("changed my mind");
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
