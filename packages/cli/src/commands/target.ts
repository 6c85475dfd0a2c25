/** sfbench target up|down|list|build: run the bundled targets on loopback. */
import { ensureBuilt, runningTarget, startTarget, stopTarget } from "@sfbench/provider-local";
import { listTargets } from "@sfbench/catalogue";
import { intFlag, parseFlags, UsageError } from "../args.ts";
import { note } from "../progress.ts";
import { isHelpFlag } from "../usage.ts";
import { showGroupHelp } from "../group-help.ts";

const upFlags = {
  port: { type: "string", value: "N", help: "port to listen on (default: the manifest's port)" },
  trace: { type: "boolean", help: "write span lines (SFBENCH_TRACE=1)" },
} as const;

export async function target(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (isHelpFlag(sub)) return showGroupHelp("target");
  switch (sub) {
    case "up": {
      const { values, positionals } = parseFlags("sfbench target up", rest, upFlags, { max: 1, names: ["<name>"] });
      const name = positionals[0];
      if (!name)
        throw new UsageError(
          `sfbench target up: missing <name>; bundled targets: ${listTargets()
            .map((t) => t.name)
            .join(", ")}`,
        );
      const port = intFlag("sfbench target up", "port", values.port, 1024, 65535);
      const t = await startTarget(name, { port, trace: values.trace, onProgress: note });
      note(`${name} is up (pid ${t.pid}, log ${t.log})`);
      process.stdout.write(`${t.url}\n`);
      return 0;
    }
    case "down": {
      const { positionals } = parseFlags("sfbench target down", rest, {}, { max: 1, names: ["<name>"] });
      if (!positionals[0]) throw new UsageError("sfbench target down: missing <name>");
      note((await stopTarget(positionals[0])) ? `${positionals[0]} stopped` : `${positionals[0]} was not running`);
      return 0;
    }
    case "build": {
      // what bundled targets need compiled (target.json build), cached under .sfbench/build; bootstrap runs it
      const { values, positionals } = parseFlags(
        "sfbench target build",
        rest,
        { force: { type: "boolean", help: "build even when the cache is current" } },
        { max: 20, names: ["[name...]"] },
      );
      const names = positionals.length
        ? positionals
        : listTargets()
            .filter((t) => t.manifest.build)
            .map((t) => t.name);
      for (const name of names) {
        const r = await ensureBuilt(name, { force: values.force, onProgress: note });
        note(
          !r
            ? `${name}: nothing to build`
            : r.built
              ? `${name}: built in ${r.seconds.toFixed(0)} s (${r.dir})`
              : r.reusedFrom
                ? `${name}: copied the machine's build in ${r.seconds.toFixed(1)} s (${r.dir})`
                : `${name}: build is current (${r.dir})`,
        );
      }
      return 0;
    }
    case "list": {
      parseFlags("sfbench target list", rest, {});
      for (const t of listTargets()) {
        const r = runningTarget(t.name);
        process.stdout.write(`${t.name.padEnd(20)} ${t.manifest.system.padEnd(28)} ${t.manifest.version.padEnd(8)} ${r ? `running at ${r.url}` : "stopped"}\n`);
      }
      return 0;
    }
    default:
      throw new UsageError(`sfbench target: unknown subcommand "${sub ?? ""}"; allowed: up, down, list, build`);
  }
}
