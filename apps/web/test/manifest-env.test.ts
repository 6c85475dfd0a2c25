/**
 * A manifest's local.env values are the team's: the system page and the run
 * (page and API alike) show their names to everyone and their values only to
 * the system's owner.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getRun } from "../src/server/queries/run.ts";
import { HIDDEN_ENV_VALUE } from "../src/server/queries/manifest-view.ts";
import { getSystem } from "../src/server/queries/system.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importFixture } from "./helpers/results.ts";

const ENV = { TARGET_DB_PASSWORD: "hunter2", LICENCE_KEY: "abc-123" };

describe("a manifest's environment values", () => {
  let t: TestDatabase;
  let owner: string;
  let stranger: string;
  let runId: string;
  beforeAll(async () => {
    t = await testDatabase();
    const doc = await importFixture(t.db, "secretive", {
      capacity: 500,
      seed: 3,
      manifest: { local: { command: ["node", "server.js"], env: ENV, startupTimeoutSeconds: 60 } },
    });
    runId = doc.runId;
    owner = (await t.db.user.create({ data: { email: "owner@example.com", passwordHash: "x" } })).id;
    stranger = (await t.db.user.create({ data: { email: "someone@example.com", passwordHash: "x" } })).id;
    await t.db.system.update({ where: { slug: "secretive" }, data: { ownerId: owner } });
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("are shown to the system's owner", async () => {
    const system = await getSystem(t.db, "secretive", owner);
    expect(system!.versions[0]!.manifest!.local!.env).toEqual(ENV);
  });

  it("are hidden from a visitor and from another account, whose page keeps their names", async () => {
    for (const viewer of [undefined, stranger]) {
      const page = JSON.stringify(await getSystem(t.db, "secretive", viewer));
      expect(page).not.toContain("hunter2");
      expect(page).not.toContain("abc-123");
      const system = await getSystem(t.db, "secretive", viewer);
      expect(system!.versions[0]!.manifest!.local!.env).toEqual({ TARGET_DB_PASSWORD: HIDDEN_ENV_VALUE, LICENCE_KEY: HIDDEN_ENV_VALUE });
      expect(system!.versions[0]!.manifest!.local!.command).toEqual(["node", "server.js"]);
    }
  });

  it("are hidden from whoever reads a run of the system", async () => {
    const run = JSON.stringify(await getRun(t.db, runId));
    expect(run).not.toContain("hunter2");
    expect(run).toContain("TARGET_DB_PASSWORD");
  });
});
