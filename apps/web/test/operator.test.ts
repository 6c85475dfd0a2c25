/**
 * The operator and the bundled targets' names: the operator's account is the
 * one of SFBENCH_OPERATOR_EMAIL taken through a link `npm run operator`
 * printed, never one made by signing up first with that address.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIn, type MailSink } from "../scripts/mail-sink.ts";
import { bundledTargetNames } from "../src/server/operator/bundled.ts";
import { createOperatorSetup } from "../src/server/operator/setup.ts";
import { browser, caller, cookieFrom, failure, fields, ORIGIN } from "./helpers/callers.ts";
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

const PASSWORD = "operator's own password";

/** A signed-in account whose address is verified through the link the local SMTP server received; a fresh caller, so it sees itself verified. */
async function verifiedAccount(email: string, operatorEmail: string | null = OPERATOR) {
  const portal = mailingTo(sink, { ...(operatorEmail ? { operatorEmail } : {}) });
  const signedUp = await browser(t.db, email, undefined, portal);
  const token = new URL(linkIn(await sink.next(email), "/verify-email")).searchParams.get("token")!;
  await signedUp.api.auth.verifyEmail({ token });
  const { api } = await caller(t.db, { headers: { origin: ORIGIN, cookie: signedUp.cookie }, portal: mailingTo(sink, { operatorEmail: OPERATOR }) });
  return { api, user: signedUp.user, cookie: signedUp.cookie };
}

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

/** Follows an operator link as a browser with no session: the account's password set, signed in as it. */
async function claim(link: string, password = PASSWORD) {
  const anon = await caller(t.db, { headers: { origin: ORIGIN }, portal: { operatorEmail: OPERATOR } });
  const claimed = await anon.api.auth.claimOperator({ token: tokenOf(link), password });
  const cookie = cookieFrom(anon.resHeaders);
  const { api } = await caller(t.db, { headers: { origin: ORIGIN, cookie }, portal: { operatorEmail: OPERATOR } });
  return { api, claimed, cookie };
}

/** The operator's account, set up as `npm run operator` does it. */
async function operatorAccount() {
  const { link } = await createOperatorSetup(t.db, OPERATOR, { origin: ORIGIN });
  return claim(link);
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

    const operator = await operatorAccount();
    const submitted = await operator.api.submissions.submit(submission("restate"));
    expect(submitted.systemSlug).toBe("restate");
    const operatorUser = await t.db.user.findUniqueOrThrow({ where: { email: OPERATOR } });
    expect(await t.db.system.findUniqueOrThrow({ where: { slug: "restate" } })).toMatchObject({ ownerId: operatorUser.id });
    // the system page still calls it bundled, though the operator's account owns it
    expect((await (await caller(t.db)).api.systems.bySlug({ slug: "restate" })).bundled).toBe(true);
    // and stays the operator's
    await failure(stranger.api.submissions.submit(submission("restate", { version: "0.2.0" })), "FORBIDDEN");
    // a name that is not bundled is still the first submitter's
    expect((await stranger.api.submissions.submit(submission("my-own-system"))).systemSlug).toBe("my-own-system");
  });

  it("lets the operator take over a bundled system the worker imported (no owner)", async () => {
    await importFixture(t.db, "node-postgres", { capacity: 1000, seed: 1 });
    expect(await t.db.system.findUniqueOrThrow({ where: { slug: "node-postgres" } })).toMatchObject({ ownerId: null });
    const { link } = await createOperatorSetup(t.db, "op2@example.com", { origin: ORIGIN });
    const anon = await caller(t.db, { headers: { origin: ORIGIN }, portal: { operatorEmail: "op2@example.com" } });
    await anon.api.auth.claimOperator({ token: tokenOf(link), password: PASSWORD });
    const { api } = await caller(t.db, { headers: { origin: ORIGIN, cookie: cookieFrom(anon.resHeaders) }, portal: { operatorEmail: "op2@example.com" } });
    await api.submissions.submit(submission("node-postgres", { version: "0.9.0" }));
    const system = await t.db.system.findUniqueOrThrow({ where: { slug: "node-postgres" }, include: { owner: true } });
    expect(system.owner?.email).toBe("op2@example.com");
  });
});

