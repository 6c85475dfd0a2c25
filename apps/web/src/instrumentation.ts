/** Runs once when the server starts: checks the environment and opens (and migrates) the database. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs" || process.env.NEXT_PHASE === "phase-production-build") return;
  await import("./env.ts");
  const { getDb } = await import("./server/db.ts");
  await getDb();
}
