import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIn, type MailSink } from "../scripts/mail-sink.ts";
import { bundledTargetNames } from "../src/server/operator/bundled.ts";
import { browser, caller, failure, fields, ORIGIN } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { mailingTo, mailSink } from "./helpers/mail.ts";
import { importFixture } from "./helpers/results.ts";
import { submission } from "./helpers/submission.ts";

const OPERATOR = "operator@example.com";

let t: TestDatabase;
let sink: MailSink;
beforeAll(async () => {
  t = await testDatabase();
  sink = await mailSink();
});
afterAll(async () => {
  await sink?.stop();
  await t?.drop();
});

/** A signed-in account whose address is verified through the link the local SMTP server received; a fresh caller, so it sees itself verified. */
async function verifiedAccount(email: string) {
  const portal = mailingTo(sink, { operatorEmail: OPERATOR });
  const signedUp = await browser(t.db, email, undefined, portal);
  const token = new URL(linkIn(await sink.next(email), "/verify-email")).searchParams.get("token")!;
  await signedUp.api.auth.verifyEmail({ token });
  const { api } = await caller(t.db, { headers: { origin: ORIGIN, cookie: signedUp.cookie }, portal });
  return { api, user: signedUp.user };
}

describe("bundled target names", () => {
  it("are the folders of packages/targets with a target.json, new ones included", () => {
    const names = bundledTargetNames();
    for (const name of ["node-postgres", "restate", "durable-objects", "statefun", "protoactor-go"]) expect(names.has(name)).toBe(true);
    const root = mkdtempSync(path.join(tmpdir(), "sfbench-targets-"));
    mkdirSync(path.join(root, "newcomer"));
    writeFileSync(path.join(root, "newcomer", "target.json"), "{}");
    mkdirSync(path.join(root, "no-manifest"));
    expect([...bundledTargetNames(root)]).toEqual(["newcomer"]);
  });

  it("belong to the operator: another account's submission of one is refused, the operator's is taken", async () => {
    const stranger = await verifiedAccount("first@example.com");
    const refused = await failure(stranger.api.submissions.submit(submission("restate")), "FORBIDDEN");
    expect(fields(refused)).toEqual({ name: ['the name "restate" is a bundled target and belongs to the operator; choose another name'] });
    expect(await t.db.system.count({ where: { slug: "restate" } })).toBe(0);

    const operator = await verifiedAccount(OPERATOR);
    const submitted = await operator.api.submissions.submit(submission("restate"));
    expect(submitted.systemSlug).toBe("restate");
    expect(await t.db.system.findUniqueOrThrow({ where: { slug: "restate" } })).toMatchObject({ ownerId: operator.user.id });
    // the system page still calls it bundled, though the operator's account owns it
    expect((await (await caller(t.db)).api.systems.bySlug({ slug: "restate" })).bundled).toBe(true);
    // and stays the operator's
    await failure(stranger.api.submissions.submit(submission("restate", { version: "0.2.0" })), "FORBIDDEN");
    // a name that is not bundled is still the first submitter's
    expect((await stranger.api.submissions.submit(submission("my-own-system"))).systemSlug).toBe("my-own-system");
  });

  it("does not make an unverified account with the operator's address the operator", async () => {
    await t.db.user.update({ where: { email: OPERATOR }, data: { emailVerifiedAt: null } });
    const { api } = await browser(t.db, "someone@example.com", undefined, mailingTo(sink, { operatorEmail: "someone@example.com" }));
    const refused = await failure(api.submissions.submit(submission("statefun")), "FORBIDDEN");
    expect(fields(refused).name![0]).toContain("this is the operator's address, but it is not verified yet");
  });

  it("lets the operator take over a bundled system the worker imported (no owner)", async () => {
    await importFixture(t.db, "node-postgres", { capacity: 1000, seed: 1 });
    expect(await t.db.system.findUniqueOrThrow({ where: { slug: "node-postgres" } })).toMatchObject({ ownerId: null });
    const signedUp = await browser(t.db, "op2@example.com");
    await t.db.user.update({ where: { email: "op2@example.com" }, data: { emailVerifiedAt: new Date() } });
    const { api } = await caller(t.db, { headers: { origin: ORIGIN, cookie: signedUp.cookie }, portal: { operatorEmail: "op2@example.com" } });
    await api.submissions.submit(submission("node-postgres", { version: "0.9.0" }));
    const system = await t.db.system.findUniqueOrThrow({ where: { slug: "node-postgres" }, include: { owner: true } });
    expect(system.owner?.email).toBe("op2@example.com");
  });
});
