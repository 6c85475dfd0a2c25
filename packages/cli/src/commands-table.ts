/**
 * The commands, each loaded when it is run. Those a team uses anywhere
 * (manifest, login, loc, submit, status, results, verify --url) need only
 * what the published CLI bundles; the others run the repository's services
 * and targets, and outside a clone of it they say so (exit 3) instead of
 * failing on a missing module.
 */
export type Command = (argv: string[]) => Promise<number>;

/** A command that needs a clone of the sfbench repository was run from the published CLI. */
export class RepositoryOnlyError extends Error {}

/** The workspace packages the published CLI leaves out (scripts/build.mjs marks them external). */
export const REPOSITORY_PACKAGES = [
  "@sfbench/services",
  "@sfbench/catalogue",
  "@sfbench/provider-local",
  "@sfbench/provider-container",
  "@sfbench/provider-kubernetes",
  "@sfbench/engine",
  "@sfbench/workloads",
  "@sfbench/db",
  "@sfbench/infra-pulumi",
] as const;

const outsideRepository = (e: unknown) =>
  (e as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" && REPOSITORY_PACKAGES.some((p) => (e as Error).message.includes(`'${p}'`));

/** Loads a module that may need the repository; outside it, a RepositoryOnlyError naming `what`. */
export async function needRepository<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (e) {
    if (outsideRepository(e)) {
      throw new RepositoryOnlyError(
        `${what} needs a clone of the sfbench repository (it runs the bundled services and targets): run it there, after \`npm run bootstrap\``,
      );
    }
    throw e;
  }
}

const lazy =
  (what: string, load: () => Promise<Command>): Command =>
  async (argv) =>
    (await needRepository(what, load))(argv);

export const COMMANDS: Record<string, Command> = {
  services: lazy("sfbench services", async () => (await import("./commands/services.ts")).services),
  target: lazy("sfbench target", async () => (await import("./commands/target.ts")).target),
  image: lazy("sfbench image", async () => (await import("./commands/image.ts")).image),
  verify: lazy("sfbench verify", async () => (await import("./commands/verify.ts")).verify),
  run: lazy("sfbench run", async () => (await import("./commands/run.ts")).run),
  campaign: lazy("sfbench campaign", async () => (await import("./commands/campaign.ts")).campaign),
  reproduce: lazy("sfbench reproduce", async () => (await import("./commands/reproduce.ts")).reproduce),
  manifest: lazy("sfbench manifest", async () => (await import("./commands/manifest.ts")).manifest),
  results: lazy("sfbench results", async () => (await import("./commands/results.ts")).results),
  loc: lazy("sfbench loc", async () => (await import("./commands/loc.ts")).loc),
  login: lazy("sfbench login", async () => (await import("./commands/login.ts")).login),
  submit: lazy("sfbench submit", async () => (await import("./commands/submit.ts")).submit),
  status: lazy("sfbench status", async () => (await import("./commands/status.ts")).status),
};

/** A missing prerequisite or a target that does not start (exit 3); false outside the repository, where neither can happen. */
export async function isEnvironmentError(e: unknown): Promise<boolean> {
  const [services, catalogue] = await Promise.allSettled([import("@sfbench/services"), import("@sfbench/catalogue")]);
  return (
    (services.status === "fulfilled" && e instanceof services.value.MissingPrerequisiteError) ||
    (catalogue.status === "fulfilled" && e instanceof catalogue.value.TargetError)
  );
}
