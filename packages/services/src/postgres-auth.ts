/**
 * Every PostgreSQL sfbench starts asks for a password (scram-sha-256), one
 * made for that server when its data directory is made and kept beside it
 * (`<dir>/password`, mode 0600, readable by sfbench's user alone), handed to
 * clients only in the URL sfbench gives them. A process that only reaches
 * the port (a container sharing the host's loopback, another run's target)
 * is refused; `trust`, which let anyone on loopback in as superuser, is gone.
 * A data directory made before this has no password file and keeps the
 * trust it was made with.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chown, open, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { RunAs } from "./postgres-user.ts";

export const passwordFile = (dir: string) => path.join(dir, "password");

/** The server's password, or undefined for a data directory made with trust (before passwords). */
export function serverPassword(dir: string): string | undefined {
  const file = passwordFile(dir);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

/** The URL of `database` on a server of `dir` at host:port, with its password when it has one. */
export function serverUrl(dir: string, host: string, port: number, database: string): string {
  const password = serverPassword(dir);
  return `postgres://postgres${password ? `:${encodeURIComponent(password)}` : ""}@${host}:${port}/${encodeURIComponent(database)}`;
}

/**
 * Writes the password file and fsyncs it and its directory: initdb makes the
 * cluster durable, and a password lost to a machine crash (only the page cache
 * had it) would lock sfbench out of a data directory that survived it.
 */
async function writeDurably(file: string, text: string): Promise<void> {
  const handle = await open(file, "w", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  const dir = await open(path.dirname(file), "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/**
 * initdb's arguments for a server that asks for a password: a new one is
 * made and kept in `<dir>/password`; initdb reads it from a file of its own
 * (owned by the user initdb runs as), removed by the returned function.
 */
export async function passwordInit(dir: string, user: RunAs | undefined): Promise<{ args: string[]; done: () => Promise<void> }> {
  const password = randomBytes(24).toString("base64url");
  await writeDurably(passwordFile(dir), `${password}\n`);
  const pwfile = path.join(dir, `.initdb-password-${process.pid}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) await chown(pwfile, user.uid, user.gid);
  return {
    args: ["--auth=scram-sha-256", `--pwfile=${pwfile}`],
    done: () => rm(pwfile, { force: true }),
  };
}
