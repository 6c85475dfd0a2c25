/**
 * The Restate server's configuration file (TOML, keys as in
 * `restate-server --dump-config`): everything bound to 127.0.0.1 on the
 * chosen ports, telemetry off, data under the target's data directory.
 */
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Ports } from "./ports.ts";

/**
 * Partitions of a new cluster: two per core, 2 to 24 (Restate's default is 24,
 * sized for big machines; on 2 cores 4 partitions cost about a fifth less CPU
 * per invocation in our measurement). Fixed once the cluster exists.
 */
export function partitionsFor(cores: number): number {
  return Math.min(24, Math.max(2, 2 * cores));
}

export function restateConfig(dataDir: string, ports: Ports, partitions = partitionsFor(availableParallelism())): string {
  const q = (s: string) => JSON.stringify(s); // a TOML basic string is a JSON string for these values
  return [
    `cluster-name = "sfbench"`,
    // the node's name must not change between restarts on the same data
    `node-name = "sfbench-restate"`,
    `base-dir = ${q(join(dataDir, "restate"))}`,
    `bind-ip = "127.0.0.1"`,
    `bind-address = "127.0.0.1:${ports.fabric}"`,
    `advertised-address = "http://127.0.0.1:${ports.fabric}/"`,
    `listen-mode = "tcp"`,
    `disable-telemetry = true`,
    `default-num-partitions = ${partitions}`,
    // octocrab: the server looks for newer releases on GitHub at start, an error line when offline
    `log-filter = "warn,octocrab=off"`,
    `log-format = "compact"`,
    `log-disable-ansi-codes = true`,
    // a shared benchmark machine: cap RocksDB's memory below the 2 GiB default
    `rocksdb-total-memory-size = "512.0 MiB"`,
    ``,
    `[ingress]`,
    `bind-address = "127.0.0.1:${ports.ingress}"`,
    ``,
    `[admin]`,
    `bind-address = "127.0.0.1:${ports.admin}"`,
    `disable-web-ui = true`,
    ``,
  ].join("\n");
}

/** `cores`: what the run gives the target (SFBENCH_CPUS), else what this process may use, never the whole machine when it is pinned. */
export function writeRestateConfig(dataDir: string, ports: Ports, cores = availableParallelism()): string {
  const file = join(dataDir, "restate.toml");
  writeFileSync(file, restateConfig(dataDir, ports, partitionsFor(cores)));
  return file;
}
