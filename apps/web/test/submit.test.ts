import { manifestDigest, type TargetManifest } from "@sfbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser, caller, cli, failure, fields } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importResult } from "@sfbench/db";
import { fixtureResult } from "../fixtures/result-doc.ts";
import { submission } from "./helpers/submission.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
});
afterAll(async () => {
  await t?.drop();
});

describe("submissions", () => {
  it("creates the System (owned by the submitter), the TargetVersion with the LOC it declares (sfbench counts its own) and a queued Run", async () => {
    const { api, user } = await browser(t.db, "team@example.com");
    const result = await api.submissions.submit(submission("restate-ts", { nodes: 2, profile: "standard" }));
    expect(result).toMatchObject({ systemSlug: "restate-ts", version: "0.1.0" });
    const run = await t.db.run.findUniqueOrThrow({ where: { id: result.runId }, include: { system: true, targetVersion: true } });
    expect(run).toMatchObject({ status: "queued", progress: 0, environmentKind: "local", nodes: 2, profile: "standard", submittedById: user.id });
    expect(run.system).toMatchObject({ slug: "restate-ts", name: "System restate-ts", ownerId: user.id, repository: "https://github.com/sfbench/restate-ts" });
    expect(run.targetVersion.declaredLoc).toEqual({ typescript: { app: 812, gateway: 140 } });
    expect(run.targetVersion.loc).toBeNull();
    expect(run.targetVersion.manifestDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((run.targetVersion.manifest as { name: string }).name).toBe("restate-ts");
  });

  it("queues the experiment and the microbenchmarks a submission chooses, and refuses a run with nothing to measure, naming the field", async () => {
    const { api } = await browser(t.db, "experiments@example.com");
    const params = async (runId: string) => (await t.db.run.findUniqueOrThrow({ where: { id: runId } })).parameters;
    const fault = await api.submissions.submit(submission("exp-fault", { experiment: "fault", workloads: ["checkout"], distributions: ["uniform"] }));
    expect(await params(fault.runId)).toEqual({ workloads: ["checkout"], distributions: ["uniform"], experiment: "fault" });
    const micro = await api.submissions.submit(submission("exp-micro", { workloads: [], micro: true }));
    expect(await params(micro.runId)).toEqual({ workloads: [], micro: true });
    // throughput is the default and is not stored as a choice
    const plain = await api.submissions.submit(submission("exp-plain", { experiment: "throughput" }));
    expect(await params(plain.runId)).toEqual({});
    const nothing = await failure(api.submissions.submit(submission("exp-none", { workloads: [] })), "BAD_REQUEST");
    expect(fields(nothing).workloads).toEqual(["must name at least one workload, unless micro is true (microbenchmarks only)"]);
    const unknown = await failure(api.submissions.submit(submission("exp-bad", { experiment: "chaos" as "fault" })), "BAD_REQUEST");
    expect(fields(unknown).experiment![0]).toMatch(/throughput.*fault.*scale-up.*recovery/);
  });

  it("lets the form's fields override the uploaded target.json", async () => {
    const { api } = await browser(t.db, "override@example.com");
    const { runId } = await api.submissions.submit(submission("override-me", { version: "2.0.0", system: "Overridden" }));
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { system: true, targetVersion: true } });
    expect(run.targetVersion.version).toBe("2.0.0");
    expect(run.system.name).toBe("Overridden");
  });

  it("names the field of a bad form input: name, version, repository", async () => {
    const { api } = await browser(t.db, "typos@example.com");
    const error = await failure(api.submissions.submit(submission("ok-name", { name: "Bad Name!", version: "one", repository: "not a url" })), "BAD_REQUEST");
    expect(Object.keys(fields(error)).sort()).toEqual(["name", "repository", "version"]);
    expect(fields(error).version![0]).toContain("semantic version");
  });

  it("names the manifest field of a bad target.json, with what is allowed", async () => {
    const { api } = await browser(t.db, "manifest@example.com");
    const bad = { ...JSON.parse(submission("bad-port").manifest), port: 80, langauge: "typescript" };
    const error = await failure(api.submissions.submit(submission("bad-port", { manifest: JSON.stringify(bad) })), "BAD_REQUEST");
    const messages = fields(error).manifest!.join("\n");
    expect(messages).toContain("port: ");
    expect(messages).toContain("1024-65535");
    expect(messages).toContain('langauge: unknown field (did you mean "language"?)');
    expect(error.message).toMatch(/^manifest: /);
  });

  it("says when target.json is not JSON, and when the LOC is not {language: {app, gateway}}", async () => {
    const { api } = await browser(t.db, "json@example.com");
    const notJson = await failure(api.submissions.submit(submission("x1", { manifest: "{ nope" })), "BAD_REQUEST");
    expect(fields(notJson).manifest![0]).toContain("not valid JSON");
    const badLoc = await failure(api.submissions.submit(submission("x2", { loc: JSON.stringify({ cobol: { app: 1, gateway: 0 } }) })), "BAD_REQUEST");
    expect(fields(badLoc).loc![0]).toContain("cobol");
    expect(await t.db.system.count({ where: { slug: { in: ["x1", "x2"] } } })).toBe(0);
  });

  it("needs an account", async () => {
    const { api } = await caller(t.db);
    await failure(api.submissions.submit(submission("anon")), "UNAUTHORIZED");
  });

  it("refuses the 11th submission of a user within an hour, and counts users apart", async () => {
    const heavy = await browser(t.db, "heavy@example.com");
    for (let i = 0; i < 10; i++) await heavy.api.submissions.submit(submission("heavy-user"));
    const error = await failure(heavy.api.submissions.submit(submission("heavy-user")), "TOO_MANY_REQUESTS");
    expect(error.message).toMatch(/at most 10 submissions per hour: try again in \d+ minutes?/);
    expect(await t.db.run.count({ where: { system: { slug: "heavy-user" } } })).toBe(10);
    const other = await browser(t.db, "light@example.com");
    await other.api.submissions.submit(submission("light-user"));
  });

  it("lets submissions older than an hour out of the count", async () => {
    const { api, user } = await browser(t.db, "patient@example.com", { submissionsPerHour: 2 });
    await api.submissions.submit(submission("patient"));
    await api.submissions.submit(submission("patient"));
    await failure(api.submissions.submit(submission("patient")), "TOO_MANY_REQUESTS");
    await t.db.run.updateMany({ where: { submittedById: user.id }, data: { createdAt: new Date(Date.now() - 2 * 3600_000) } });
    await api.submissions.submit(submission("patient"));
  });

  it("keeps the limit under parallel submissions", async () => {
    const { api } = await browser(t.db, "burst@example.com", { submissionsPerHour: 3 });
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => api.submissions.submit(submission("burst"))));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
  });

  it("stores a system named <script>alert(1)</script> exactly as text", async () => {
    const { api } = await browser(t.db, "xss@example.com");
    await api.submissions.submit(submission("xss-name", { system: "<script>alert(1)</script>" }));
    const { api: anon } = await caller(t.db);
    const system = await anon.systems.bySlug({ slug: "xss-name" });
    expect(system.name).toBe("<script>alert(1)</script>");
  });
});

