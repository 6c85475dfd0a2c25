/**
 * Campaigns on the portal: registering a system without a run, then one
 * queued run per system and round in interleaved order, each tagged with the
 * campaign, its trial and round, and the order the worker takes them in
 * (oldest first) being the rounds' order.
 */
import { interleavedRounds } from "@sfbench/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, caller, cookieFrom, failure, fields, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { submission } from "./helpers/submission.ts";
import { createOperatorSetup } from "../src/server/operator/setup.ts";

const OPERATOR = "operator-campaigns@example.com";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
});
afterAll(async () => {
  await t?.drop();
});

/** The operator's account, set up as `npm run operator` does it: the link followed, the password set, signed in. */
async function operatorAccount() {
  const { link } = await createOperatorSetup(t.db, OPERATOR, { origin: ORIGIN });
  const portal = { operatorEmail: OPERATOR };
  const anon = await caller(t.db, { headers: { origin: ORIGIN }, portal });
  await anon.api.auth.claimOperator({ token: new URL(link).searchParams.get("token")!, password: "operator's own password" });
  return caller(t.db, { headers: { origin: ORIGIN, cookie: cookieFrom(anon.resHeaders) }, portal, limits: { submissionsPerHour: 1 } });
}

describe("campaigns", () => {
  it("registers a system and its version without queuing a run", async () => {
    const { api, user } = await browser(t.db, "register@example.com");
    const registered = await api.submissions.register(submission("reg-only"));
    expect(registered).toEqual({ systemSlug: "reg-only", version: "0.1.0" });
    const system = await t.db.system.findUniqueOrThrow({ where: { slug: "reg-only" }, include: { versions: true } });
    expect(system.ownerId).toBe(user.id);
    expect(system.versions).toHaveLength(1);
    expect(await t.db.run.count({ where: { systemId: system.id } })).toBe(0);
  });

  it("queues one run per system and round, in the rounds' seeded order, each tagged with the campaign", async () => {
    const { api } = await browser(t.db, "campaigner@example.com");
    for (const name of ["camp-a", "camp-b", "camp-c"]) await api.submissions.register(submission(name));
    const created = await api.campaigns.create({
      systems: ["camp-a", "camp-b", "camp-c"],
      trials: 3,
      orderSeed: 42,
      workloads: ["checkout", "analytics"],
      distributions: ["uniform"],
    });
    expect(created.orderSeed).toBe(42);
    const expected = interleavedRounds(["camp-a", "camp-b", "camp-c"], 3, 42).flatMap((r) => r.order.map((system) => ({ system, round: r.round })));
    expect(created.runs.map((r) => ({ system: r.system, round: r.round }))).toEqual(expected);

    // the worker's dispatcher takes queued runs oldest first: that order is the campaign's
    const queued = await t.db.run.findMany({ where: { campaignId: created.campaignId }, orderBy: { createdAt: "asc" }, include: { system: true } });
    expect(queued.map((r) => r.id)).toEqual(created.runs.map((r) => r.runId));
    expect(new Set(queued.map((r) => r.createdAt.getTime())).size).toBe(queued.length);
    // the campaign's runs, as anyone may list them (the demo follows a campaign by them)
    const listed = await (await caller(t.db)).api.campaigns.runs({ campaignId: created.campaignId });
    expect(listed.map((r) => [r.runId, r.system, r.round, r.attempt, r.status])).toEqual(created.runs.map((r) => [r.runId, r.system, r.round, 1, "queued"]));
    expect((await failure((await caller(t.db)).api.campaigns.runs({ campaignId: "4b0c4ed5-5f3b-4a1e-9a0e-6c0f3f6f0a11" }), "NOT_FOUND")).message).toContain(
      "no campaign",
    );
    for (const run of queued) {
      expect(run).toMatchObject({ status: "queued", profile: "standard", environmentKind: "local", nodes: 1, trial: run.round, attempt: 1 });
      expect(run.parameters).toEqual({ workloads: ["checkout", "analytics"], distributions: ["uniform"], seed: 1, busyRepeats: 1 });
    }
  });

  it("runs only the caller's own, registered systems, and names the field", async () => {
    const { api: owner } = await browser(t.db, "owner@example.com");
    await owner.submissions.register(submission("owned-sys"));
    const { api } = await browser(t.db, "stranger@example.com");
    const foreign = await failure(api.campaigns.create({ systems: ["owned-sys"] }), "FORBIDDEN");
    expect(fields(foreign).systems![0]).toContain("belongs to another account");
    const missing = await failure(api.campaigns.create({ systems: ["never-registered"] }), "BAD_REQUEST");
    expect(fields(missing).systems![0]).toContain("no system named never-registered");
    const twice = await failure(api.campaigns.create({ systems: ["a-sys", "a-sys"] }), "BAD_REQUEST");
    expect(fields(twice).systems![0]).toContain("each system once");
    const many = await failure(api.campaigns.create({ systems: ["owned-sys"], trials: 99 }), "BAD_REQUEST");
    expect(Object.keys(fields(many))).toEqual(["trials"]);
    expect(await t.db.run.count({ where: { system: { slug: "owned-sys" } } })).toBe(0);
  });

  it("counts every trial against the hourly submission limit", async () => {
    const { api } = await browser(t.db, "limited@example.com", { submissionsPerHour: 4 });
    await api.submissions.register(submission("lim-a"));
    await api.submissions.register(submission("lim-b"));
    const tooBig = await failure(api.campaigns.create({ systems: ["lim-a", "lim-b"], trials: 3 }), "BAD_REQUEST");
    expect(fields(tooBig).trials![0]).toContain("queues 6 runs");
    await api.campaigns.create({ systems: ["lim-a", "lim-b"], trials: 2 });
    await failure(api.campaigns.create({ systems: ["lim-a"], trials: 1 }), "TOO_MANY_REQUESTS");
  });

  it("lets the operator run every registered system, teams' included, beside the reference, and nobody else", async () => {
    const { api: team } = await browser(t.db, "team-all@example.com");
    const refused = await failure(team.campaigns.create({ all: true }), "FORBIDDEN");
    expect(fields(refused).all![0]).toContain("the operator's reference campaign");
    const both = await failure(team.campaigns.create({ all: true, systems: ["camp-a"] }), "BAD_REQUEST");
    expect(fields(both).all![0]).toContain("name no systems with it");
    const neither = await failure(team.campaigns.create({}), "BAD_REQUEST");
    expect(fields(neither).systems![0]).toContain("name at least one system");

    const operator = await operatorAccount();
    // without the reference registered there would be no ratio to give: refused, saying so
    const noReference = await failure(operator.api.campaigns.create({ all: true, trials: 1 }), "BAD_REQUEST");
    expect(fields(noReference).all![0]).toContain("the reference node-postgres is not registered");
    await operator.api.submissions.register(submission("node-postgres"));
    const registered = (await t.db.system.findMany({ where: { versions: { some: {} } }, select: { slug: true } })).map((s) => s.slug).sort();
    expect(registered).toEqual(expect.arrayContaining(["camp-a", "owned-sys", "node-postgres"]));
    const created = await operator.api.campaigns.create({ all: true, trials: 2, orderSeed: 7, workloads: ["checkout"] });
    // every registered system in every round, other accounts' too, in the seeded interleaved order
    expect(created.runs.map((r) => ({ system: r.system, round: r.round }))).toEqual(
      interleavedRounds(registered, 2, 7).flatMap((r) => r.order.map((system) => ({ system, round: r.round }))),
    );
    // the operator's campaign is the board's reference, not a submission: no hourly limit, whatever the count
    expect(created.runs.length).toBe(2 * registered.length);
    // marked as the reference campaign, as the worker's schedule marks its own: the schedule counts its period from this one
    const rows = await t.db.run.findMany({ where: { campaignId: created.campaignId }, select: { parameters: true } });
    expect(rows.map((r) => r.parameters)).toEqual(rows.map(() => ({ workloads: ["checkout"], seed: 1, busyRepeats: 1, referenceCampaign: true })));
    // and the operator may name another account's system too
    await operator.api.campaigns.create({ systems: ["owned-sys", "node-postgres"], trials: 1 });
  });
});
