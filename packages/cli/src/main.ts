/**
 * The sfbench command line. Errors end with a one-line message and an exit
 * code (see EXIT and the README's table); SFBENCH_DEBUG=1 shows stacks.
 */
import { MissingPrerequisiteError } from "@sfbench/services";
import { TargetError } from "@sfbench/provider-local";
import { ApiError, isAuthError } from "./api.ts";
import { EXIT } from "./exit.ts";
import { HelpShown, UsageError } from "./args.ts";
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
import { image } from "./commands/image.ts";
import { verify } from "./commands/verify.ts";
import { mainHelp } from "./usage.ts";


const COMMANDS: Record<string, (argv: string[]) => Promise<number>> = { services, target, image, verify, run, manifest, results, loc, login, submit, status };

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
    if (err instanceof MissingPrerequisiteError || err instanceof TargetError) return EXIT.environment;
    return EXIT.failed;
  }
}
