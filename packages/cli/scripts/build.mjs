// The published CLI: src/main.ts bundled with esbuild into dist/ (run by
// bin/sfbench.mjs when there is no src/), with what the commands a team uses
// anywhere need (core, conformance, zod, tinyglobby, the LOC counting) inside
// it. The repository's own packages (services, targets, database) stay
// outside: each command that needs them is its own chunk and, outside a clone,
// says so (commands-table.ts). cloc stays a dependency: it is a perl program
// the LOC counting runs from its package folder. undici (the conformance
// client's HTTP) stays one too: its CommonJS requires node builtins at run
// time, which an ESM bundle cannot.
import { rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// the same list as commands-table.ts REPOSITORY_PACKAGES (a test checks the bundle names no other)
const repositoryOnly = /^@sfbench\/(services|catalogue|provider-local|provider-container|provider-kubernetes|engine|workloads|db|infra-pulumi)$/;

rmSync(path.join(root, "dist"), { recursive: true, force: true });
await build({
  entryPoints: [path.join(root, "src/main.ts")],
  outdir: path.join(root, "dist"),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  external: ["cloc", "undici"],
  plugins: [
    {
      name: "repository-only",
      setup(b) {
        // exactly the package roots: @sfbench/provider-local/loc is bundled
        b.onResolve({ filter: /^@sfbench\// }, (args) => (repositoryOnly.test(args.path) ? { path: args.path, external: true } : undefined));
      },
    },
  ],
});
