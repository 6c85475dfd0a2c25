/**
 * The sfbench command line. Errors end with a one-line message and an exit
 * code (see EXIT and the README's table); SFBENCH_DEBUG=1 shows stacks.
 */
import { ApiError, isAuthError } from "./api.ts";
import { returnBorrowed } from "./borrowed.ts";
import { endCommandSignal } from "./interrupt.ts";
import { EXIT } from "./exit.ts";
import { HelpShown, UsageError } from "./args.ts";
import { COMMANDS, isEnvironmentError, RepositoryOnlyError } from "./commands-table.ts";
import { ManifestInvalid } from "./manifest-file.ts";
import { mainHelp } from "./usage.ts";

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(mainHelp());
    return command ? 0 : 2;
  }
  const run = COMMANDS[command];
  try {
    if (!run) throw new UsageError(`sfbench: unknown command "${command}"; allowed: ${Object.keys(COMMANDS).join(", ")} (see sfbench help)`);
    return await run(rest);
  } catch (e) {
    return await failure(e);
  } finally {
    endCommandSignal();
    await returnBorrowed().catch((e: Error) => process.stderr.write(`warning: could not stop a service this command started: ${e.message}\n`));
  }
}

/** A command's error as one line on stderr, and its exit code. */
async function failure(e: unknown): Promise<number> {
  if (e instanceof HelpShown) return EXIT.ok;
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
  if (err instanceof RepositoryOnlyError || (await isEnvironmentError(err))) return EXIT.environment;
  return EXIT.failed;
}
