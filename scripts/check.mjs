#!/usr/bin/env node
/**
 * The checks `npm test` runs before the tests: every package's types and
 * lint, with the same compiler options and rules as each package's own
 * `typecheck` and `lint` scripts, in as few processes as give the same
 * verdict. Run package by package (turbo), each tsc checked the shared
 * packages' sources again for every package that imports them, and each
 * eslint loaded typescript-eslint again: minutes of a 2-core CI for the same
 * answers.
 *
 * - One tsc program holds every package whose tsconfig.json adds nothing to
 *   tsconfig.base.json. A bundled target's own source (packages/targets/<name>/src)
 *   is an application of its own, with its framework's types and the global
 *   declarations it adds (two targets declare the same request field with
 *   their own types), so such a target, and every package whose tsconfig
 *   sets its own compiler options (the portal's JSX, the workers' runtime),
 *   runs its own `typecheck` script, two at a time.
 * - One eslint over every package's lint folders (one flat config at the root).
 *
 *   node scripts/check.mjs [--types-only | --lint-only] [--plan]
 *
 * --plan prints what would run (JSON: each job's label and what it covers) and runs nothing.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));
const args = process.argv.slice(2);
const types = !args.includes("--lint-only");
const lint = !args.includes("--types-only");
const planOnly = args.includes("--plan");

/** The workspace folders of the root package.json (a trailing /* is one level of folders). */
function workspaces() {
  return readJson(join(root, "package.json")).workspaces.flatMap((w) => {
    if (!w.endsWith("/*")) return [w];
    const parent = w.slice(0, -2);
    return readdirSync(join(root, parent), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, parent, d.name, "package.json")))
      .map((d) => `${parent}/${d.name}`);
  });
}

const packages = workspaces().map((dir) => {
  const pkg = readJson(join(root, dir, "package.json"));
  const tsconfigFile = join(root, dir, "tsconfig.json");
  const tsconfig = existsSync(tsconfigFile) ? readJson(tsconfigFile) : undefined;
  return { dir, name: pkg.name, scripts: pkg.scripts ?? {}, tsconfig };
});

function run(label, cmd, cmdArgs, cwd = root) {
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn(cmd, cmdArgs, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", (e) => done({ label, ok: false, out: `${out}${e.message}\n`, secs: 0 }));
    child.on("close", (code) => done({ label, ok: code === 0, out, secs: (performance.now() - started) / 1000 }));
  });
}

/** Runs the jobs `width` at a time; prints each one's verdict as it ends. */
async function pool(jobs, width) {
  const results = [];
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const r = await jobs[next++]();
      process.stdout.write(`check: ${r.ok ? "ok    " : "FAILED"} ${r.label} (${r.secs.toFixed(1)} s)\n${r.ok ? "" : r.out}`);
      results.push(r);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

const tsc = join(root, "node_modules", ".bin", "tsc");
/** { label, covers: package names, cmd, args, cwd } */
const jobs = [];
if (types) {
  const plain = (p) => p.tsconfig && !p.tsconfig.compilerOptions && !(p.dir.startsWith("packages/targets/") && (p.tsconfig.include ?? []).includes("src"));
  const together = packages.filter(plain);
  const joint = join(root, ".sfbench", "check", "tsconfig.json");
  const include = [
    ...together.flatMap((p) => (p.tsconfig.include ?? []).map((i) => join(root, p.dir, i))),
    join(root, "scripts", "*.ts"),
    join(root, "scripts", "lib"),
  ];
  if (!planOnly) {
    mkdirSync(dirname(joint), { recursive: true });
    writeFileSync(joint, JSON.stringify({ extends: join(root, "tsconfig.base.json"), include }, null, 2));
  }
  jobs.push({ label: `types of ${together.length} packages and scripts/ in one program`, covers: together.map((p) => p.name), cmd: tsc, args: ["-p", joint] });
  for (const p of packages.filter((p) => p.tsconfig && !plain(p) && p.scripts.typecheck))
    jobs.push({ label: `types of ${p.name}`, covers: [p.name], cmd: "npm", args: ["run", "--silent", "typecheck"], cwd: join(root, p.dir) });
}
if (lint) {
  // each package's `lint` script names its folders: "eslint src test k6"
  const linted = packages.filter((p) => /^eslint\s+\S/.test(p.scripts.lint ?? ""));
  const folders = linted.flatMap((p) =>
    p.scripts.lint
      .replace(/^eslint\s+/, "")
      .split(/\s+/)
      .map((f) => join(p.dir, f)),
  );
  jobs.unshift({
    label: `lint of ${folders.length} folders`,
    covers: linted.map((p) => p.name),
    cmd: join(root, "node_modules", ".bin", "eslint"),
    args: folders,
  });
}

if (planOnly) {
  process.stdout.write(JSON.stringify(jobs, null, 2) + "\n");
  process.exit(0);
}
const started = performance.now();
const results = await pool(
  jobs.map((j) => () => run(j.label, j.cmd, j.args, j.cwd)),
  2,
);
const failed = results.filter((r) => !r.ok);
process.stdout.write(`check: ${results.length - failed.length} of ${results.length} passed in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
process.exit(failed.length ? 1 : 0);
