/**
 * A run as the user gives it: its id (a UUID), or its URL as `sfbench submit`
 * prints it (http://portal/runs/<id>). A URL also names the portal, unless
 * --server names another one.
 */
import { UsageError } from "./args.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface RunRef {
  id: string;
  /** the portal's origin when the run was given as a URL */
  server?: string;
}

export function parseRunRef(cmd: string, raw: string | undefined, serverFlag: string | undefined): RunRef {
  const allowed = "a run id (a UUID) or a run URL like http://127.0.0.1:3000/runs/<id>";
  if (!raw) throw new UsageError(`${cmd}: missing <run>: give ${allowed}`);
  if (UUID.test(raw)) return { id: raw.toLowerCase() };
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const id = url && (url.protocol === "http:" || url.protocol === "https:") ? /^\/runs\/([^/]+)\/?$/.exec(url.pathname)?.[1] : undefined;
  if (!url || !id || !UUID.test(id)) throw new UsageError(`${cmd}: <run> must be ${allowed}, got "${raw}"`);
  if (serverFlag && new URL(serverFlag).origin !== url.origin) {
    throw new UsageError(`${cmd}: the run URL is on ${url.origin} but --server is ${new URL(serverFlag).origin}; give one of them`);
  }
  return { id: id.toLowerCase(), server: url.origin };
}
