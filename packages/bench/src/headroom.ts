/**
 * Headroom: how close k6 gets to the generator limit of the machine. On one
 * trivial loopback server (servers/ok-server.ts, its own core), in one run:
 * wrk's maximum rate (closed loop, `wrk -t1 -c64`), and k6's highest clean
 * open-model rate, found by constant-arrival-rate probes (coarse doubling,
 * then bisection), for the default and for the tuned script (k6/). A probe
 * (after a 1 s warm-up at its rate, k6/lib/probe.ts) is clean when fewer
 * than 1% of its iterations were dropped and at least 95% of the offered
 * requests were answered 200. The figure is k6/wrk.
 */
import { fileURLToPath } from "node:url";
import type { CpuSplit } from "@sfbench/engine";
import { getJson, startServer, type StartedServer } from "./lib/children.ts";
import { probeK6, type K6Counts } from "./lib/k6-probe.ts";
import { CpuWatch, describeSplit } from "./lib/machine.ts";
import { ensureWrk, runWrk, type WrkResult } from "./lib/wrk.ts";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export const HEADROOM_GOAL = 0.2;
export const CLEAN = { maxDroppedShare: 0.01, minCompletedShare: 0.95 };

export type Variant = "default" | "tuned";

interface VariantSpec {
  script: string;
  flags: string[];
  env: Record<string, string>;
  what: string;
}

/**
 * How each script is run. The tuned run also turns off k6's REST API
 * (--address=) and Go's garbage collector (GOGC=off): with one core, every
 * collection stalls the whole generator for tens of ms (p99 50-70 ms at
 * 6750-8000/s with GOGC=400, 1-2% of the iterations dropped; with GOGC=off
 * p99 4-14 ms, nothing dropped). A probe allocates about 10 kB per request,
 * 1.3 GB at 12000/s for 11 s; GOMEMLIMIT makes Go collect anyway before it
 * reaches 3 GiB. Thresholds stay on: they define the probe's submetrics.
 */
export const VARIANTS: Record<Variant, VariantSpec> = {
  default: { script: here("../k6/headroom-default.ts"), flags: [], env: {}, what: "k6/headroom-default.ts, k6 defaults" },
  tuned: {
    script: here("../k6/headroom-tuned.ts"),
    flags: ["--address="],
    env: { GOGC: "off", GOMEMLIMIT: "3GiB" },
    what: "k6/headroom-tuned.ts, --address=, GOGC=off GOMEMLIMIT=3GiB",
  },
};

export interface HeadroomProfile {
  stepS: number;
  wrkRuns: number;
  wrkS: number;
  /** the first coarse probe is wrk's rate / this */
  startDivisor: number;
  fineSteps: number;
  /** probes of a rate before it counts as unclean, while other processes disturb them (see DISTURBED) */
  attempts: number;
}

export const HEADROOM_PROFILES: Record<"quick" | "full", HeadroomProfile> = {
  quick: { stepS: 2, wrkRuns: 1, wrkS: 3, startDivisor: 16, fineSteps: 2, attempts: 2 },
  full: { stepS: 10, wrkRuns: 3, wrkS: 10, startDivisor: 32, fineSteps: 4, attempts: 3 },
};

export interface Probe extends K6Counts {
  rate: number;
  phase: "coarse" | "fine";
  offered: number;
  /** requests the server answered during the whole k6 run (warm-up included) */
  served: number;
  droppedShare: number;
  /** answered 200 / offered */
  completedShare: number;
  clean: boolean;
  /** cores used on average during the probe */
  generatorCores: number;
  serverCores: number;
  otherCores: number;
  /** other processes on the generator's / the server's cores (null without a split) */
  otherOnGenerator: number | null;
  otherOnServer: number | null;
  generatorCpuS: number;
}

export interface Search {
  variant: Variant;
  what: string;
  highestClean: number | null;
  probes: Probe[];
  /** k6 CPU per request over all probes (start-up and warm-ups included), us */
  cpuPerRequestUs: number;
}

export interface WrkRun extends WrkResult {
  generatorCores: number;
  serverCores: number;
  otherCores: number;
  otherOnGenerator: number | null;
  otherOnServer: number | null;
}

export interface HeadroomResult {
  split: string;
  server: string;
  wrk: { command: string; runs: WrkRun[]; maxRate: number; cpuPerRequestUs: number };
  searches: Record<Variant, Search>;
  ratio: Record<Variant, number>;
  goal: number;
  pass: boolean;
  /** other processes' CPU, cores, averaged over every probe and wrk run: on the whole machine, on the generator's core(s) */
  otherCores: number;
  otherOnGenerator: number | null;
}

