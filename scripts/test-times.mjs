#!/usr/bin/env node
/**
 * Where `npm test`'s time went: the steps (bootstrap, checks, the tests'
 * wall time), each lane's package test tasks (from turbo's run summary of
 * that lane) and the slowest test files (from the lines vitest prints for
 * each file), so a CI log says what to make faster before the suite reaches
 * CI's limit, and which lane holds the others up.
 *
 *   node scripts/test-times.mjs [--step name=seconds ...] [--lane name=.turbo/runs/<id>.json ...] [--log <test output> ...]
 */
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
/** Every value of a repeated option, split at its first "=" when `pairs`. */
const opts = (name) => args.flatMap((a, i) => (a === name && i + 1 < args.length ? [args[i + 1]] : []));
const pair = (value) => {
  const at = value.indexOf("=");
  return at < 0 ? [value, ""] : [value.slice(0, at), value.slice(at + 1)];
};
const steps = opts("--step")
  .map(pair)
  .filter(([name, secs]) => name && secs !== "" && Number.isFinite(Number(secs)))
  .map(([name, secs]) => [name, Number(secs)]);

// rounded to the second before it is split, so that 179.6 s reads 3m00s, not 2m60s
const fmt = (s) => (s >= 59.95 ? `${Math.floor(Math.round(s) / 60)}m${String(Math.round(s) % 60).padStart(2, "0")}s` : `${s.toFixed(1)}s`);
const out = [];
let total = 0;
for (const [name, secs] of steps) {
  out.push(`  ${fmt(secs).padStart(8)}  ${name}`);
  total += secs;
}

for (const [lane, summaryFile] of opts("--lane").map(pair)) {
  try {
    const summary = JSON.parse(readFileSync(summaryFile, "utf8"));
    const tasks = (summary.tasks ?? [])
      .filter((t) => Number.isFinite(t.execution?.startTime) && Number.isFinite(t.execution?.endTime))
      .map((t) => ({ id: t.taskId, secs: (t.execution.endTime - t.execution.startTime) / 1000, exit: t.execution.exitCode }))
      .sort((a, b) => b.secs - a.secs);
    // a lane's time is its tasks' (one at a time) and what they waited for (the Prisma client's generation)
    const tests = tasks.filter((t) => t.id.endsWith("#test"));
    const laneSecs = tasks.reduce((s, t) => s + t.secs, 0);
    out.push(`  ${fmt(laneSecs).padStart(14)}  lane "${lane}", by package:`);
    for (const t of tests) out.push(`  ${fmt(t.secs).padStart(20)}  ${t.id.replace(/#test$/, "")}${t.exit ? `  (exit ${t.exit})` : ""}`);
  } catch (e) {
    out.push(`  (lane "${lane}": no turbo run summary: ${e.message})`);
  }
}

// "@sfbench/engine:test:  ✓ test/knee.test.ts (12 tests) 3021ms" (vitest's line for a finished file)
const line = /^(@?[\w/.-]+):test:\s+[✓❯×↓]\s+(\S+\.test\.tsx?)\s+\(\d+ tests?[^)]*\)\s+(\d+(?:\.\d+)?)(ms|s)\b/;
const files = [];
for (const logFile of opts("--log")) {
  for (const raw of readFileSync(logFile, "utf8").split("\n")) {
    const m = line.exec(raw.replace(/\x1b\[[0-9;]*m/g, ""));
    if (m) files.push({ file: `${m[1]} ${m[2]}`, secs: Number(m[3]) / (m[4] === "ms" ? 1000 : 1) });
  }
}
files.sort((a, b) => b.secs - a.secs);
if (files.length) {
  out.push("  the slowest test files:");
  for (const f of files.slice(0, 20)) out.push(`  ${fmt(f.secs).padStart(14)}  ${f.file}`);
}

console.log(`sfbench test: where the time went (${fmt(total)} in all)`);
console.log(out.join("\n"));
