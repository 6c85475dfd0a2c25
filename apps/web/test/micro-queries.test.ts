/**
 * The micro and resilience queries of the portal on a real database, with
 * fixture result documents imported through importResult: the latest completed
 * run with microbenchmarks per system (never a failed one), the compare page's
 * input, the system page's experiments, and the leaderboard's view parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureManifest } from "../fixtures/manifest.ts";
import { microCompareInput, microRuns } from "../src/server/queries/micro.ts";
import { getSystemExperiments } from "../src/server/queries/system-experiments.ts";
import { byImplementation } from "../src/shared/implementation.ts";
import { readLeaderboardParams } from "../src/shared/leaderboard-params.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importFixture } from "./helpers/results.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 9, minute));

describe("micro queries", () => {
  it("pick each system's latest completed run with microbenchmarks, with its headline figures, never a failed run", async () => {
    const old = await importFixture(t.db, "mp", { seed: 1, micro: "supported", finishedAt: at(1) });
    const latest = await importFixture(t.db, "mp", { seed: 2, micro: "supported", finishedAt: at(2) });
    await importFixture(t.db, "mp", { seed: 3, finishedAt: at(3) });
    await importFixture(t.db, "mp", { seed: 4, micro: "supported", failed: true, finishedAt: at(4) });
    await importFixture(t.db, "mq", { seed: 5, micro: "unsupported", finishedAt: at(1) });
    const rows = await microRuns(t.db, { kind: "local", nodes: 1 });
    expect(rows.map((r) => [r.slug, r.runId])).toEqual([
      ["mp", latest.runId],
      ["mq", expect.any(String)],
    ]);
    expect(rows[0]!.runId).not.toBe(old.runId);
    const micro = latest.micro as Extract<NonNullable<typeof latest.micro>, { supported: true }>;
    expect(rows[0]!.figures).toMatchObject({ supported: true, emptyMaxRate: micro.emptyMaxRate.sustainableRate, bigEntities: 1000 });
    expect(rows[1]!.figures).toEqual({ supported: false, reason: 'target.json does not declare "micro": true' });

    const input = await microCompareInput(
      t.db,
      [
        { slug: "mq", name: "Q" },
        { slug: "nothing", name: "N" },
        { slug: "mp", name: "P" },
      ],
      { kind: "local", nodes: 1 },
    );
    expect(input.map((i) => [i.slug, i.runId])).toEqual([
      ["mq", rows[1]!.runId],
      ["nothing", null],
      ["mp", latest.runId],
    ]);
    expect(input[2]!.doc?.micro).toEqual(latest.micro);
    expect(await microCompareInput(t.db, [{ slug: "mp", name: "P" }], { kind: "kubernetes", nodes: 3 })).toEqual([
      { slug: "mp", name: "P", runId: null, doc: null },
    ]);
  });

  it("say each row's implementation class, so that the micro view hides tuned rows unless asked, as the rates view does", async () => {
    await importFixture(t.db, "mt-idiomatic", { seed: 11, micro: "supported", finishedAt: at(5) });
    await importFixture(t.db, "mt-tuned", { seed: 12, micro: "supported", finishedAt: at(5), manifest: { implementation: "tuned" } });
    const rows = (await microRuns(t.db, { kind: "local", nodes: 1 })).filter((r) => r.slug.startsWith("mt-"));
    expect(rows.map((r) => [r.slug, r.implementation])).toEqual([
      ["mt-idiomatic", "idiomatic"],
      ["mt-tuned", "tuned"],
    ]);
    const hidden = byImplementation(rows, readLeaderboardParams({ view: "micro" }).tuned);
    expect(hidden.shown.map((r) => r.slug)).toEqual(["mt-idiomatic"]);
    expect(hidden.hiddenTuned).toBe(1);
    expect(byImplementation(rows, readLeaderboardParams({ view: "micro", tuned: "1" }).tuned).shown).toHaveLength(2);
  });

  it("give a system page its micro rows, its latest resilience run and the experiments its manifest cannot do", async () => {
    const doc = await importFixture(t.db, "rs", { seed: 8, micro: "supported", faultCell: "checkout/uniform", resilience: true, finishedAt: at(10) });
    const system = await t.db.system.findUniqueOrThrow({ where: { slug: "rs" } });
    const noLocal = "the manifest has no local start command";
    const ex = await getSystemExperiments(t.db, system.id, fixtureManifest("rs").manifest);
    expect(ex.micro.map((m) => m.runId)).toEqual([doc.runId]);
    expect(ex.resilience?.runId).toBe(doc.runId);
    expect(ex.resilience?.doc.cells.some((c) => c.fault)).toBe(true);
    expect(ex.unsupported).toEqual(["fault", "recovery", "scale-up", "scalability"].map((experiment) => ({ experiment, reason: noLocal })));
    const local = { command: ["node", "server.js"] };
    const single = fixtureManifest("rs", { local });
    expect((await getSystemExperiments(t.db, system.id, single.manifest)).unsupported).toEqual([
      { experiment: "scale-up", reason: "single-process target (target.json declares no nodes)" },
      { experiment: "scalability", reason: "single-process target (target.json declares no nodes)" },
    ]);
    const elastic = fixtureManifest("rs", { local, nodes: { max: 4, elastic: true } });
    expect((await getSystemExperiments(t.db, system.id, elastic.manifest)).unsupported).toEqual([]);
    expect((await getSystemExperiments(t.db, system.id, null)).unsupported).toBeNull();
  });

  it("the leaderboard keeps a valid view parameter and falls back to the rates view otherwise", () => {
    expect(readLeaderboardParams({ view: "micro" }).view).toBe("micro");
    expect(readLeaderboardParams({ view: "bogus" }).view).toBe("rates");
    expect(readLeaderboardParams({}).view).toBe("rates");
  });
});
