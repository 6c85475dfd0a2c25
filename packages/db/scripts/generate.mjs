#!/usr/bin/env node
// npm run generate -w @sfbench/db [-- --quiet]: writes the Prisma client for prisma/schema.prisma into
// src/generated, then the marker bootstrap compares with the schema's mtime. Offline:
// `prisma generate` uses bundled wasm, but refuses to start unless it knows where a
// native schema engine is; it is pointed at a stub that explains why there is none.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkg = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const root = path.resolve(pkg, "../..");
const prismaCli = path.join(path.dirname(createRequire(import.meta.url).resolve("prisma/package.json")), "build", "index.js");

// --quiet (bootstrap): print prisma's output only when it fails
const quiet = process.argv.includes("--quiet");
const result = spawnSync(process.execPath, [prismaCli, "generate", "--config", path.join(root, "prisma.config.ts")], {
  cwd: root,
  stdio: ["ignore", quiet ? "pipe" : "inherit", quiet ? "pipe" : "inherit"],
  encoding: "utf8",
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: path.join(pkg, "scripts", "no-schema-engine.sh"),
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
    CHECKPOINT_DISABLE: "1",
  },
});
if (result.status !== 0) {
  if (quiet) process.stderr.write(`${result.stdout ?? ""}${result.stderr ?? ""}`);
  process.stderr.write(`sfbench: prisma generate failed (exit ${result.status ?? result.signal})\n`);
  process.exit(1);
}
writeFileSync(path.join(pkg, "src", "generated", ".generated"), `${new Date().toISOString()}\n`);
