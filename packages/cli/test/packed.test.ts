/**
 * The CLI as a team gets it: `npm pack` makes one tarball, installed into an
 * empty folder outside the workspace, and `npx sfbench` run there against a
 * target (the conformance suite's in-memory one): help, manifest check, loc,
 * verify --url; the commands that need the repository say so with exit 3.
 * Login, submit with an image archive and --wait, and status run against the
 * real portal and worker in apps/worker/test/packed-image-submit.test.ts.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { installPackedCli, type TeamNpx } from "./team.ts";

const run = promisify(execFile);

let home: string;
let team: string;
let target: MemoryTarget;
let npx: TeamNpx;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "sfbench-team-"));
  team = join(home, "my-system");
  mkdirSync(join(team, "src"), { recursive: true });
  mkdirSync(join(team, "gateway"), { recursive: true });
  npx = await installPackedCli(home, team);

  const manifest = JSON.parse(readFileSync(new URL("../../targets/node-postgres/target.json", import.meta.url), "utf8")) as Record<string, unknown>;
  Object.assign(manifest, {
    name: "my-system",
    system: "My System",
    version: "1.0.0",
    image: "localhost/my-system:1.0.0",
    loc: { app: ["src/**/*.ts"], gateway: ["gateway/**/*.ts"] },
  });
  delete manifest.local;
  delete manifest.build;
  writeFileSync(join(team, "target.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(team, "src", "cart.ts"), "export function add(a: number, b: number) {\n  // a comment is not code\n  return a + b;\n}\n");
  writeFileSync(join(team, "gateway", "http.ts"), "export const port = 8080;\n");

  target = await startMemoryTarget();
});

afterAll(async () => {
  await target?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("the packed CLI, installed outside the workspace", () => {
  it("holds only the bin, the bundle and its package.json, and depends on nothing of the workspace (cloc and undici run from their own packages)", async () => {
    const installed = JSON.parse(readFileSync(join(team, "node_modules", "sfbench", "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      private?: boolean;
    };
    expect(installed.private).toBeUndefined();
    expect(Object.keys(installed.dependencies).sort()).toEqual(["cloc", "undici"]);
    const { stdout } = await run("ls", [join(team, "node_modules", "sfbench")]);
    expect(stdout.split("\n").filter(Boolean).sort()).toEqual(["bin", "dist", "package.json"]);
  });

  it("answers --help, and a command's --help", async () => {
    const top = await npx(["--help"]);
    expect(top.code, top.stderr).toBe(0);
    expect(top.stdout).toMatch(/^ {2}sfbench submit\s/m);
    const submit = await npx(["submit", "--help"]);
    expect(submit.code).toBe(0);
    expect(submit.stdout).toMatch(/--image-archive FILE/);
  });

  it("checks the manifest and counts its lines of code with cloc", async () => {
    const check = await npx(["manifest", "check", "target.json"]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/^target\.json: valid \(my-system 1\.0\.0, sha256:[0-9a-f]{64}\)$/m);
    const loc = await npx(["loc", "--json"]);
    expect(loc.code, loc.stderr).toBe(0);
    expect(JSON.parse(loc.stdout)).toEqual({ typescript: { app: 3, gateway: 1 } });
  });

  it("verifies a running target by URL", async () => {
    const r = await npx(["verify", "--url", target.url, "--only", "health"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\d+ passed, 0 failed/);
  });

  // each row is one short CLI process that only reads its flags: the rows run side by side
  it.concurrent.each([
    ["services", "up"],
    ["target", "list"],
    ["run", "--target", "node-postgres"],
    ["verify", "--target", "node-postgres"],
    ["results", "import", "results"],
  ])("sfbench %s %s says it needs a clone of the repository, exit 3", async (...args: string[]) => {
    const r = await npx(args);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toMatch(
      /^error: sfbench \S+( \S+)? needs a clone of the sfbench repository \(it runs the bundled services and targets\): run it there, after `npm run bootstrap`$/,
    );
  });
});
