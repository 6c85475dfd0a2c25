/**
 * Where the schema and the migrations live: <repo>/prisma, found from this file,
 * or (when this code runs from a bundle, e.g. Next.js server chunks) by walking up
 * from the working directory.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function findPrismaDir(): string {
  const fromSource = fileURLToPath(new URL("../../../prisma", import.meta.url));
  if (existsSync(path.join(fromSource, "schema.prisma"))) return fromSource;
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "prisma", "schema.prisma"))) return path.join(dir, "prisma");
    if (path.dirname(dir) === dir) return fromSource; // readMigrations names it when it is missing
  }
}

export const prismaDir = findPrismaDir();
export const schemaPath = path.join(prismaDir, "schema.prisma");
export const migrationsDir = path.join(prismaDir, "migrations");