/**
 * An unclean probe is repeated (up to the profile's attempts) when other
 * processes took more than this share of the generator's or the server's
 * core meanwhile: on a shared machine a burst of someone else's work stalls
 * the server or k6 and drops iterations, which says nothing about k6. An
 * unclean probe without such company counts at once.
 */
export const DISTURBED = 0.2;

export const disturbed = (p: Pick<Probe, "otherOnGenerator" | "otherOnServer" | "otherCores">): boolean =>
  p.otherOnGenerator === null ? p.otherCores > DISTURBED : p.otherOnGenerator > DISTURBED || (p.otherOnServer ?? 0) > DISTURBED;

const round = (x: number, to: number) => Math.max(to, Math.round(x / to) * to);

async function probe(
  k6: string,
  v: VariantSpec,
  server: StartedServer,
  rate: number,
  stepS: number,
  phase: Probe["phase"],
  split: CpuSplit | undefined,
): Promise<Probe> {
  const [cpus, serverCpus] = [split?.generator, split?.target];
  let gen: number | undefined;
  const before = (await getJson<{ served: number }>(`${server.url}/__stats`)).served;
  const watch = new CpuWatch({ generator: () => (gen ? [gen] : []), server: () => [server.pid] }, { generator: cpus, server: serverCpus }).start();
  const counts = await probeK6({
    k6,
    script: v.script,
    url: `${server.url}/`,
    rate,
    durationS: stepS,
    flags: v.flags,
    env: v.env,
    cpus,
    onStart: (pid) => (gen = pid),
  });
  const cpu = watch.stop();
  const served = (await getJson<{ served: number }>(`${server.url}/__stats`)).served - before;
  const offered = rate * stepS;
  const droppedShare = counts.dropped / Math.max(1, counts.iterations + counts.dropped);
  const completedShare = (counts.requests - counts.failed) / offered;
  return {
    ...counts,
    rate,
    phase,
    offered,
    served,
    droppedShare,
    completedShare,
    clean: droppedShare < CLEAN.maxDroppedShare && completedShare >= CLEAN.minCompletedShare,
    generatorCores: cpu.cores.generator!,
    serverCores: cpu.cores.server!,
    otherCores: cpu.otherCores,
    otherOnGenerator: cpu.otherOn.generator ?? null,
    otherOnServer: cpu.otherOn.server ?? null,
    generatorCpuS: cpu.cores.generator! * cpu.wallS,
  };
}

/** "k6 0.95 cores, server 0.40; others 0.30 on the generator's core, 0.10 on the server's" */
export const describeCpu = (
  c: { generatorCores: number; serverCores: number; otherCores: number; otherOnGenerator: number | null; otherOnServer: number | null },
  generator = "k6",
) =>
  `${generator} ${c.generatorCores.toFixed(2)} cores, server ${c.serverCores.toFixed(2)}; other processes ` +
  (c.otherOnGenerator === null
    ? `${c.otherCores.toFixed(2)} cores`
    : `${c.otherOnGenerator.toFixed(2)} on the generator's core, ${(c.otherOnServer ?? 0).toFixed(2)} on the server's`);

export const describeProbe = (p: Probe) =>
  `${p.rate}/s ${p.clean ? "clean" : "NOT clean"}: dropped ${(p.droppedShare * 100).toFixed(2)}%, completed ${(p.completedShare * 100).toFixed(1)}%` +
  `${p.p99Ms === null ? "" : `, p99 ${p.p99Ms.toFixed(1)} ms`} (${describeCpu(p)})`;

