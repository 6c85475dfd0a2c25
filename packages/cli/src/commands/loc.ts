/** sfbench loc [--manifest target.json] [--json]: lines of code per language, app and gateway (cloc). */
import { parseFlags } from "../args.ts";
import { dirname } from "node:path";
import { countTargetLoc } from "@sfbench/provider-local/loc";
import { readManifest } from "../manifest-file.ts";

export async function loc(argv: string[]): Promise<number> {
  const { values } = parseFlags("sfbench loc", argv, {
    manifest: { type: "string", value: "FILE", help: "default ./target.json" },
    json: { type: "boolean", help: "print {language: {app, gateway}} (what `sfbench submit` uploads)" },
  });
  const file = values.manifest ?? "target.json";
  const { manifest } = readManifest("sfbench loc", file);
  const { loc: counts, files } = await countTargetLoc(dirname(file), manifest, file);
  if (values.json) {
    process.stdout.write(JSON.stringify(counts) + "\n");
    return 0;
  }
  const rows = Object.entries(counts).map(
    ([lang, c]) => `${lang.padEnd(12)} ${String(c.app).padStart(8)} ${String(c.gateway).padStart(8)} ${String(c.app + c.gateway).padStart(8)}`,
  );
  const total = Object.values(counts).reduce((t, c) => ({ app: t.app + c.app, gateway: t.gateway + c.gateway }), { app: 0, gateway: 0 });
  process.stdout.write(
    [
      `${"language".padEnd(12)} ${"app".padStart(8)} ${"gateway".padStart(8)} ${"total".padStart(8)}`,
      ...rows,
      `${"all".padEnd(12)} ${String(total.app).padStart(8)} ${String(total.gateway).padStart(8)} ${String(total.app + total.gateway).padStart(8)}`,
      `(${files.app} app files, ${files.gateway} gateway files, counted by cloc; total excluding the gateway: ${total.app})`,
    ].join("\n") + "\n",
  );
  return 0;
}
