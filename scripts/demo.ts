/**
 * npm run demo: the main job on a fresh machine. Starts the services, runs
 * the conformance suite against the bundled node-postgres target, then a
 * quick benchmark of every cell (checkout, contention, analytics x uniform,
 * zipf), prints the summary and writes the result document under results/.
 * Services keep running afterwards (`npm run services:down` stops them).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = fileURLToPath(new URL("../packages/cli/bin/sfbench.mjs", import.meta.url));

function step(title: string, args: string[]): number {
  process.stdout.write(`\n== ${title}\n$ sfbench ${args.join(" ")}\n`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, stdio: "inherit" });
  return r.status ?? 1;
}

let failed = false;
try {
  if (step("Local services (PostgreSQL, k6)", ["services", "up", "postgres", "k6"]) !== 0) throw new Error("services did not start");
  if (step("Conformance suite (SPEC 2) against node-postgres", ["verify", "--target", "node-postgres"]) !== 0) throw new Error("node-postgres is not conformant");
  if (step("Quick benchmark of every cell (verify, ramp, stable load, audit)", ["run", "--target", "node-postgres", "--profile", "quick"]) !== 0) failed = true;
} catch (e) {
  process.stderr.write(`demo: ${(e as Error).message}\n`);
  failed = true;
}
process.stdout.write(failed ? "\ndemo: FAILED (see above)\n" : "\ndemo: done. Next: docs/targets.md to add your own system.\n");
process.exitCode = failed ? 1 : 0;
