/**
 * The portal's API as the CLI uses it: tRPC procedures over plain HTTP+JSON
 * (GET for queries, POST for mutations), with the API token as a Bearer
 * header. Errors carry the server's message and the fields it names.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configDir, DEFAULT_SERVER, env } from "./env.ts";

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly fields?: Record<string, string[]> | null,
  ) {
    super(message);
  }
}

export interface Remote {
  server: string;
  token?: string;
  /** where the token came from, for messages: "SFBENCH_TOKEN" or the credentials file */
  tokenSource?: string;
}

/** Who you are was refused (exit 4): no token, a token the portal does not accept, or not allowed. */
export const isAuthError = (e: unknown) => e instanceof ApiError && (e.status === 401 || e.status === 403);

const tokenHelp = (server: string) => `create one on ${server}/tokens and store it with \`sfbench login --server ${server}\` (or set SFBENCH_TOKEN)`;

/** The 401 for a request sent without a token. */
export const noTokenError = (r: Remote) => new ApiError(`no API token for ${r.server}: ${tokenHelp(r.server)}`, 401);

/** A bad token is told apart from a missing one: the user has one, and it is the one that is wrong. */
export const badTokenError = (r: Remote) =>
  new ApiError(
    `${r.server} does not accept the API token from ${r.tokenSource ?? "the command line"} (unknown, revoked or mistyped): ${tokenHelp(r.server)}`,
    401,
  );

interface TrpcBody {
  result?: { data?: unknown };
  error?: { message?: string; data?: { httpStatus?: number; fields?: Record<string, string[]> | null } };
}

async function call<T>(remote: Remote, kind: "query" | "mutation", path: string, input: unknown): Promise<T> {
  const url = new URL(`/api/trpc/${path}`, remote.server);
  const headers: Record<string, string> = remote.token ? { authorization: `Bearer ${remote.token}` } : {};
  if (kind === "query") url.searchParams.set("input", JSON.stringify(input ?? {}));
  let res: Response;
  try {
    res = await fetch(url, {
      method: kind === "query" ? "GET" : "POST",
      headers: kind === "mutation" ? { ...headers, "content-type": "application/json" } : headers,
      body: kind === "mutation" ? JSON.stringify(input) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new ApiError(`cannot reach ${remote.server}: ${((e as Error).cause as Error | undefined)?.message ?? (e as Error).message}`, 0);
  }
  let body: TrpcBody;
  try {
    body = parsePortalJson(await res.text()) as TrpcBody;
  } catch {
    throw new ApiError(`${remote.server} answered ${res.status} without JSON: is it an sfbench portal?`, res.status);
  }
  const status = body.error?.data?.httpStatus ?? res.status;
  if (status === 401) throw remote.token ? badTokenError(remote) : noTokenError(remote);
  if (body.error || !res.ok) {
    const fields = body.error?.data?.fields;
    const detail = fields
      ? Object.entries(fields)
          .map(([f, msgs]) => `${f}: ${msgs.join("; ")}`)
          .join("\n")
      : (body.error?.message ?? `HTTP ${res.status}`);
    throw new ApiError(detail, status, fields);
  }
  return body.result?.data as T;
}

/**
 * The portal's text as a terminal may show it: C0 controls but tab and newline,
 * DEL, C1 controls and the bidirectional overrides become visible escapes
 * (\x1b, \u{202e}). A run's error carries a container's log tail, which the
 * team that submitted it wrote; it must not move the cursor, retitle the
 * window or reorder the text on the terminal of whoever reads it.
 */
export function inert(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const n = c.codePointAt(0)!;
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u{${n.toString(16)}}`;
  });
}

/** JSON from the portal with every string made inert: what the CLI prints of it, or hands on as --json, cannot drive a terminal. */
export function parsePortalJson(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (typeof value === "string" ? inert(value) : value));
}

export const query = <T>(remote: Remote, path: string, input?: unknown) => call<T>(remote, "query", path, input);
export const mutation = <T>(remote: Remote, path: string, input: unknown) => call<T>(remote, "mutation", path, input);

// ---- stored tokens: one per server, in ~/.config/sfbench/credentials.json (mode 600) ----

const credentialsFile = () => join(configDir(), "credentials.json");

function readCredentials(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(credentialsFile(), "utf8")) as Record<string, string>;
  } catch {
    return {};
  }
}

export function saveToken(server: string, token: string): string {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  const all = { ...readCredentials(), [normalize(server)]: token };
  writeFileSync(credentialsFile(), JSON.stringify(all, null, 2) + "\n", { mode: 0o600 });
  chmodSync(credentialsFile(), 0o600);
  return credentialsFile();
}

const normalize = (server: string) => new URL(server).origin;

/** The server from --server, SFBENCH_SERVER or the local default; the token from SFBENCH_TOKEN or `sfbench login`. */
export function remote(serverFlag: string | undefined): Remote {
  const server = normalize(serverFlag ?? env.SFBENCH_SERVER ?? DEFAULT_SERVER);
  if (env.SFBENCH_TOKEN) return { server, token: env.SFBENCH_TOKEN, tokenSource: "SFBENCH_TOKEN" };
  const stored = readCredentials()[server];
  return stored ? { server, token: stored, tokenSource: `${credentialsFile()} (sfbench login)` } : { server };
}
