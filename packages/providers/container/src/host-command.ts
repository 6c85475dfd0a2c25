/**
 * The host's own tools a run's network and disk are made with (iptables,
 * ip6tables, truncate, mkfs.ext4, mount): run to completion, their stdout
 * returned; a failure names the command line and what the tool said, a
 * missing tool what it is needed for.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

export async function hostCommand(
  command: string,
  args: string[],
  opts: { timeoutMs: number; neededFor: string; fail: (message: string) => Error },
): Promise<string> {
  try {
    return (await exec(command, args, { timeout: opts.timeoutMs })).stdout;
  } catch (e) {
    const err = e as { stderr?: string; message: string; code?: string };
    if (err.code === "ENOENT") throw opts.fail(`${command} is not installed: ${opts.neededFor}`);
    throw opts.fail(`${command} ${args.join(" ")}: ${(err.stderr || err.message).trim()}`);
  }
}
