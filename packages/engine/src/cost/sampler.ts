/**
 * Samples the CPU time and memory of process trees while a phase runs.
 *
 * CPU: a process's total is its own utime+stime plus cutime+cstime, the time
 * of the children it has reaped. A tree's CPU over the phase is then, per
 * process, (last total - total when the phase started; a process born during
 * the phase counts from zero), where a process that exited and was reaped by
 * a parent in the tree counts only minus its start value once that parent
 * has been read after the child was seen gone, because its whole time then
 * sits in the parent's cutime. A parent read earlier, even in the same
 * sample, may predate the reap: a child that vanishes between its parent's
 * read and its own would otherwise count in neither (its parent is read
 * again at once). Short-lived processes (a
 * PostgreSQL autovacuum worker, a backend for one connection) are counted
 * even when no sample saw them. A process reaped outside the tree (the root
 * itself, when the target dies) keeps what was last seen of it.
 *
 * Memory: the peak over samples of the tree's summed resident set.
 *
 * By process: the same CPU split by what each process is (processLabel: its
 * command, and the script or main class a runtime runs), read once when a
 * process is first seen. A short-lived process's time counts under the one
 * that reaped it (a PostgreSQL backend's under postgres), as the total does.
 *
 * A group may come with a CPU counter of its own (a container's cgroup
 * accounting, core's TargetCost): its CPU is then the counter's growth from
 * the first sample to the last, and its trees give the memory and the
 * process count only. The kernel's count of a cgroup misses nothing that
 * forked and exited between samples and holds nothing outside the container.
 *
 * Cheap enough to run beside the measurement: only the first sample reads
 * every process's stat; later ones list /proc, read the stat of pids not seen
 * before (to learn their parent) and of the trees' members only. (Reading all
 * ~200 stats four times a second took ~3% of the generator's core and
 * blocked its event loop for ~8 ms a time.)
 */
import { childrenOf, livePids, processLabel, readStat, treePids, type ProcStat } from "./proc.ts";

/** Where a sampler reads processes: /proc, or a scripted one in unit tests. */
export interface ProcSource {
  livePids(): number[];
  readStat(pid: number): ProcStat | undefined;
  /** processLabel */
  label(pid: number, comm: string): string | undefined;
}

export interface TreeUsage {
  cpuSeconds: number;
  peakRssBytes: number;
  /** processes seen in the tree during the phase */
  processes: number;
  /** where cpuSeconds came from: the group's own counter, or its process trees */
  cpuFrom: "counter" | "process-tree";
  /** cpuSeconds by process label, none below 0; only when counted from the trees */
  byProcess?: Record<string, number>;
}

export interface SamplerResult {
  wallSeconds: number;
  groups: Record<string, TreeUsage>;
  /** how many samples were taken */
  samples: number;
  /** per group counted from its trees: its CPU seconds so far at each sample (epoch ms), for a window of the phase (cpuBetween) */
  series: Record<string, CpuPoint[]>;
}

export interface CpuPoint {
  /** epoch ms */
  t: number;
  cpuSeconds: number;
}

/** The CPU seconds a series grew between two epoch-ms times, read between its samples (clamped to its ends); NaN without samples. */
export function cpuBetween(series: readonly CpuPoint[], fromMs: number, toMs: number): number {
  return cpuAt(series, toMs) - cpuAt(series, fromMs);
}

function cpuAt(series: readonly CpuPoint[], t: number): number {
  if (series.length === 0) return NaN;
  if (t <= series[0]!.t) return series[0]!.cpuSeconds;
  for (let i = 1; i < series.length; i++) {
    const a = series[i - 1]!;
    const b = series[i]!;
    if (t <= b.t) return b.t === a.t ? b.cpuSeconds : a.cpuSeconds + ((b.cpuSeconds - a.cpuSeconds) * (t - a.t)) / (b.t - a.t);
  }
  return series[series.length - 1]!.cpuSeconds;
}

interface Track {
  pid: number;
  ppid: number;
  /** own + reaped children's CPU seconds when first seen (0 for a process born during the phase) */
  first: number;
  last: number;
  /** the sample that last saw it */
  lastSample: number;
  /** the sampler's read count at its last read, and when it was seen gone: the order of a child's end and its parent's read */
  lastRead: number;
  goneRead?: number;
  /** what the process is (processLabel), read when first seen */
  label: string;
}

const total = (s: ProcStat) => s.cpuSeconds + s.childCpuSeconds;

/**
 * A tree's CPU from its first sample to sample `now`: each process's growth, where one that is gone
 * and was reaped by a parent read since it was seen gone counts only minus its start value, because
 * its whole time sits in that parent's cutime from then on.
 */
function treeCpu(tracks: Map<string, Track>, now: number): number {
  let cpu = 0;
  for (const [, seconds] of contributions(tracks, now)) cpu += seconds;
  return cpu;
}

/** treeCpu's terms, one per process. */
function contributions(tracks: Map<string, Track>, now: number): Array<[Track, number]> {
  const byPid = new Map<number, Track[]>();
  for (const t of tracks.values()) byPid.set(t.pid, [...(byPid.get(t.pid) ?? []), t]);
  return [...tracks.values()].map((t) => {
    if (t.lastSample === now) return [t, t.last - t.first];
    const gone = t.goneRead;
    const absorbed = gone !== undefined && (byPid.get(t.ppid) ?? []).some((p) => p.lastRead > gone);
    return [t, absorbed ? -t.first : t.last - t.first];
  });
}

