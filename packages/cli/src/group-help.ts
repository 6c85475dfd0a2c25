/** `sfbench <group> --help` (and `-h`): the group's subcommands, exit 0. */
import { EXIT } from "./exit.ts";
import { groupHelp } from "./usage.ts";

export function showGroupHelp(group: string): number {
  process.stdout.write(groupHelp(group));
  return EXIT.ok;
}