/** Coarse doubling from `start`, then bisection between the last clean and the first unclean rate. */
async function search(
  variant: Variant,
  k6: string,
  server: StartedServer,
  profile: HeadroomProfile,
  start: number,
  ceiling: number,
  split: CpuSplit | undefined,
  log: (m: string) => void,
): Promise<Search> {
  const v = VARIANTS[variant];
  const probes: Probe[] = [];
  const attempt = async (rate: number, phase: Probe["phase"]): Promise<boolean> => {
    for (let i = 0; i < profile.attempts; i++) {
      const p = await probe(k6, v, server, rate, profile.stepS, phase, split);
      probes.push(p);
      const again = !p.clean && disturbed(p) && i + 1 < profile.attempts;
      log(`headroom: k6 ${variant} ${phase} ${describeProbe(p)}${again ? "; disturbed by other processes: once more" : ""}`);
      if (p.clean) return true;
      if (!again) break;
    }
    return false;
  };
  let good: number | null = null;
  let bad: number | null = null;
  for (let rate = start; ; rate = round(rate * 2, 50)) {
    if (await attempt(rate, "coarse")) good = rate;
    else {
      bad = rate;
      break;
    }
    if (rate >= ceiling) break;
  }
  if (bad !== null) {
    let lo = good ?? 0;
    for (let i = 0; i < profile.fineSteps; i++) {
      const mid = round((lo + bad) / 2, 50);
      if (mid <= lo || mid >= bad) break;
      if (await attempt(mid, "fine")) lo = good = mid;
      else bad = mid;
    }
  }
  // per request the server answered, warm-ups included: k6's CPU covers its whole run
  const served = probes.reduce((a, p) => a + p.served, 0);
  const cpuS = probes.reduce((a, p) => a + p.generatorCpuS, 0);
  return { variant, what: v.what, highestClean: good, probes, cpuPerRequestUs: served ? (cpuS / served) * 1e6 : 0 };
}

async function wrkRun(wrk: string, server: StartedServer, profile: HeadroomProfile, split: CpuSplit | undefined): Promise<WrkRun> {
  let gen: number | undefined;
  const watch = new CpuWatch(
    { generator: () => (gen ? [gen] : []), server: () => [server.pid] },
    { generator: split?.generator, server: split?.target },
  ).start();
  const r = await runWrk(wrk, `${server.url}/`, {
    threads: 1,
    connections: 64,
    durationS: profile.wrkS,
    cpus: split?.generator,
    onStart: (pid) => (gen = pid),
  });
  const cpu = watch.stop();
  return {
    ...r,
    generatorCores: cpu.cores.generator!,
    serverCores: cpu.cores.server!,
    otherCores: cpu.otherCores,
    otherOnGenerator: cpu.otherOn.generator ?? null,
    otherOnServer: cpu.otherOn.server ?? null,
  };
}

export async function headroom(opts: { k6: string; quick: boolean; split: CpuSplit | undefined; log: (m: string) => void }): Promise<HeadroomResult> {
  const { k6, split, log } = opts;
  const profile = HEADROOM_PROFILES[opts.quick ? "quick" : "full"];
  const wrk = await ensureWrk(log);
  const server = await startServer(here("./servers/ok-server.ts"), [], split?.target);
  try {
    const runs: WrkRun[] = [];
    const runWrkOnce = async () => {
      const r = await wrkRun(wrk, server, profile, split);
      runs.push(r);
      log(`headroom: wrk ${Math.round(r.requestsPerS)} req/s (${describeCpu(r, "wrk")})`);
    };
    // wrk before and (on the full profile) after the k6 probes: the machine may change meanwhile
    const before = Math.max(1, profile.wrkRuns - 1);
    for (let i = 0; i < before; i++) await runWrkOnce();
    const firstMax = Math.max(...runs.map((r) => r.requestsPerS));
    const start = round(firstMax / profile.startDivisor, 250);
    const searches = {} as Record<Variant, Search>;
    for (const variant of ["default", "tuned"] as const) searches[variant] = await search(variant, k6, server, profile, start, firstMax, split, log);
    for (let i = before; i < profile.wrkRuns; i++) await runWrkOnce();
    if (server.exited()) throw new Error(`the headroom server exited with ${server.exited()}`);
    const maxRate = Math.max(...runs.map((r) => r.requestsPerS));
    const ratio = {
      default: (searches.default.highestClean ?? 0) / maxRate,
      tuned: (searches.tuned.highestClean ?? 0) / maxRate,
    };
    const all = [...runs, ...Object.values(searches).flatMap((s) => s.probes)];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const wrkCpuS = runs.reduce((a, r) => a + r.generatorCores * r.durationS, 0);
    return {
      split: describeSplit(split),
      server: 'node:http answering 200 "ok" (bench/servers/ok-server.ts)',
      wrk: {
        command: `wrk -t1 -c64 -d${profile.wrkS}s`,
        runs,
        maxRate,
        cpuPerRequestUs: (wrkCpuS / runs.reduce((a, r) => a + r.requests, 0)) * 1e6,
      },
      searches,
      ratio,
      goal: HEADROOM_GOAL,
      pass: ratio.tuned >= HEADROOM_GOAL,
      otherCores: mean(all.map((x) => x.otherCores)),
      otherOnGenerator: split ? mean(all.map((x) => x.otherOnGenerator ?? 0)) : null,
    };
  } finally {
    await server.stop();
  }
}
