#!/usr/bin/env node
/**
 * Where `npm test`'s time went: the steps before the tests, each package's
 * test task (from turbo's run summary) and the slowest test files (from the
 * lines vitest prints for each file), so a CI log says what to make faster
 * before the suite reaches CI's limit.
 *
 *   node scripts/test-times.mjs --summary .turbo/runs/<id>.json --log <test output> [--step name=seconds ...]
 */
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const steps = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] !== "--step") continue;
  const [name, secs] = (args[i + 1] ?? "").split("=");
  if (name && Number.isFinite(Number(secs))) steps.push([name, Number(secs)]);
}

const fmt = (s) => (s >= 60 ? `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, "0")}s` : `${s.toFixed(1)}s`);
const out = [];
let total = 0;
for (const [name, secs] of steps) {
  out.push(`  ${fmt(secs).padStart(8)}  ${name}`);
  total += secs;
}

const summaryFile = opt("--summary");
if (summaryFile) {
  try {
    const summary = JSON.parse(readFileSync(summaryFile, "utf8"));
    const tasks = (summary.tasks ?? [])
      .filter((t) => Number.isFinite(t.execution?.startTime) && Number.isFinite(t.execution?.endTime))
      .map((t) => ({ id: t.taskId, secs: (t.execution.endTime - t.execution.startTime) / 1000, exit: t.execution.exitCode }))
      .sort((a, b) => b.secs - a.secs);
    // the test tasks' dependencies (typecheck) were mostly done, and cached, by the checks step
    const tests = tasks.filter((t) => t.id.endsWith("#test"));
    const before = tasks.filter((t) => !t.id.endsWith("#test")).reduce((s, t) => s + t.secs, 0);
    if (before >= 1) out.push(`  ${fmt(before).padStart(8)}  typecheck the tests waited for`);
    const testSecs = tests.reduce((s, t) => s + t.secs, 0);
    out.push(`  ${fmt(testSecs).padStart(8)}  tests, by package:`);
    total += testSecs + before;
    for (const t of tests) out.push(`  ${fmt(t.secs).padStart(14)}  ${t.id.replace(/#test$/, "")}${t.exit ? `  (exit ${t.exit})` : ""}`);
  } catch (e) {
    out.push(`  (no turbo run summary: ${e.message})`);
  }
}

const logFile = opt("--log");
if (logFile) {
  // "@sfbench/engine:test:  ✓ test/knee.test.ts (12 tests) 3021ms" (vitest's line for a finished file)
  const line = /^(@?[\w/.-]+):test:\s+[✓❯×↓]\s+(\S+\.test\.tsx?)\s+\(\d+ tests?[^)]*\)\s+(\d+(?:\.\d+)?)(ms|s)\b/;
  const files = [];
  for (const raw of readFileSync(logFile, "utf8").split("\n")) {
    const m = line.exec(raw.replace(/\x1b\[[0-9;]*m/g, ""));
    if (m) files.push({ file: `${m[1]} ${m[2]}`, secs: Number(m[3]) / (m[4] === "ms" ? 1000 : 1) });
  }
  files.sort((a, b) => b.secs - a.secs);
  if (files.length) {
    out.push("  the slowest test files:");
    for (const f of files.slice(0, 20)) out.push(`  ${fmt(f.secs).padStart(14)}  ${f.file}`);
  }
}

console.log(`sfbench test: where the time went (${fmt(total)} in all)`);
console.log(out.join("\n"));
