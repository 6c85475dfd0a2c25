/**
 * The demo account: the portal's operator (the demo's portal names it so: it
 * submits the bundled targets), made as an operator makes it: `npm run
 * operator` prints a one-time link on the portal's machine and the account's
 * password (kept in .sfbench/demo-account.json) is set through it; later demos
 * sign in with it. Then an API token for the CLI.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

interface Account {
  email: string;
  password: string;
}

async function mutation(server: string, path: string, input: unknown, cookie?: string) {
  const res = await fetch(`${server}/api/trpc/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as { result?: { data?: unknown }; error?: { message?: string; data?: { httpStatus?: number } } };
  const setCookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return { status: res.status, data: body.result?.data, error: body.error, cookie: setCookie };
}

/** The demo account's email and password: from the file, or new (and written there). */
export function demoCredentials(file: string): Account {
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as Account;
  const account = { email: "demo@sfbench.local", password: randomBytes(12).toString("base64url") };
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(account, null, 2) + "\n", { mode: 0o600 });
  return account;
}

/**
 * The link `npm run operator` prints for `email` on the portal `server`, for
 * the portal's database (`databaseUrl`, else the environment's DATABASE_URL
 * or the local `sfbench` database, as the portal's).
 */
export function operatorLink(server: string, email: string, databaseUrl?: string): string {
  const root = join(import.meta.dirname, "../..");
  const out = execFileSync(process.execPath, ["--import", "tsx", join(root, "apps/web/scripts/operator.ts"), "--email", email, "--origin", server], {
    cwd: root,
    env: { ...process.env, SFBENCH_OPERATOR_EMAIL: email, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const link = /^\S+\/operator-setup\?token=\S+$/m.exec(out)?.[0];
  if (!link) throw new Error(`npm run operator printed no link:\n${out}`);
  return link;
}

/**
 * Signs the operator's account in, and when it is not the operator's yet (a
 * first demo, or an account an older demo signed up) takes it through the
 * link `link` returns, with the account's password; then makes an API token.
 */
export async function demoAccount(
  server: string,
  account: Account,
  link: (email: string) => string | Promise<string>,
): Promise<{ email: string; password: string; token: string; setUpWith?: string }> {
  let session = await mutation(server, "auth.signIn", account);
  const me =
    session.status === 200
      ? await fetch(`${server}/api/trpc/auth.me`, { headers: { cookie: session.cookie } }).then(
          (r) => r.json() as Promise<{ result?: { data?: { operator?: boolean } } }>,
        )
      : undefined;
  let setUpWith: string | undefined;
  if (!me?.result?.data?.operator) {
    setUpWith = await link(account.email);
    const token = new URL(setUpWith).searchParams.get("token") ?? "";
    session = await mutation(server, "auth.claimOperator", { token, password: account.password });
    if (session.status !== 200) throw new Error(`could not set up the operator's account: ${session.error?.message ?? session.status}`);
  }
  if (!session.cookie) throw new Error(`could not sign in the demo account: ${session.error?.message ?? session.status}`);
  const token = await mutation(server, "tokens.create", { name: `demo ${new Date().toISOString()}` }, session.cookie);
  const value = (token.data as { token?: string } | undefined)?.token;
  if (!value) throw new Error(`could not create an API token: ${token.error?.message ?? token.status}`);
  return { ...account, token: value, ...(setUpWith ? { setUpWith } : {}) };
}
