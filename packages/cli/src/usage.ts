/**
 * What each command is for and an example of it: the one place `--help`
 * reads besides the command's own flag table (parseFlags prints the flags
 * from the table the parser uses, so the two cannot disagree). Keys are the
 * command as parseFlags is called with it; GROUPS lists the commands that
 * take a subcommand.
 */
export interface CommandHelp {
  summary: string;
  example: string;
}

export const COMMAND_HELP: Record<string, CommandHelp> = {
  "sfbench services up": { summary: "start the local services (PostgreSQL, Redis, Kafka; k6 is installed)", example: "sfbench services up postgres redis" },
  "sfbench services down": { summary: "stop the local services", example: "sfbench services down kafka" },
  "sfbench services status": { summary: "which local services run, and where", example: "sfbench services status" },
  "sfbench target up": { summary: "start a bundled target on loopback", example: "sfbench target up node-postgres --port 8080" },
  "sfbench target down": { summary: "stop a bundled target", example: "sfbench target down node-postgres" },
  "sfbench target list": { summary: "the bundled targets and whether they run", example: "sfbench target list" },
  "sfbench target build": { summary: "compile what bundled targets need (cached under .sfbench/build)", example: "sfbench target build protoactor-go" },
  "sfbench image build": {
    summary: "build bundled targets' OCI images offline with podman, on local base images (cached)",
    example: "sfbench image build node-postgres",
  },
  "sfbench verify": { summary: "run the conformance suite against a target", example: "sfbench verify --url http://127.0.0.1:8080" },
  "sfbench run": {
    summary: "verify, then measure a target and print the summary table",
    example: "sfbench run --target node-postgres --workload checkout --profile quick",
  },
  "sfbench campaign": {
    summary:
      "several bundled targets in randomised interleaved rounds: per target the median knee of N trials, its interval (order statistics), the ratio to a reference",
    example: "sfbench campaign --targets node-postgres,restate --trials 3 --reference node-postgres",
  },
  "sfbench reproduce": {
    summary:
      "a kept campaign again on this machine within a time budget (the reference and the targets that fit): this machine's ratios to the reference beside the kept ones",
    example: "sfbench reproduce --campaign results/campaigns/20261129-105448-a4a20181 --budget 30m",
  },
  "sfbench manifest check": { summary: "validate a target.json with the portal's schema", example: "sfbench manifest check target.json" },
  "sfbench loc": {
    summary: "lines of code per language, app and gateway, counted by cloc over the manifest's loc globs",
    example: "sfbench loc --manifest target.json",
  },
  "sfbench login": {
    summary: "store an API token (from the portal's tokens page) for a portal",
    example: "sfbench login --server https://sfbench.example --token sfb_...",
  },
  "sfbench submit": {
    summary: "submit a target to a portal (with its source files, from which sfbench counts the lines of code, and its image archive) and print the run's URL",
    example: "sfbench submit --manifest target.json --image-archive image.tar --wait",
  },
  "sfbench status": { summary: "where a submitted run is", example: "sfbench status http://127.0.0.1:3000/runs/<id>" },
  "sfbench results": {
    summary: "a system's runs on a portal and its latest numbers (`sfbench results import` loads documents into the database)",
    example: "sfbench results node-postgres --json",
  },
  "sfbench results import": { summary: "load result documents into the portal's database, idempotent by run id", example: "sfbench results import results/" },
};

/** Commands that take a subcommand, for `sfbench <group> --help`. */
export const GROUPS: Record<string, string[]> = {
  services: ["up", "down", "status"],
  target: ["up", "down", "list", "build"],
  manifest: ["check"],
  image: ["build"],
};

export const isHelpFlag = (arg: string | undefined) => arg === "--help" || arg === "-h";

/** `sfbench <group> --help`: its subcommands with their summaries. */
export function groupHelp(group: string): string {
  const lines = Object.entries(COMMAND_HELP)
    .filter(([command]) => command.startsWith(`sfbench ${group} `) || command === `sfbench ${group}`)
    .map(([command, h]) => `  ${command.padEnd(26)} ${h.summary}`);
  return `usage: sfbench ${group} <${GROUPS[group]!.join("|")}> [flags]\n\n${lines.join("\n")}\n\n(sfbench ${group} <subcommand> --help shows its flags)\n`;
}

/** The top-level `sfbench --help`. */
export function mainHelp(): string {
  const lines = Object.entries(COMMAND_HELP).map(([command, h]) => `  ${command.padEnd(26)} ${h.summary}`);
  return `sfbench: benchmark stateful serverless function systems\n\nusage: sfbench <command> [flags]   (sfbench <command> --help shows its flags and an example)\n\n${lines.join("\n")}\n`;
}
