/**
 * A bundled target started for one benchmark under a private SFBENCH_HOME:
 * its state file, data and own PostgreSQL are the benchmark's alone, so a
 * target of the same name that someone else runs on the machine is neither
 * disturbed nor stopped. Kafka and k6 are the shared ones.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HarnessError, runCommand } from "./children.ts";

export const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const CLI = join(REPO, "packages/cli/bin/sfbench.mjs");

export interface Started {
  url: string;
  /** the target's process and its own PostgreSQL and Kafka: the cost and pinning roots */
  pids: number[];
  /** where its stdout (span lines) goes */
  log: string;
}

export class PrivateTarget {
  readonly home: string;

  constructor(readonly name: string) {
    this.home = mkdtempSync(join(tmpdir(), `sfbench-bench-${name}-`));
    // PostgreSQL runs as its own system user when sfbench runs as root: it must be able to enter the home
    chmodSync(this.home, 0o755);
  }

  private async cli(args: string[]): Promise<string> {
    const r = await runCommand(process.execPath, [CLI, ...args], { cwd: REPO, timeoutMs: 300_000, env: { ...process.env, SFBENCH_HOME: this.home } });
    if (r.code !== 0) throw new HarnessError(`sfbench ${args.join(" ")} exited ${r.code}: ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`);
    return r.stdout;
  }

  /** Starts it fresh (an empty database) on `port`, traced or not. */
  async start(port: number, trace: boolean): Promise<Started> {
    await this.cli(["target", "up", this.name, "--port", String(port), ...(trace ? ["--trace"] : [])]);
    const state = JSON.parse(readFileSync(join(this.home, "targets", `${this.name}.json`), "utf8")) as {
      pid: number;
      url: string;
      log: string;
      postgres?: { pid: number };
      kafka?: { pid: number };
    };
    return { url: state.url, log: state.log, pids: [state.pid, ...(state.postgres ? [state.postgres.pid] : []), ...(state.kafka ? [state.kafka.pid] : [])] };
  }

  /** Stops it; never throws. */
  stop(): Promise<void> {
    return this.cli(["target", "down", this.name]).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Stops it and removes the private home. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.home, { recursive: true, force: true });
  }
}
