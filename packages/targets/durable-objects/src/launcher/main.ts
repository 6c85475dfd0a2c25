/**
 * The target's start command (target.json local.command): workerd through
 * Miniflare on 127.0.0.1:$PORT until SIGTERM/SIGINT, then a clean dispose.
 * Exits 1 when workerd dies on its own, so the runner sees the target fail.
 */
import { join } from "node:path";
import { readEnv, useTempDir } from "./env.ts";
import { clearDir, startTarget } from "./target.ts";

async function main(): Promise<void> {
  const env = readEnv();
  // Miniflare's scratch files (workerd's config, sockets) live beside the data, not in /tmp:
  // a launcher killed with SIGKILL leaves nothing behind that the next start does not clear
  const scratch = join(env.SFBENCH_DATA_DIR, ".scratch");
  clearDir(scratch);
  useTempDir(scratch);

  const target = await startTarget({ host: env.HOST, port: env.PORT, trace: env.SFBENCH_TRACE === "1", dataDir: env.SFBENCH_DATA_DIR });
  const stop = async (why: string, code: number) => {
    process.stderr.write(`durable-objects: ${why}, stopping\n`);
    await target.dispose().catch((e: Error) => process.stderr.write(`dispose failed: ${e.message}\n`));
    process.exit(code);
  };
  // Miniflare installs its own SIGINT/SIGTERM handlers that kill workerd and exit at once; the launcher owns the signals
  process.removeAllListeners("SIGTERM");
  process.removeAllListeners("SIGINT");
  process.on("SIGTERM", () => void stop("SIGTERM", 0));
  process.on("SIGINT", () => void stop("SIGINT", 0));
  process.stderr.write(
    `durable-objects: listening on ${target.url.href} (workerd pid ${target.runtimePid}, open-files limit ${target.openFilesLimit ?? "unknown"}, storage in ${env.SFBENCH_DATA_DIR})\n`,
  );
  void target.lost.then((why) => stop(why, 1));
}

main().catch((e: Error) => {
  process.stderr.write(`durable-objects: could not start: ${e.message}\n`);
  process.exit(1);
});
