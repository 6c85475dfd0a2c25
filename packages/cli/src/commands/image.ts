/** sfbench image build: bundled targets' OCI images, built offline with podman (@sfbench/provider-container). */
import { buildTargetImage } from "@sfbench/provider-container";
import { listTargets } from "@sfbench/catalogue";
import { parseFlags, UsageError } from "../args.ts";
import { note } from "../progress.ts";
import { isHelpFlag } from "../usage.ts";
import { showGroupHelp } from "../group-help.ts";

export async function image(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (isHelpFlag(sub)) return showGroupHelp("image");
  if (sub !== "build") throw new UsageError(`sfbench image: unknown subcommand "${sub ?? ""}"; allowed: build`);
  const { values, positionals } = parseFlags(
    "sfbench image build",
    rest,
    { force: { type: "boolean", help: "build even when an image of the same context is there" } },
    { max: 20, names: ["<name...>"] },
  );
  const known = listTargets().map((t) => t.name);
  if (!positionals.length) throw new UsageError(`sfbench image build: missing <name...>; bundled targets: ${known.join(", ")}`);
  const unknown = positionals.filter((n) => !known.includes(n));
  if (unknown.length) throw new UsageError(`sfbench image build: unknown target ${unknown.join(", ")}; bundled targets: ${known.join(", ")}`);
  for (const name of positionals) {
    const started = Date.now();
    const r = await buildTargetImage(name, { force: values.force, onProgress: note });
    note(r.built ? `${name}: built ${r.ref} in ${((Date.now() - started) / 1000).toFixed(0)} s` : `${name}: ${r.ref} is current`);
    process.stdout.write(`${r.ref}\n`);
  }
  return 0;
}
