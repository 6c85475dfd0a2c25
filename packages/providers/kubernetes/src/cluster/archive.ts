/**
 * The load of one cluster phase as a `k6 archive`: the same workload scripts
 * as local runs (packages/workloads/k6), bundled with their modules and with
 * the phase's environment baked in (-e), so the runners need nothing but the
 * archive. Built by the worker's own k6 (the version the result records).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { K6Invocation } from "@sfbench/core";
import { K6_DIR } from "@sfbench/workloads";

/** k6 archive of a workload script (or any script file) with env; returns the tar as base64 (what the TestRun's ConfigMap holds). */
export async function k6Archive(k6: string, script: K6Invocation["script"], env: Record<string, string>): Promise<string> {
  const file = typeof script === "string" ? `${script}.ts` : script.file;
  const dir = mkdtempSync(join(tmpdir(), "sfbench-archive-"));
  const out = join(dir, "workload.tar");
  try {
    const args = ["archive", "--quiet", "--include-system-env-vars=false", ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]), "-O", out, file];
    await new Promise<void>((resolve, reject) => {
      execFile(k6, args, { cwd: K6_DIR, encoding: "utf8" }, (err, _stdout, stderr) => {
        if (err) reject(new Error(`k6 archive ${file} failed: ${(stderr || err.message).trim().split("\n").slice(-3).join(" ")}`));
        else resolve();
      });
    });
    const tar = readFileSync(out);
    // a ConfigMap holds at most 1 MiB
    if (tar.length > 900 * 1024) throw new Error(`k6 archive of ${file} is ${tar.length} bytes: too large for a ConfigMap (1 MiB)`);
    return tar.toString("base64");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
