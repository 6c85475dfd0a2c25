#!/usr/bin/env node
// Thin entry point. In a clone of the repository (src/ next to bin/): make
// sure the generated Prisma client exists (a plain `npm install` does not run
// our bootstrap), load TypeScript through tsx, then run the CLI. Installed
// from the npm package (no src/): run the bundle that `npm pack` built.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const source = path.join(here, "../src/main.ts");

async function fromRepository() {
  const root = path.resolve(here, "../../..");
  const marker = path.join(root, "packages/db/src/generated/.generated");
  const schema = path.join(root, "prisma/schema.prisma");
  const stale = () => !existsSync(marker) || (existsSync(schema) && statSync(schema).mtimeMs > statSync(marker).mtimeMs);
  if (stale()) {
    process.stderr.write("sfbench: generating the Prisma client (packages/db/src/generated), once after install\n");
    const r = spawnSync(process.execPath, [path.join(root, "packages/db/scripts/generate.mjs"), "--quiet"], {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
    });
    if (r.status !== 0) {
      process.stderr.write("sfbench: the Prisma client could not be generated; run `npm run bootstrap` and try again\n");
      process.exit(3);
    }
  }
  const { register } = await import("tsx/esm/api");
  register();
  return import("../src/main.ts");
}

const { main } = existsSync(source) ? await fromRepository() : await import("../dist/main.js");
process.exitCode = await main(process.argv.slice(2));
