/** The environment fingerprint of a local run (SPEC 6). */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import type { CostSource, Environment, PlaceEnvironment } from "@sfbench/core";
import { runCpus } from "../cost/affinity.ts";

const run = (cmd: string, args: string[], cwd?: string) => {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", cwd, stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
};

function osName(): string {
  try {
    const line = readFileSync("/etc/os-release", "utf8")
      .split("\n")
      .find((l) => l.startsWith("PRETTY_NAME="));
    if (line) return line.slice("PRETTY_NAME=".length).replace(/^"|"$/g, "");
  } catch {
    // not Linux
  }
  return `${process.platform} ${process.arch}`;
}

export function k6Version(k6: string): string {
  return /k6 (v[\d.]+)/.exec(run(k6, ["version"]) ?? "")?.[1] ?? "unknown";
}

export function localEnvironment(opts: {
  k6: string;
  repoRoot: string;
  systemVersion?: string;
  cpuSplit?: { generator: string; target: string };
  /** the target's storage settings as its servers report them (e.g. a dedicated PostgreSQL's fsync) */
  storage?: Environment["storage"];
  /** processes the target ran as (a multi-node target started with a node count) */
  nodes?: number;
  /** where the cost's CPU came from (absent: the run counted no target processes) */
  costSource?: CostSource;
  /** the provider's word on the place (a cluster's kind and machine type), over what this machine says of itself */
  place?: PlaceEnvironment;
}): Environment {
  const sha = run("git", ["rev-parse", "HEAD"], opts.repoRoot);
  return {
    kind: "local",
    nodes: opts.nodes ?? 1,
    cpuModel: cpus()[0]?.model.trim() || "unknown",
    // the cores the run could use (this process pins itself during a run: its own affinity would say one)
    cores: runCpus().length,
    memoryBytes: totalmem(),
    os: osName(),
    node: process.version,
    k6Version: k6Version(opts.k6),
    ...(opts.systemVersion ? { systemVersion: opts.systemVersion } : {}),
    ...(sha && /^[0-9a-f]{40}$/.test(sha) ? { gitSha: sha } : {}),
    ...(opts.cpuSplit ? { cpuSplit: opts.cpuSplit } : {}),
    ...(opts.storage ? { storage: opts.storage } : {}),
    ...(opts.costSource ? { cost: { source: opts.costSource } } : {}),
    ...opts.place,
  };
}
