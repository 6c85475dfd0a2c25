/** The harness's printed report: the machine, one section per benchmark, a table of figures and goals. */
import type { FidelityResult } from "../fidelity.ts";
import type { HeadroomResult } from "../headroom.ts";
import type { Machine } from "./machine.ts";
import { repeatabilityReport, type RepeatabilityResult } from "../repeatability.ts";

export interface FigureRow {
  benchmark: string;
  figure: string;
  value: string;
  goal: string;
  verdict: "PASS" | "MISS" | "ERROR" | "-";
}

const n0 = (x: number) => Math.round(x).toLocaleString("en-US");
const ms = (x: number) => `${x.toFixed(2)} ms`;
const signed = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)} ms`;
const pct = (x: number, d = 1) => `${(x * 100).toFixed(d)}%`;
const verdict = (ok: boolean) => (ok ? "PASS" : "MISS");

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join("  ")
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

export function machineSection(m: Machine, command: string): string {
  return [
    `sfbench harness: ${command}`,
    `machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, Linux ${m.kernel}, Node ${m.node}`,
    `tools: ${m.k6 ?? "k6 ?"}; ${m.wrk ?? "wrk (not used)"}`,
    `load average when started: ${m.loadAverage1m}`,
  ].join("\n");
}

export function headroomSection(h: HeadroomResult): string {
  const lines = [`== headroom: k6's highest clean open-model rate vs wrk on one loopback server`, `server: ${h.server}; ${h.split}`];
  lines.push(
    `wrk (${h.wrk.command}): ${h.wrk.runs.map((r) => `${n0(r.requestsPerS)}/s`).join(", ")} -> max ${n0(h.wrk.maxRate)}/s; wrk CPU ${h.wrk.cpuPerRequestUs.toFixed(1)} us/request`,
  );
  for (const s of Object.values(h.searches)) {
    lines.push(
      `k6 ${s.variant} (${s.what}): highest clean ${s.highestClean === null ? "none" : `${n0(s.highestClean)}/s`}; k6 CPU ${s.cpuPerRequestUs.toFixed(1)} us/request`,
      `  probes: ${s.probes.map((p) => `${p.rate}${p.clean ? " ok" : ` x(drop ${pct(p.droppedShare)})`}`).join(", ")}`,
    );
  }
  lines.push(
    `ratio k6/wrk: default ${h.ratio.default.toFixed(3)}, tuned ${h.ratio.tuned.toFixed(3)} (goal: tuned >= ${h.goal}) ${verdict(h.pass)}`,
    `other processes meanwhile: ${h.otherCores.toFixed(2)} cores on average` +
      (h.otherOnGenerator === null ? "" : ` (${h.otherOnGenerator.toFixed(2)} of them on the generator's core)`),
  );
  return lines.join("\n");
}

export function fidelitySection(f: FidelityResult): string {
  const row = (name: string, s: { p50: number; p99: number; count?: number; mean?: number; max?: number }) => [
    name,
    ms(s.p50),
    ms(s.p99),
    s.mean === undefined ? "" : ms(s.mean),
    s.count === undefined ? "" : String(s.count),
  ];
  const { run, floor } = f;
  const cores = (c: typeof run.cores) =>
    `k6 ${c.generator.toFixed(2)} cores, server ${c.server.toFixed(2)}, other processes ${c.other.toFixed(2)}` +
    (c.otherOnGenerator === null ? "" : ` (${c.otherOnGenerator.toFixed(2)} on k6's core, ${(c.otherOnServer ?? 0).toFixed(2)} on the server's)`);
  return [
    `== fidelity: measured vs injected latency`,
    `target: ${f.distribution}; k6 at ${run.rate}/s for ${run.durationS} s; ${f.split}`,
    table([
      ["", "p50", "p99", "mean", "count"],
      row("injected (true quantiles)", f.injected),
      row("server: drawn delays", run.serverTarget),
      row("server: delays kept", run.serverActual),
      row("server: writing the answer", run.serverWrite),
      row("k6 raw CSV -> aggregateK6", run.measured),
      row(`floor: k6 vs zero delay (${floor.durationS} s)`, floor.measured),
    ]),
    `measured - injected: p50 ${signed(f.diff.p50)} (goal within ${f.goal.p50Ms} ms) ${verdict(f.pass.p50)}, p99 ${signed(f.diff.p99)} (goal within ${f.goal.p99Ms} ms) ${verdict(f.pass.p99)}`,
    `of which the server kept too long: p50 ${signed(run.serverActual.p50 - f.injected.p50)}, p99 ${signed(run.serverActual.p99 - f.injected.p99)}; ` +
      `the rest is writing the answer, loopback, waking k6 and k6 itself (floor p50 ${ms(floor.measured.p50)})`,
    `errors ${run.errors}, dropped iterations ${run.droppedIterations}; ${cores(run.cores)}`,
  ].join("\n");
}

