#!/usr/bin/env node
/**
 * The two lanes `npm test` runs at once (scripts/test.sh). Most of the
 * suite's time is spent waiting on servers and on k6 runs of fixed length,
 * not on CPU, so two packages at a time fit on two cores; each lane has its
 * own SFBENCH_HOME and service ports, so the lanes share no target, service,
 * queue or lock.
 *
 * A package whose tests build, load or run images says so in its
 * package.json (`"sfbench": { "testLane": "images" }`): those run in the
 * "images" lane, on the default home, so the podman storage under it (the
 * base images, the targets' images) is filled once and not once per lane.
 * Every other package with a test script runs in the "processes" lane.
 *
 *   node scripts/test-lanes.mjs --filters images|processes   turbo's --filter arguments, one per line
 *   node scripts/test-lanes.mjs --list                       each package and its lane
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const LANES = ["images", "processes"];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Every workspace package (root package.json "workspaces": folders and `folder/*` globs). */
export function workspacePackages(repo = root) {
  const globs = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).workspaces ?? [];
  const dirs = globs.flatMap((g) =>
    g.endsWith("/*")
      ? readdirSync(join(repo, g.slice(0, -2)), { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => join(g.slice(0, -2), d.name))
      : [g],
  );
  return dirs
    .filter((d) => existsSync(join(repo, d, "package.json")))
    .map((d) => {
      const pkg = JSON.parse(readFileSync(join(repo, d, "package.json"), "utf8"));
      const lane = pkg.sfbench?.testLane ?? "processes";
      if (!LANES.includes(lane)) throw new Error(`${d}/package.json: sfbench.testLane is "${lane}"; allowed: ${LANES.join(", ")}`);
      return { name: pkg.name, dir: d, lane, tested: typeof pkg.scripts?.test === "string" };
    })
    .filter((p) => p.tested);
}

function main(argv) {
  const packages = workspacePackages();
  if (argv[0] === "--list") {
    for (const p of packages) console.log(`${p.lane.padEnd(10)} ${p.name}`);
    return 0;
  }
  const lane = argv[0] === "--filters" ? argv[1] : undefined;
  if (!lane || !LANES.includes(lane)) {
    console.error(`usage: test-lanes.mjs --filters <lane> | --list (lanes: ${LANES.join(", ")})`);
    return 2;
  }
  // by folder: the CLI package and the repository's root share the name "sfbench"
  const dirs = packages.filter((p) => p.lane === lane).map((p) => `./${p.dir}`);
  // a lane with no package would run every package without filters; a filter that matches nothing runs none
  console.log((dirs.length ? dirs : ["./sfbench-no-package"]).map((d) => `--filter=${d}`).join("\n"));
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exit(main(process.argv.slice(2)));
