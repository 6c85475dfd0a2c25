/**
 * Where a target runs, as the experiment engine sees it. A provider (local
 * processes, containers with podman, Kubernetes through Pulumi, the rendered
 * cluster program under podman kube play) starts a target and hands over a
 * RunningTarget: its endpoint, the hands to kill, restart and add nodes
 * (TargetControl), where its cost and logs come from and, where k6 does not
 * run on this machine's host, the load generator that runs it beside the
 * target. The engine's phases take these and never ask which provider they
 * came from.
 */
import type { LiveFigures, Workload } from "./contract.ts";
import type { Environment } from "./result.ts";
import type { TargetControl } from "./resilience.ts";

/** a k6 script of @sfbench/workloads by its file's stem */
export type K6Script = "seed" | "populate" | "micro" | Workload;

/** One k6 run as a phase asks for it. */
export interface K6Invocation {
  /** the k6 binary on this machine (a pod generator archives the script with it) */
  k6: string;
  /** a workload script, or any script file by absolute path (e.g. the harness's calibration script) */
  script: K6Script | { file: string };
  /** environment for the script (-e NAME=value); a generator beside the target may put its own BASE_URL in place of the host's */
  env: Record<string, string>;
  outDir: string;
  /** file stem of the raw output: <outDir>/<name>.csv.gz and <name>.console.log */
  name: string;
  /** CPU list for the generator, when generator and target get separate cores */
  cpus?: string;
  /** the generator's process on this machine (its CPU is sampled), when it has one */
  onStart?: (pid: number) => void;
  onTick?: (live: LiveFigures) => void;
  /** kills k6 at once when aborted (the run was interrupted); the outcome then has exit code null */
  signal?: AbortSignal;
}

export interface K6Outcome {
  exitCode: number | null;
  /** the raw samples, gzipped CSV */
  csv: string;
  /** the console (the audit records), JSON lines */
  console: string;
  /** the last lines k6 wrote to stderr, for error messages */
  stderrTail: string;
  wallS: number;
}

/** Runs one k6 invocation to its end: k6 on this machine's host, or k6 where the target runs (a pod). */
export type LoadGenerator = (inv: K6Invocation) => Promise<K6Outcome>;

/** What a provider knows of the place better than the engine's own look at this machine. */
export type PlaceEnvironment = Partial<Pick<Environment, "kind" | "machineType" | "cpuModel" | "cores" | "memoryBytes" | "os">>;

/** A started target, as a provider hands it to the engine. */
export interface RunningTarget {
  /** where the engine (verify, seed, audit) reaches it from this machine */
  url: string;
  /** root pids on this machine of what the cost counts, when the cost is the process trees */
  pids(): number[];
  /** how it died, once it has; undefined while it runs */
  exited(): string | undefined;
  /** what "durable" meant: its storage's settings as its servers report them */
  storage?: Environment["storage"];
  /** the file its span lines go to when tracing (absent: the provider cannot trace) */
  log?: string;
  /** every file its span lines go to now, when it runs as several processes that each write their own (a restarted node appends to its own) */
  logFiles?: () => string[];
  /** "PostgreSQL 16.4", "image x (2 CPU, 4 GiB)" and the like, for the result's system version */
  versions: string[];
  /**
   * the manifest's services this target was given for itself (its own Kafka
   * broker): part of it and of its cost, not shared servers. Its PostgreSQL
   * is always its own.
   */
  ownServices?: string[];
  /** kill, restart, add nodes, and the cost from the provider's own accounting */
  control?: TargetControl;
  /** absent: k6 runs on this machine's host */
  generator?: LoadGenerator;
  /** the place, where it is not this machine as the engine sees it */
  environment?: PlaceEnvironment;
}

/** One place to run one target: start it (fresh: its own data), and stop it (idempotent, also while it is still starting). */
export interface TargetProvider {
  /** "bundled node-postgres as processes", "image x in podman", ... for progress and errors */
  describe: string;
  /**
   * `cores`: the run's share of this machine (the cores the load generator
   * leaves), when the target runs here: a provider that starts processes
   * starts them on it and tells the target how many (SFBENCH_CPUS and the
   * runtime's own knobs), so it sizes itself for what it gets
   */
  start(opts: { trace: boolean; onProgress?: (message: string) => void; cores?: { list: string; count: number } }): Promise<RunningTarget>;
  stop(): Promise<void>;
  /**
   * Stops the target cleanly, as stop does, and copies its data into `dir`
   * (a new folder): every data directory of the target and of its own
   * servers (PostgreSQL, Kafka, Redis), as that stop left them. Resolves to
   * the bytes copied. (One call: a provider whose stop discards the run's
   * data, as an image's does, keeps it only when asked before.)
   * Absent: this provider cannot keep a target's data between starts, and
   * every trial seeds and populates its own.
   */
  snapshot?(dir: string): Promise<number>;
  /** Puts a snapshot's copy in place of the target's data: the next start starts on it instead of on empty data. */
  restore?(dir: string): Promise<void>;
}

/**
 * A target someone else runs, given by its URL: starting it starts nothing
 * and stopping it stops nothing. sfbench knows none of its processes (no
 * cost, no kills), so the experiments that act on them say they cannot.
 */
export function urlTargetProvider(url: string): TargetProvider {
  return {
    describe: `the target at ${url}, run by someone else`,
    start: async () => ({ url: url.replace(/\/+$/, ""), pids: () => [], exited: () => undefined, versions: [] }),
    stop: async () => {},
  };
}