describe("authorization", () => {
  it("does not let another user's token submit to, or change, your system", async () => {
    const owner = await browser(t.db, "owner2@example.com");
    await owner.api.submissions.submit(submission("owned-system"));
    const mallory = await browser(t.db, "mallory@example.com");
    const { token } = await mallory.api.tokens.create({ name: "mallory's cli" });
    const viaToken = await cli(t.db, token);

    const submitError = await failure(viaToken.submissions.submit(submission("owned-system", { version: "6.6.6" })), "FORBIDDEN");
    expect(fields(submitError).name![0]).toContain("belongs to another account");
    await failure(viaToken.systems.update({ slug: "owned-system", repository: "https://evil.example/pwned" }), "FORBIDDEN");

    const system = await t.db.system.findUniqueOrThrow({ where: { slug: "owned-system" }, include: { versions: true } });
    expect(system.description).toBe("A fixture target named owned-system.");
    expect(system.repository).toBe("https://github.com/sfbench/owned-system");
    expect(system.versions.map((v) => v.version)).toEqual(["0.1.0"]);
  });

  it("lets the owner change the repository link, with their token too, but not the description", async () => {
    const owner = await browser(t.db, "owner3@example.com");
    await owner.api.submissions.submit(submission("mine"));
    const { token } = await owner.api.tokens.create({ name: "cli" });
    const viaToken = await cli(t.db, token);
    const updated = await viaToken.systems.update({ slug: "mine", repository: "https://github.com/sfbench/mine-moved" });
    expect(updated).toEqual({ slug: "mine", repository: "https://github.com/sfbench/mine-moved", description: "A fixture target named mine." });
    // the description is target.json's: a field the procedure does not take is not written
    await viaToken.systems.update({ slug: "mine", repository: null, description: "Now with sagas." } as never);
    expect((await t.db.system.findUniqueOrThrow({ where: { slug: "mine" } })).description).toBe("A fixture target named mine.");
  });

  it("does not let anyone claim a bundled system (no owner)", async () => {
    await t.db.system.create({ data: { slug: "bundled", name: "Bundled" } });
    const { api } = await browser(t.db, "claimer@example.com");
    await failure(api.submissions.submit(submission("bundled")), "FORBIDDEN");
    await failure(api.systems.update({ slug: "bundled", repository: "https://evil.example/mine-now" }), "FORBIDDEN");
  });
});

