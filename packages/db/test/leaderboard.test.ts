import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, explainLatestRuns, importResult, latestRuns, migrate, type Db } from "../src/index.ts";
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

const at = (minute: number) => `2026-11-22T07:${String(minute).padStart(2, "0")}:00.000Z`;
const target = (name: string) => ({ name, version: "1.0.0", system: name, manifestDigest: `sha256:${name.charCodeAt(0).toString(16).padStart(64, "0")}` });

describe("latestRuns", () => {
  it("picks the latest completed run per system and environment, never a failed one", async () => {
    const k8s = (nodes: number) => ({ ...resultDoc().environment, kind: "kubernetes" as const, nodes });
    const docs = {
      oldA: resultDoc({ target: target("a"), startedAt: at(0), finishedAt: at(1) }),
      newA: resultDoc({ target: target("a"), startedAt: at(2), finishedAt: at(3) }),
      failedA: failedDoc({ target: target("a"), startedAt: at(4), finishedAt: at(5) }),
      b: resultDoc({ target: target("b"), startedAt: at(0), finishedAt: at(1) }),
      b3: resultDoc({ target: target("b"), startedAt: at(0), finishedAt: at(9), environment: k8s(3) }),
      b5: resultDoc({ target: target("b"), startedAt: at(0), finishedAt: at(8), environment: k8s(5) }),
    };
    for (const doc of Object.values(docs)) await importResult(db, doc);

    const local = await latestRuns(db, { environmentKind: "local", nodes: 1 });
    expect(local.map((r) => r.runId).sort()).toEqual([docs.newA.runId, docs.b.runId].sort());
    const all = await latestRuns(db);
    expect(all.map((r) => [r.environmentKind, r.nodes, r.runId])).toEqual(
      expect.arrayContaining([
        ["kubernetes", 3, docs.b3.runId],
        ["kubernetes", 5, docs.b5.runId],
      ]),
    );
    expect(all).toHaveLength(4);
  });

  it("is answered from the leaderboard index", async () => {
    const plan = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SET LOCAL enable_seqscan = off`; // a tiny table would otherwise be scanned
      return explainLatestRuns(tx, { environmentKind: "local", nodes: 1 });
    });
    expect(plan).toMatch(/Index (Only )?Scan using "Run_status_environmentKind_nodes_systemId_finishedAt_idx"/);
    expect(plan).not.toMatch(/Sort/);
  });
});