export function repeatabilitySection(r: RepeatabilityResult): string {
  return repeatabilityReport(r).trimEnd();
}

export function figureRows(res: {
  headroom?: HeadroomResult | Error;
  fidelity?: FidelityResult | Error;
  repeatability?: RepeatabilityResult | Error;
}): FigureRow[] {
  const rows: FigureRow[] = [];
  const err = (benchmark: string, e: Error) =>
    rows.push({ benchmark, figure: "error", value: e.message.split("\n")[0]!.slice(0, 100), goal: "-", verdict: "ERROR" });
  const h = res.headroom;
  if (h instanceof Error) err("headroom", h);
  else if (h) {
    rows.push(
      {
        benchmark: "headroom",
        figure: "k6/wrk, tuned script",
        value: `${h.ratio.tuned.toFixed(3)} (${n0(h.searches.tuned.highestClean ?? 0)} / ${n0(h.wrk.maxRate)} per s)`,
        goal: `>= ${h.goal}`,
        verdict: verdict(h.pass),
      },
      {
        benchmark: "headroom",
        figure: "k6/wrk, default script",
        value: `${h.ratio.default.toFixed(3)} (${n0(h.searches.default.highestClean ?? 0)} / ${n0(h.wrk.maxRate)} per s)`,
        goal: "(reference)",
        verdict: "-",
      },
    );
  }
  const f = res.fidelity;
  if (f instanceof Error) err("fidelity", f);
  else if (f) {
    rows.push(
      {
        benchmark: "fidelity",
        figure: "p50 measured - injected",
        value: `${signed(f.diff.p50)} (${ms(f.run.measured.p50)} vs ${ms(f.injected.p50)})`,
        goal: `within ${f.goal.p50Ms} ms`,
        verdict: verdict(f.pass.p50),
      },
      {
        benchmark: "fidelity",
        figure: "p99 measured - injected",
        value: `${signed(f.diff.p99)} (${ms(f.run.measured.p99)} vs ${ms(f.injected.p99)})`,
        goal: `within ${f.goal.p99Ms} ms`,
        verdict: verdict(f.pass.p99),
      },
    );
  }
  const r = res.repeatability;
  if (r instanceof Error) err("repeatability", r);
  else if (r) {
    for (const x of r.systems) {
      rows.push(
        {
          benchmark: "repeatability",
          figure: `${x.target} ${x.cell}: medians of two campaigns`,
          value: `${x.medians.map((m) => (m === null ? "none" : m.toFixed(0))).join(" vs ")} per s (${x.difference === null ? "-" : pct(x.difference)})`,
          goal: `within ${pct(r.goals.median, 0)}`,
          verdict: verdict(x.medianPass),
        },
        {
          benchmark: "repeatability",
          figure: `${x.target} ${x.cell}: intervals of the medians`,
          value: x.halfWidths.map((h) => (h === null ? "none" : `+-${pct(h)}`)).join(", "),
          goal: `+-${pct(r.goals.interval, 0)} or less`,
          verdict: verdict(x.intervalPass),
        },
      );
    }
  }
  return rows;
}

export const figuresTable = (rows: FigureRow[]) =>
  table([["benchmark", "figure", "value", "goal", "verdict"], ...rows.map((r) => [r.benchmark, r.figure, r.value, r.goal, r.verdict])]);