describe("versions, and what a system shows", () => {
  /** What the worker does when a run completes: its result document goes through importResult. */
  async function complete(runId: string) {
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { targetVersion: true, system: true } });
    const manifest = run.targetVersion.manifest as unknown as TargetManifest;
    const target = { name: run.system.slug, system: manifest.system, version: manifest.version, manifestDigest: manifestDigest(manifest) };
    await importResult(t.db, fixtureResult({ size: "small", runId, target }));
  }
  const shown = (slug: string) => t.db.system.findUniqueOrThrow({ where: { slug }, select: { name: true, description: true, repository: true } });
  const manifestWith = (name: string, fields: Partial<TargetManifest>) => JSON.stringify({ ...JSON.parse(submission(name).manifest), ...fields });

  it("keeps the verified name and description when a resubmission never runs (needs_cluster), and changes them when a newer version verifies", async () => {
    const { api } = await browser(t.db, "versions@example.com");
    const first = await api.submissions.submit(submission("renamer"));
    await complete(first.runId);
    const verified = await shown("renamer");
    expect(verified).toEqual({ name: "System renamer", description: "A fixture target named renamer.", repository: "https://github.com/sfbench/renamer" });

    const second = await api.submissions.submit(
      submission("renamer", { version: "0.2.0", system: "Renamed by an unrun version", manifest: manifestWith("renamer", { description: "Not verified." }) }),
    );
    expect(await shown("renamer")).toEqual(verified);
    // the local worker cannot run a submitted image: the run ends needs_cluster, still nothing changes
    await t.db.run.update({ where: { id: second.runId }, data: { status: "needs_cluster", errorMessage: "needs the cluster provider" } });
    expect(await shown("renamer")).toEqual(verified);
    await expect((await caller(t.db)).api.systems.bySlug({ slug: "renamer" })).resolves.toMatchObject({
      name: "System renamer",
      description: "A fixture target named renamer.",
    });

    // once version 0.2.0 verifies, the system shows it; a later result of 0.1.0 does not take it back
    const late = await api.submissions.submit(submission("renamer"));
    const rerun = await api.submissions.submit(
      submission("renamer", { version: "0.2.0", system: "Renamed by an unrun version", manifest: manifestWith("renamer", { description: "Not verified." }) }),
    );
    await complete(rerun.runId);
    expect(await shown("renamer")).toEqual({
      name: "Renamed by an unrun version",
      description: "Not verified.",
      repository: "https://github.com/sfbench/renamer",
    });
    await complete(late.runId);
    expect((await shown("renamer")).name).toBe("Renamed by an unrun version");
  });

  it("refuses the same version with another target.json, naming the version, and writes nothing", async () => {
    const { api } = await browser(t.db, "same-version@example.com");
    await api.submissions.submit(submission("one-version"));
    const runsBefore = await t.db.run.count({ where: { system: { slug: "one-version" } } });
    const error = await failure(
      api.submissions.submit(submission("one-version", { manifest: manifestWith("one-version", { description: "Changed, same version." }) })),
      "CONFLICT",
    );
    expect(fields(error).version![0]).toMatch(
      /^version 0\.1\.0 of "one-version" was submitted on \d{4}-\d{2}-\d{2} with another target\.json \(sha256:[0-9a-f]{12}…\); a changed target\.json needs a new version \(e\.g\. 0\.1\.1\)$/,
    );
    const versions = await t.db.targetVersion.findMany({ where: { system: { slug: "one-version" } } });
    expect(versions.map((v) => v.version)).toEqual(["0.1.0"]);
    expect(await t.db.run.count({ where: { system: { slug: "one-version" } } })).toBe(runsBefore);
    // the same target.json again is a new run of the same version
    await api.submissions.submit(submission("one-version"));
    expect(await t.db.targetVersion.count({ where: { system: { slug: "one-version" } } })).toBe(1);
  });
});
