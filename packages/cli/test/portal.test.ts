/**
 * The CLI against a portal: tokens, run URLs, `--wait` and exit codes. The
 * portal here is a small stand-in (fake-portal.ts), so that every outcome
 * (interrupted, failed, unreachable) is cheap to reach;
 * apps/worker/test/e2e-submit.test.ts runs the same commands against the real
 * portal and worker.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { progressLine } from "../src/follow.ts";
import type { RunProgress } from "../src/commands/status.ts";
import { startPortal } from "./fake-portal.ts";
import { sfbench } from "./helpers.ts";

const MANIFEST = new URL("../../targets/node-postgres/target.json", import.meta.url).pathname;

let portal: Awaited<ReturnType<typeof startPortal>>;
// no stored credentials from the developer's machine
const env = (extra: Record<string, string> = {}) => ({
  SFBENCH_CONFIG_DIR: mkdtempSync(join(tmpdir(), "sfbench-config-")),
  SFBENCH_TOKEN: undefined,
  SFBENCH_SERVER: undefined,
  ...extra,
});
const submit = (token: string | undefined, ...flags: string[]) =>
  sfbench(["submit", "--manifest", MANIFEST, "--server", portal.url, ...flags], env(token ? { SFBENCH_TOKEN: token } : {}));

beforeAll(async () => {
  portal = await startPortal();
});
afterAll(() => portal?.close());

describe("tokens", () => {
  it("no token: exit 4, says there is none and how to get one", async () => {
    const r = await submit(undefined);
    expect(r.code).toBe(4);
    expect(r.stderr.trim().split("\n").at(-1)).toBe(
      `error: no API token for ${portal.url}: create one on ${portal.url}/tokens and store it with \`sfbench login --server ${portal.url}\` (or set SFBENCH_TOKEN)`,
    );
  });

  it("a bad token: exit 4, and a different message that names where the token came from", async () => {
    const r = await submit("sfb_revoked");
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(`refused by ${portal.url} \\(401\\):\\n${portal.url} does not accept the API token from SFBENCH_TOKEN \\(unknown, revoked or mistyped\\)`),
    );
    expect(r.stderr).not.toMatch(/no API token/);
    expect(portal.runs.size).toBe(0);
  });
});

describe("submit uploads", () => {
  it("sends the source files the loc globs select, and the submission names that upload", async () => {
    const r = await submit("sfb_completes");
    expect(r.code, r.stderr).toBe(0);
    const last = portal.submitted.at(-1)!;
    expect(portal.uploads.get(last.sourceArchive as string)).toMatchObject({ kind: "source-archive" });
    expect(portal.uploads.get(last.sourceArchive as string)!.size).toBeGreaterThan(0);
    expect(last.imageArchive).toBeUndefined();
    expect(r.stderr).toMatch(/source-archive: uploaded .*source\.tar\.gz \(\d+ bytes, sha256:/);
  });

  it("sends the image archive first, so that a refused image leaves nothing else sent", async () => {
    const r = await submit("sfb_completes", "--image-archive", MANIFEST);
    expect(r.code, r.stderr).toBe(0);
    expect([...portal.uploads.values()].slice(-2).map((u) => u.kind)).toEqual(["image-archive", "source-archive"]);
  });

  it("a missing --image-archive file: exit 2 naming the flag", async () => {
    const r = await submit("sfb_completes", "--image-archive", "/nonexistent/image.tar");
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "error: sfbench submit: --image-archive /nonexistent/image.tar: no such file (write one with podman save -o image.tar <image>)",
    );
  });
});

describe("submit --wait", () => {
  it("names the cell on every progress line and ends with the summary table", async () => {
    const r = await submit("sfb_completes", "--wait", "--workload", "checkout", "--distribution", "zipf", "--profile", "standard");
    expect(r.code, r.stderr).toBe(0);
    const [url, ...table] = r.stdout.trimEnd().split("\n");
    expect(url).toMatch(new RegExp(`^${portal.url}/runs/[0-9a-f-]{36}$`));
    expect(table[0]).toBe("node-postgres 0.1.0, profile standard, completed");
    expect(table[1]).toMatch(/^cell\s+counts\s+sustainable\/s\s+knee \+-\s+peak\/s/);
    expect(table[2]).toMatch(/^checkout\/zipf\s+checkouts\s+480\s+6%\s+455\.5\s+384\s+383\.2\s+2\.25\s+9\.50\s+0\.00%\s+1\.75\s+0\s+yes\s+yes/);
    const progress = r.stderr.split("\n").filter((l) => l.startsWith("["));
    expect(progress).toEqual([
      "[checkout/zipf] queued",
      "[checkout/zipf] provision (1%)",
      "[checkout/zipf] verify (5%)",
      "[checkout/zipf] load (40%)",
      "[checkout/zipf] completed",
    ]);
  });

  it("a failed run: exit 1, with the reason in the table's title, its log tail shown as text whose escapes cannot drive the terminal", async () => {
    const r = await submit("sfb_fails", "--wait", "--workload", "checkout", "--distribution", "uniform");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\[checkout\/uniform\] failed during load: the target exited with code 1/);
    expect(r.stdout).toMatch(/\nnode-postgres 0\.1\.0, profile standard, failed during load: the target exited with code 1; last log line: /);
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(out).toContain("last log line: \\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u{202e}evil");
    }
  });

  it("an interrupted run: exit 3 (not the target's fault)", async () => {
    const r = await submit("sfb_interrupted", "--wait");
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/\[all 6 cells\] interrupted during load \(not the target's fault; no numbers\)/);
  });
});

describe("status", () => {
  it("accepts the run URL that submit prints, and takes the portal from it", async () => {
    const submitted = await submit("sfb_completes");
    expect(submitted.code, submitted.stderr).toBe(0);
    const runUrl = submitted.stdout.trim();
    const r = await sfbench(["status", runUrl], env());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`run ${runUrl.split("/").pop()}: queued\n${runUrl}\n`);
    const again = await sfbench(["status", `${runUrl}/`, "--server", portal.url], env());
    expect(again.stdout).toMatch(/: running: provision \(1%\)\n/);
  });

  // each row is one short CLI process that only reads its flags: the rows run side by side
  it.concurrent.each([
    [["status", "not-a-run"], /<run> must be a run id \(a UUID\) or a run URL like http:\/\/127\.0\.0\.1:3000\/runs\/<id>, got "not-a-run"/],
    [["status", "http://127.0.0.1:3000/systems/node-postgres"], /<run> must be a run id \(a UUID\) or a run URL/],
    [
      ["status", `http://127.0.0.1:3000/runs/${randomUUID()}`, "--server", "http://127.0.0.1:4000"],
      /the run URL is on http:\/\/127\.0\.0\.1:3000 but --server is http:\/\/127\.0\.0\.1:4000; give one of them/,
    ],
    [["status"], /missing <run>: give a run id/],
  ])("sfbench %j exits 2 naming what is allowed", async (args, message) => {
    const r = await sfbench(args, env());
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(message);
  });

  it("a portal that is not there: exit 3 (the environment)", async () => {
    const r = await sfbench(["status", randomUUID(), "--server", "http://127.0.0.1:1"], env());
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: cannot reach http:\/\/127\.0\.0\.1:1/);
  });

  it("an unknown run: exit 1", async () => {
    const r = await sfbench(["status", randomUUID(), "--server", portal.url], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no run [0-9a-f-]{36}/);
  });
});

describe("progress lines", () => {
  const p = (stage: string | null, live?: RunProgress["live"], status = "running" as const): RunProgress => ({
    id: "r",
    status,
    stage,
    progress: 42,
    errorStage: null,
    errorMessage: null,
    live,
  });
  it("name the cell and phase of the run's last progress event, else the only cell, else all of them", () => {
    const ramp = { cell: "checkout/zipf", phase: "ramp", detail: "fine step 4 at 150/s", offeredRate: 150 } as const;
    expect(progressLine(p("load", ramp), ["checkout/uniform", "checkout/zipf"])).toBe("[checkout/zipf] ramp (42%): fine step 4 at 150/s · offered 150/s");
    expect(progressLine(p("seed", { cell: "-", phase: "seed", detail: "5000 products" }), ["checkout/uniform", "checkout/zipf"])).toBe(
      "[all 2 cells] seed (42%): 5000 products",
    );
    expect(progressLine(p("load"), ["analytics/uniform"])).toBe("[analytics/uniform] load (42%)");
    expect(progressLine(p("verify", ramp), ["checkout/uniform", "checkout/zipf"])).toBe("[all 2 cells] verify (42%)");
  });
});
