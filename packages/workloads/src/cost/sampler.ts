/**
 * Samples the CPU time and memory of process trees while a phase runs.
 *
 * CPU is the sum over processes of (last - first seen utime+stime): a process
 * that starts during the phase counts from zero, one that exits keeps what was
 * last seen of it (so sample often enough: the default is every 250 ms).
 */
import { descendants, processTable, type ProcStat } from "./proc.ts";

export interface TreeUsage {
  cpuSeconds: number;
  peakRssBytes: number;
  /** processes seen in the tree during the phase */
  processes: number;
}

export interface SamplerResult {
  wallSeconds: number;
  groups: Record<string, TreeUsage>;
}

interface Track {
  first: number;
  last: number;
}

export class ProcessSampler {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;
  private readonly tracks = new Map<string, Map<string, Track>>();
  private readonly peaks = new Map<string, number>();

  /** groups: a name (e.g. "target", "services", "generator") -> root pids */
  constructor(
    private readonly groups: Record<string, () => number[]>,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.started = performance.now();
    for (const g of Object.keys(this.groups)) {
      this.tracks.set(g, new Map());
      this.peaks.set(g, 0);
    }
    this.sample(true);
    this.timer = setInterval(() => this.sample(false), this.intervalMs);
    this.timer.unref();
  }

  private sample(initial: boolean): void {
    const table = processTable();
    for (const [group, roots] of Object.entries(this.groups)) {
      const procs: ProcStat[] = descendants(roots(), table);
      const tracks = this.tracks.get(group)!;
      let rss = 0;
      for (const p of procs) {
        const key = `${p.pid}:${p.start}`;
        const t = tracks.get(key);
        if (t) t.last = p.cpuSeconds;
        else tracks.set(key, { first: initial ? p.cpuSeconds : 0, last: p.cpuSeconds });
        rss += p.rssBytes;
      }
      this.peaks.set(group, Math.max(this.peaks.get(group)!, rss));
    }
  }

  stop(): SamplerResult {
    if (this.timer) clearInterval(this.timer);
    this.sample(false);
    const groups: Record<string, TreeUsage> = {};
    for (const [group, tracks] of this.tracks) {
      let cpu = 0;
      for (const t of tracks.values()) cpu += t.last - t.first;
      groups[group] = { cpuSeconds: cpu, peakRssBytes: this.peaks.get(group)!, processes: tracks.size };
    }
    return { wallSeconds: (performance.now() - this.started) / 1000, groups };
  }
}
