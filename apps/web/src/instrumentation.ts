/** Runs once when the server starts: checks the environment and where it listens, and opens (and migrates) the database. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  const { env } = await import("./env.ts");
  const { listenProblem, nextStartHostname } = await import("./server/listen-check.ts");
  const hostname = nextStartHostname(process.argv);
  const problem = hostname === "not next start" ? undefined : listenProblem(hostname, env.SFBENCH_PUBLIC_ORIGIN);
  if (problem) {
    process.stderr.write(`sfbench portal: ${problem}\n`);
    process.exit(1);
  }
  const { getDb } = await import("./server/db.ts");
  await getDb();
}
