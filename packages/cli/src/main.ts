/**
 * The sfbench command line. Errors end with a one-line message and an exit
 * code (see EXIT and the README's table); SFBENCH_DEBUG=1 shows stacks.
 */
import { MissingPrerequisiteError } from "@sfbench/services";
import { TargetError } from "@sfbench/provider-local";
import { ApiError, isAuthError } from "./api.ts";
import { EXIT } from "./exit.ts";
import { UsageError } from "./args.ts";
import { ManifestInvalid } from "./manifest-file.ts";
import { loc } from "./commands/loc.ts";
import { login } from "./commands/login.ts";
import { status } from "./commands/status.ts";
import { submit } from "./commands/submit.ts";
import { manifest } from "./commands/manifest.ts";
import { results } from "./commands/results.ts";
import { services } from "./commands/services.ts";
import { target } from "./commands/target.ts";
import { run } from "./commands/run.ts";
import { verify } from "./commands/verify.ts";

const HELP = `sfbench: benchmark stateful serverless function systems

usage:
  sfbench services up|down|status [postgres|redis|kafka|k6 ...]
  sfbench target list
  sfbench target up <name> [--port N] [--trace]
  sfbench target down <name>
  sfbench verify (--url URL | --target NAME) [--json] [--only PREFIX]
  sfbench run (--target NAME | --url URL) [--workload checkout|analytics|contention|all]
              [--distribution uniform|zipf|both] [--profile quick|standard|thesis] [--seed N] [--json] [--no-trace]
  sfbench manifest check <target.json>
  sfbench loc [--manifest target.json] [--json]
  sfbench login [--server URL] [--token TOKEN]
  sfbench submit --manifest target.json [--server URL] [--wait] [--profile P] [--environment local|kubernetes]
  sfbench status <run id | run URL> [--server URL] [--json]
  sfbench results <system> [--server URL] [--json]
  sfbench results import <file|dir>
`;

const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = { services, target, verify, run, manifest, results, loc, login, submit, status };

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(HELP);
    return command ? 0 : 2;
  }
  const run = COMMANDS[command];
  try {
    if (!run) throw new UsageError(`sfbench: unknown command "${command}"; allowed: ${Object.keys(COMMANDS).join(", ")} (see sfbench help)`);
    return await run(rest);
  } catch (e) {
    const err = e as Error;
    if (process.env.SFBENCH_DEBUG === "1") process.stderr.write(`${err.stack}\n`);
    if (err instanceof ManifestInvalid) {
      process.stderr.write(`${err.message}\n`);
      return EXIT.failed;
    }
    process.stderr.write(`error: ${err.message}\n`);
    if (err instanceof UsageError) return EXIT.usage;
    if (isAuthError(err)) return EXIT.auth;
    if (err instanceof ApiError) return err.status === 0 ? EXIT.environment : EXIT.failed;
    if (err instanceof MissingPrerequisiteError || err instanceof TargetError) return EXIT.environment;
    return EXIT.failed;
  }
}
