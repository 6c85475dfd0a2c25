import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, importResult, latestMicroRuns, latestResilienceRun, migrate, type Db } from "../src/index.ts";
import { failedDoc, resultDoc, testDatabase, type TestDatabase } from "./helpers.ts";

let test: TestDatabase;
let db: Db;
beforeAll(async () => {
  test = await testDatabase();
  await migrate(test.url);
  db = createDb(test.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await test?.drop();
});

const at = (minute: number) => `2026-11-22T08:${String(minute).padStart(2, "0")}:00.000Z`;
const target = (name: string) => ({ name, version: "1.0.0", system: name, manifestDigest: `sha256:${name.charCodeAt(0).toString(16).padStart(64, "0")}` });
const micro = (rate: number) => ({
  supported: true as const,
  overhead: [],
  emptyMaxRate: { sustainableRate: rate, resolution: 0.1 },
  pingpong: [],
  divide: [],
  big: [],
  notes: [],
});
const fault = {
  kill: { node: 0, nodes: 1, signal: "SIGKILL" as const, atS: 30, restarted: true, restartHealthyAfterS: 1.5 },
  offeredRate: 100,
  baselineRate: 99,
  baselineSeconds: 10,
  errorWindow: { startS: 0, endS: 2, durationS: 2 },
  recoveredAfterS: 3,
  tolerance: 0.1,
  sustainS: 5,
  lost: 4,
  failed: 1,
  dropped: 0,
  missingSuccessful: 150,
  minRate: 0,
  baselineP99Ms: 10,
  peakP99Ms: 900,
};

describe("latestMicroRuns", () => {
  it("returns each system's latest completed run with a micro part, never a failed run or one without micro", async () => {
    const docs = {
      old: resultDoc({ target: target("m"), startedAt: at(0), finishedAt: at(1), micro: micro(100) }),
      newer: resultDoc({ target: target("m"), startedAt: at(2), finishedAt: at(3), micro: micro(200) }),
      withoutMicro: resultDoc({ target: target("m"), startedAt: at(4), finishedAt: at(5) }),
      failed: failedDoc({ target: target("m"), startedAt: at(6), finishedAt: at(7), micro: micro(999) }),
      other: resultDoc({
        target: target("n"),
        startedAt: at(0),
        finishedAt: at(1),
        micro: { supported: false, reason: 'target.json does not declare "micro": true' },
      }),
    };
    for (const doc of Object.values(docs)) await importResult(db, doc);
    const rows = await latestMicroRuns(db, { environmentKind: "local", nodes: 1 });
    expect(rows.map((r) => [r.slug, r.runId]).sort()).toEqual(
      [
        ["m", docs.newer.runId],
        ["n", docs.other.runId],
      ].sort(),
    );
    const m = rows.find((r) => r.slug === "m")!;
    expect((m.micro as { emptyMaxRate: { sustainableRate: number } }).emptyMaxRate.sustainableRate).toBe(200);
    expect(m.profile).toBe("quick");
    expect(rows.find((r) => r.slug === "n")!.micro).toEqual({ supported: false, reason: 'target.json does not declare "micro": true' });
    const only = await latestMicroRuns(db, { systemId: m.systemId });
    expect(only.map((r) => r.runId)).toEqual([docs.newer.runId]);
  });
});

describe("latestResilienceRun", () => {
  it("finds the latest completed run with a cell's fault phase or run-level resilience results, and null without any", async () => {
    const base = resultDoc();
    const cell = (base.cells as NonNullable<typeof base.cells>)[0]!;
    const withFault = resultDoc({ target: target("r"), startedAt: at(10), finishedAt: at(11), cells: [{ ...cell, fault }] });
    const withRecovery = resultDoc({
      target: target("r"),
      startedAt: at(12),
      finishedAt: at(13),
      resilience: {
        recovery: { points: [{ products: 1000, users: 1000, healthAfterS: 1, firstCheckoutAfterS: 2, checked: 100, missing: 0, changed: 0 }] },
        unsupported: [],
      },
    });
    const plain = resultDoc({ target: target("r"), startedAt: at(14), finishedAt: at(15) });
    const failed = failedDoc({ target: target("r"), startedAt: at(16), finishedAt: at(17), resilience: { unsupported: [] } });
    await importResult(db, withFault);
    const systemId = (await db.system.findUniqueOrThrow({ where: { slug: "r" } })).id;
    expect((await latestResilienceRun(db, systemId))?.runId).toBe(withFault.runId);
    for (const doc of [withRecovery, plain, failed]) await importResult(db, doc);
    const latest = await latestResilienceRun(db, systemId);
    expect(latest?.runId).toBe(withRecovery.runId);
    expect((latest?.document as { resilience: { recovery: { points: unknown[] } } }).resilience.recovery.points).toHaveLength(1);

    await importResult(db, resultDoc({ target: target("q"), startedAt: at(0), finishedAt: at(1) }));
    const q = (await db.system.findUniqueOrThrow({ where: { slug: "q" } })).id;
    expect(await latestResilienceRun(db, q)).toBeNull();
  });
});
