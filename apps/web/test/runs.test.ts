/** runs.byId and runs.progress answer anyone: what the run page shows, nothing about the server's files. */
import { importResult } from "@sfbench/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureManifest } from "../fixtures/manifest.ts";
import { fixtureResult } from "../fixtures/result-doc.ts";
import { handleTrpc } from "../src/server/trpc/http.ts";
import { ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

const SERVER_FILE = "/srv/sfbench/results/public-run/2026-11-23-secret.json";

let t: TestDatabase;
let runId: string;
beforeAll(async () => {
  t = await testDatabase();
  const { manifest, digest } = fixtureManifest("public-run");
  const doc = fixtureResult({ size: "small", target: { name: "public-run", system: manifest.system, version: manifest.version, manifestDigest: digest } });
  await importResult(t.db, doc, { manifest, resultPath: SERVER_FILE });
  runId = doc.runId;
});
afterAll(async () => {
  await t?.drop();
});

const get = async (procedure: string, id = runId) => {
  const res = await handleTrpc(new Request(`${ORIGIN}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ id }))}`), { db: t.db });
  return { status: res.status, text: await res.text() };
};
const progressOf = async (id: string) =>
  (JSON.parse((await get("runs.progress", id)).text) as { result: { data: { status: string; ahead: number | null } } }).result.data;

describe("a run, to anyone", () => {
  it("runs.byId returns the run and its result document, but not the server's path of the result file", async () => {
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).resultPath).toBe(SERVER_FILE);
    const { status, text } = await get("runs.byId");
    expect(status).toBe(200);
    const run = (JSON.parse(text) as { result: { data: Record<string, unknown> } }).result.data;
    expect(run).toMatchObject({
      id: runId,
      status: "completed",
      system: { slug: "public-run" },
      documentDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect((run.document as { runId: string }).runId).toBe(runId);
    expect(run).not.toHaveProperty("resultPath");
    expect(text).not.toContain(SERVER_FILE);
    expect(text).not.toContain("/srv/sfbench/results");
  });

  it("runs.progress does not carry it either", async () => {
    const { status, text } = await get("runs.progress");
    expect(status).toBe(200);
    expect(text).not.toContain("resultPath");
    expect(text).not.toContain("/srv/sfbench/results");
  });
});

describe("a queued run's place in the queue", () => {
  it("counts the runs the worker takes before it: queued earlier, or running now", async () => {
    const done = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    const queue = async (createdAt: Date) =>
      (
        await t.db.run.create({
          data: { systemId: done.systemId, targetVersionId: done.targetVersionId, environmentKind: "local", nodes: 1, profile: "standard", createdAt },
        })
      ).id;
    const first = await queue(new Date("2026-11-29T10:00:00Z"));
    const second = await queue(new Date("2026-11-29T10:00:01Z"));
    const third = await queue(new Date("2026-11-29T10:00:02Z"));
    expect(await progressOf(runId)).toMatchObject({ status: "completed", ahead: null });
    expect(await progressOf(first)).toMatchObject({ status: "queued", ahead: 0 });
    expect(await progressOf(third)).toMatchObject({ status: "queued", ahead: 2 });
    await t.db.run.update({ where: { id: first }, data: { status: "running" } });
    expect(await progressOf(first)).toMatchObject({ status: "running", ahead: null });
    expect(await progressOf(second)).toMatchObject({ ahead: 1 });
    await t.db.run.update({ where: { id: first }, data: { status: "completed" } });
    expect(await progressOf(third)).toMatchObject({ ahead: 1 });
  });
});
