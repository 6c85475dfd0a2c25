/** sfbench services up|down|status [name...]: the local services (PostgreSQL, Redis, Kafka, k6). */
import { down, redactUrl, SERVICE_NAMES, status, up, type ServiceName, type ServiceStatus } from "@sfbench/services";
import { oneOf, parseFlags, UsageError } from "../args.ts";
import { note } from "../progress.ts";
import { isHelpFlag } from "../usage.ts";
import { showGroupHelp } from "../group-help.ts";

function names(command: string, positionals: string[]): ServiceName[] | undefined {
  if (!positionals.length) return undefined;
  return positionals.map((p) => oneOf(command, "a service", p, SERVICE_NAMES)!);
}

function table(rows: ServiceStatus[]): string {
  const state = (s: ServiceStatus) => (s.name === "k6" ? (s.running ? "installed" : "missing") : s.running ? "up" : "down");
  // passwords stay in their files (.sfbench/<service>/password): a status line is pasted into issues and CI logs
  return rows.map((s) => `${s.name.padEnd(9)} ${state(s).padEnd(10)} ${redactUrl(s.url ?? "").padEnd(36)} ${s.detail}`).join("\n") + "\n";
}

export async function services(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (isHelpFlag(sub)) return showGroupHelp("services");
  const command = `sfbench services ${sub ?? ""}`.trim();
  if (sub !== "up" && sub !== "down" && sub !== "status") {
    throw new UsageError(`sfbench services: unknown subcommand "${sub ?? ""}"; allowed: up, down, status`);
  }
  const { positionals } = parseFlags(command, rest, {}, { max: SERVICE_NAMES.length, names: ["[service...]"] });
  const selected = names(command, positionals);
  if (sub === "up") {
    const started = performance.now();
    const result = await up(selected, { onProgress: (s, m) => note(`${s}: ${m}`) });
    process.stdout.write(table(result));
    note(`ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result.every((s) => s.running) ? 0 : 1;
  }
  if (sub === "down") {
    await down(selected);
    process.stdout.write(table(await status(selected)));
    return 0;
  }
  process.stdout.write(table(await status(selected)));
  return 0;
}
