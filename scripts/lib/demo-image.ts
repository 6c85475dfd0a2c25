/**
 * The demo's container entry (npm run demo -- --with-image): node-postgres
 * built into its OCI image (`sfbench image build`), saved to a tar with
 * `podman save` (the project's podman storage), and a target.json that names
 * that image, under a name of its own: the bundled name belongs to the
 * bundled target, run as processes, and the board shows both side by side.
 * The manifest's directory links the bundled target's sources, which the
 * submission uploads for sfbench's LOC count, as a team's checkout would hold them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { podman } from "@sfbench/provider-container";
import { findTarget } from "@sfbench/catalogue";

/** The bundled target submitted again from its image, and the name it gets there. */
export const IMAGE_DEMO = { target: "node-postgres", name: "node-postgres-image" } as const;

export interface ImageSubmission {
  /** the target.json to submit */
  manifest: string;
  /** the image as `podman save` wrote it */
  archive: string;
  image: string;
}

/**
 * Builds (or finds current) the image, saves it under `dir` and writes the
 * manifest beside it. `port`: the port target.json gives the target (the
 * bundled target's unless given: a test gives one of its own range, the
 * number the manifest names, though a run publishes a free one).
 */
export async function prepareImageSubmission(opts: {
  root: string;
  cli: string;
  dir: string;
  say: (line: string) => void;
  port?: number;
}): Promise<ImageSubmission> {
  const bundled = findTarget(IMAGE_DEMO.target);
  // the CLI prints the image's reference on stdout, its progress on stderr
  const built = execFileSync(process.execPath, [opts.cli, "image", "build", IMAGE_DEMO.target], {
    cwd: opts.root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  })
    .trim()
    .split("\n")
    .pop()!;
  // under a name of the team's own, as a team would tag it: sfbench keeps localhost/sfbench/ for its builds and refuses archives that name it
  // in the namespace of the system it is submitted as, as every uploaded archive must be
  const image = `localhost/${IMAGE_DEMO.name}:${built.slice(built.lastIndexOf(":") + 1)}`;
  await podman(["tag", built, image]);
  opts.say(`  image: ${image} (sfbench image build: ${built})`);
  rmSync(opts.dir, { recursive: true, force: true });
  mkdirSync(opts.dir, { recursive: true });
  const archive = join(opts.dir, "image.tar");
  await podman(["save", "--format", "docker-archive", "--output", archive, image]);
  opts.say(`  podman save: ${archive}`);
  const manifest = JSON.parse(readFileSync(join(bundled.dir, "target.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(
    join(opts.dir, "target.json"),
    JSON.stringify(
      { ...manifest, name: IMAGE_DEMO.name, system: `${String(manifest.system)}, from its image`, image, ...(opts.port ? { port: opts.port } : {}) },
      null,
      2,
    ) + "\n",
  );
  // the sources the loc globs select, as they are in the bundled target
  const src = join(bundled.dir, "src");
  if (existsSync(src)) symlinkSync(src, join(opts.dir, "src"));
  return { manifest: join(opts.dir, "target.json"), archive, image };
}