/** A tree's CPU by process label (a label whose terms sum below 0 counts as 0). */
export function cpuByLabel(terms: Iterable<[{ label: string }, number]>): Record<string, number> {
  const sums = new Map<string, number>();
  for (const [t, seconds] of terms) sums.set(t.label, (sums.get(t.label) ?? 0) + seconds);
  return Object.fromEntries([...sums].map(([label, seconds]) => [label, Math.max(0, seconds)]));
}

export class ProcessSampler {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  private sampleNo = -1;
  /** every pid on the machine and its parent, as last read */
  private readonly known = new Map<number, { ppid: number }>();
  /** per group: `pid:starttime` -> track */
  private readonly tracks = new Map<string, Map<string, Track>>();
  private readonly peaks = new Map<string, number>();
  /** per group with a counter: its reading at the first sample and at the latest */
  private readonly readings = new Map<string, { first: number; last: number }>();
  private readonly series = new Map<string, CpuPoint[]>();
  /** stats read so far: orders a child's vanishing against its parent's reads */
  private reads = 0;

  /**
   * groups: a name (e.g. "target", "services", "generator") -> root pids;
   * counters: a group's CPU seconds so far, when something other than its
   * trees accounts for it (never decreasing, so it is read at the first and
   * the last sample only: a reading may list /proc, as the trees' first one does)
   */
  constructor(
    private readonly groups: Record<string, () => number[]>,
    private readonly intervalMs = 250,
    private readonly counters: Partial<Record<string, () => number>> = {},
    private readonly proc: ProcSource = { livePids, readStat, label: processLabel },
  ) {}

  private read(pid: number): ProcStat | undefined {
    this.reads++;
    return this.proc.readStat(pid);
  }

  start(): void {
    this.started = performance.now();
    for (const g of Object.keys(this.groups)) {
      this.tracks.set(g, new Map());
      this.peaks.set(g, 0);
      this.series.set(g, []);
    }
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  /** Lists /proc and reads the stat of new pids only: their parents are what the trees need. */
  private refreshTable(): void {
    const live = new Set(this.proc.livePids());
    for (const pid of this.known.keys()) if (!live.has(pid)) this.known.delete(pid);
    for (const pid of live) {
      if (this.known.has(pid)) continue;
      const s = this.read(pid);
      if (s) this.known.set(pid, { ppid: s.ppid });
    }
  }

  private sample(last = false): void {
    this.sampleNo++;
    const initial = this.sampleNo === 0;
    this.refreshTable();
    const children = childrenOf([...this.known].map(([pid, k]) => ({ pid, ppid: k.ppid })));
    for (const [group, roots] of Object.entries(this.groups)) {
      const tracks = this.tracks.get(group)!;
      // a process that is not listed now was reaped before any of this sample's reads
      const listed = this.reads;
      const update = (pid: number, s: ProcStat) => {
        this.known.set(pid, { ppid: s.ppid });
        const key = `${pid}:${s.start}`;
        const t = tracks.get(key);
        if (t) Object.assign(t, { ppid: s.ppid, last: total(s), lastSample: this.sampleNo, lastRead: this.reads, goneRead: undefined });
        else
          tracks.set(key, {
            pid,
            ppid: s.ppid,
            first: initial ? total(s) : 0,
            last: total(s),
            lastSample: this.sampleNo,
            lastRead: this.reads,
            label: this.proc.label(pid, s.comm) ?? "?",
          });
      };
      let rss = 0;
      const vanished: number[] = [];
      for (const pid of treePids(roots(), (p) => this.known.has(p), children)) {
        const s = this.read(pid);
        if (!s) {
          vanished.push(pid);
          for (const t of tracks.values()) if (t.pid === pid && t.lastSample < this.sampleNo) t.goneRead = this.reads;
          continue;
        }
        update(pid, s);
        rss += s.rssBytes;
      }
      // a child that vanished after its parent was read: the parent's cutime holds it only from now
      for (const parent of new Set(vanished.map((pid) => this.known.get(pid)?.ppid))) {
        if (parent === undefined || ![...tracks.values()].some((t) => t.pid === parent && t.lastSample === this.sampleNo)) continue;
        const s = this.read(parent);
        if (s && tracks.get(`${parent}:${s.start}`)?.lastSample === this.sampleNo) update(parent, s);
      }
      for (const t of tracks.values()) if (t.lastSample < this.sampleNo && t.goneRead === undefined) t.goneRead = listed;
      this.peaks.set(group, Math.max(this.peaks.get(group)!, rss));
      this.series.get(group)!.push({ t: Date.now(), cpuSeconds: treeCpu(tracks, this.sampleNo) });
      const counter = this.counters[group];
      if (counter && (initial || last)) {
        const now = counter();
        const r = this.readings.get(group);
        if (r) r.last = now;
        else this.readings.set(group, { first: now, last: now });
      }
    }
  }

  stop(): SamplerResult {
    if (this.timer) clearInterval(this.timer);
    this.sample(true);
    const end = this.sampleNo;
    const groups: Record<string, TreeUsage> = {};
    for (const [group, tracks] of this.tracks) {
      const cpu = treeCpu(tracks, end);
      const counted = this.readings.get(group);
      groups[group] = {
        cpuSeconds: Math.max(0, counted ? counted.last - counted.first : cpu),
        peakRssBytes: this.peaks.get(group)!,
        processes: tracks.size,
        cpuFrom: counted ? "counter" : "process-tree",
        ...(counted ? {} : { byProcess: cpuByLabel(contributions(tracks, end)) }),
      };
    }
    const series = Object.fromEntries([...this.series].filter(([g]) => !this.readings.has(g)));
    return { wallSeconds: (performance.now() - this.started) / 1000, groups, samples: end + 1, series };
  }
}
