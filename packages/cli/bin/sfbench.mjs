#!/usr/bin/env node
// Thin entry point: make sure the generated Prisma client exists (a plain
// `npm install` does not run our bootstrap), load TypeScript through tsx,
// then run the CLI.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const marker = path.join(root, "packages/db/src/generated/.generated");
const schema = path.join(root, "prisma/schema.prisma");
const stale = () => !existsSync(marker) || (existsSync(schema) && statSync(schema).mtimeMs > statSync(marker).mtimeMs);
if (stale()) {
  process.stderr.write("sfbench: generating the Prisma client (packages/db/src/generated), once after install\n");
  const r = spawnSync(process.execPath, [path.join(root, "packages/db/scripts/generate.mjs"), "--quiet"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] });
  if (r.status !== 0) {
    process.stderr.write("sfbench: the Prisma client could not be generated; run `npm run bootstrap` and try again\n");
    process.exit(3);
  }
}

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv.slice(2));
