import { statSync } from "node:fs";
import { chown } from "node:fs/promises";
import path from "node:path";
import { run } from "./process.ts";

/** PostgreSQL refuses to run as root, so as root the server runs as this system user. */
export const PG_USER = "sfbench-pg";

export interface RunAs {
  uid: number;
  gid: number;
}

/**
 * Who runs initdb, pg_ctl and postgres: nobody special (undefined) for a normal user;
 * as root, the `sfbench-pg` system user, created on first use and given `owned` (recursively).
 * Every directory on the way to `owned` and to `reachable` must let that user through.
 */
export async function postgresUser(owned: string, reachable: string[]): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const user = await ensureSystemUser();
  for (const dir of [path.dirname(owned), ...reachable]) assertTraversable(dir, user);
  if (statSync(owned).uid !== user.uid) await run("chown", ["-R", `${user.uid}:${user.gid}`, owned]);
  else await chown(owned, user.uid, user.gid);
  return user;
}

async function ensureSystemUser(): Promise<RunAs> {
  const id = async () => {
    const uid = Number((await run("id", ["-u", PG_USER])).trim());
    const gid = Number((await run("id", ["-g", PG_USER])).trim());
    return { uid, gid };
  };
  try {
    return await id();
  } catch {
    await run("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_USER]).catch((error) => {
      // Two processes may race to create the user; the loser finds it there.
      if (!/already exists/.test(String(error))) throw error;
    });
    return id();
  }
}

/** Throws, naming the directory, unless `user` may search (x) every directory from / down to `dir`. */
export function assertTraversable(dir: string, user: RunAs): void {
  const parts = path.resolve(dir).split(path.sep).filter(Boolean);
  for (let i = 0; i <= parts.length; i++) {
    const current = path.sep + parts.slice(0, i).join(path.sep);
    const { mode, uid, gid } = statSync(current);
    const searchBit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
    const canSearch = (mode & searchBit) !== 0;
    if (!canSearch) {
      throw new Error(
        `PostgreSQL runs as the system user ${PG_USER} (it refuses to run as root), which cannot enter ${current} ` +
          `(mode ${(mode & 0o777).toString(8)}). Run \`chmod o+x ${current}\`, or move the repository ` +
          `or SFBENCH_HOME somewhere every user can reach.`,
      );
    }
  }
}