describe("the operator's account", () => {
  const RACE = "race-operator@example.com";
  const racePortal = { operatorEmail: RACE };

  it("cannot be signed up for: the operator's address is refused, naming the command that makes it", async () => {
    const anon = await caller(t.db, { headers: { origin: ORIGIN }, portal: { operatorEmail: OPERATOR } });
    const refused = await failure(anon.api.auth.signUp({ email: OPERATOR.toUpperCase(), password: "a stranger's password" }), "FORBIDDEN");
    expect(fields(refused).email![0]).toMatch(/^this is the portal operator's address: its account is made on the portal's machine with `npm run operator/);
  });

  it("is never a stranger's who signed up first with the address; the operator's link takes it from them", async () => {
    // the stranger signed up (and verified the address, with access to its mail) while the portal named no operator yet
    const stranger = await verifiedAccount(RACE, null);
    const asOperatorNow = await caller(t.db, { headers: { origin: ORIGIN, cookie: stranger.cookie }, portal: racePortal });
    expect(await asOperatorNow.api.auth.me()).toMatchObject({ email: RACE, emailVerified: true, operator: false });
    const strangerToken = (await asOperatorNow.api.tokens.create({ name: "stranger's" })).token;
    const refused = await failure(asOperatorNow.api.submissions.submit(submission("statefun")), "FORBIDDEN");
    expect(fields(refused).name![0]).toContain("this is the operator's address, but this account was not set up through an operator link");

    const { link } = await createOperatorSetup(t.db, RACE, { origin: ORIGIN });
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:3000\/operator-setup\?token=[\w-]{43}$/);
    expect(await t.db.operatorSetup.count({ where: { tokenHash: tokenOf(link) } })).toBe(0);
    const anon = await caller(t.db, { headers: { origin: ORIGIN }, portal: racePortal });
    expect(await anon.api.auth.claimOperator({ token: tokenOf(link), password: PASSWORD })).toEqual({ email: RACE, operator: true });
    const operator = await caller(t.db, { headers: { origin: ORIGIN, cookie: cookieFrom(anon.resHeaders) }, portal: racePortal });
    expect(await operator.api.auth.me()).toMatchObject({ email: RACE, operator: true });
    expect((await operator.api.submissions.submit(submission("statefun"))).systemSlug).toBe("statefun");

    // the stranger's session, API token and password are gone
    expect(await (await caller(t.db, { headers: { origin: ORIGIN, cookie: stranger.cookie }, portal: racePortal })).api.auth.me()).toBeNull();
    expect(await (await caller(t.db, { headers: { authorization: `Bearer ${strangerToken}` }, portal: racePortal })).api.auth.me()).toBeNull();
    await failure(anon.api.auth.signIn({ email: RACE, password: "correct horse battery" }), "UNAUTHORIZED");
    expect((await anon.api.auth.signIn({ email: RACE, password: PASSWORD })).email).toBe(RACE);
  });

  it("refuses a link used once already, an expired link and an unknown one", async () => {
    const { link } = await createOperatorSetup(t.db, "reuse-operator@example.com", { origin: ORIGIN });
    await claim(link);
    const again = await failure(claim(link, "another password altogether"), "CONFLICT");
    expect(again.message).toMatch(/^this operator link was already used \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\); a link works once: run `npm run operator/);
    await failure((await caller(t.db)).api.auth.signIn({ email: "reuse-operator@example.com", password: "another password altogether" }), "UNAUTHORIZED");

    const old = await createOperatorSetup(t.db, "late-operator@example.com", { origin: ORIGIN, hours: 1, now: new Date(Date.now() - 2 * 3600_000) });
    const expired = await failure(claim(old.link), "BAD_REQUEST");
    expect(expired.message).toMatch(/^this operator link expired at .* UTC; run `npm run operator/);
    expect(await t.db.user.count({ where: { email: "late-operator@example.com" } })).toBe(0);

    const unknown = await failure(claim(`${ORIGIN}/operator-setup?token=${"x".repeat(43)}`), "NOT_FOUND");
    expect(unknown.message).toMatch(/^this operator link is not valid/);
  });

  it("is made with npm run operator, which prints the link for the address of SFBENCH_OPERATOR_EMAIL", async () => {
    const run = (args: string[], extra: Record<string, string> = {}) => {
      const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: t.url, ...extra };
      delete env.SFBENCH_PUBLIC_ORIGIN;
      if (!extra.SFBENCH_OPERATOR_EMAIL) delete env.SFBENCH_OPERATOR_EMAIL;
      return execFileSync(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../scripts/operator.ts"), ...args], { env, encoding: "utf8" });
    };
    const out = run(["--origin", "https://sfbench.example.org"], { SFBENCH_OPERATOR_EMAIL: "Cli-Operator@example.com" });
    const link = /^https:\/\/sfbench\.example\.org\/operator-setup\?token=\S+$/m.exec(out)?.[0];
    expect(link, out).toBeDefined();
    expect(out).toMatch(/^the operator's account \(cli-operator@example\.com\): open this link and choose its password \(it works once, until .* UTC\):$/m);
    const anon = await caller(t.db, { headers: { origin: ORIGIN }, portal: { operatorEmail: "cli-operator@example.com" } });
    expect(await anon.api.auth.claimOperator({ token: tokenOf(link!), password: PASSWORD })).toEqual({ email: "cli-operator@example.com", operator: true });

    let error: { status: number; stderr: string } | undefined;
    try {
      run(["--email", "someone-else@example.com"], { SFBENCH_OPERATOR_EMAIL: "cli-operator@example.com" });
    } catch (e) {
      error = e as { status: number; stderr: string };
    }
    expect(error?.status).toBe(2);
    expect(error?.stderr).toMatch(/^operator: --email someone-else@example\.com is not SFBENCH_OPERATOR_EMAIL \(cli-operator@example\.com\)/);
  });
});
