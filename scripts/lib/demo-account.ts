/**
 * The demo account: signed up and signed in through the portal's API like a
 * person would (password kept in .sfbench/demo-account.json), then an API
 * token for the CLI.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

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
  const setCookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { status: res.status, data: body.result?.data, error: body.error, cookie: setCookie };
}

export async function demoAccount(server: string, file: string): Promise<{ email: string; password: string; token: string }> {
  let account: Account;
  if (existsSync(file)) account = JSON.parse(readFileSync(file, "utf8")) as Account;
  else {
    account = { email: "demo@sfbench.local", password: randomBytes(12).toString("base64url") };
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(account, null, 2) + "\n", { mode: 0o600 });
  }
  // sign-up answers the same for a new and an existing email and signs nobody in: sign in, and sign up first when that fails
  let session = await mutation(server, "auth.signIn", account);
  if (session.status === 401) {
    const signUp = await mutation(server, "auth.signUp", account);
    if (signUp.status !== 200) throw new Error(`could not sign up the demo account: ${signUp.error?.message ?? signUp.status}`);
    session = await mutation(server, "auth.signIn", account);
  }
  if (!session.cookie) throw new Error(`could not sign in the demo account: ${session.error?.message ?? session.status}`);
  const token = await mutation(server, "tokens.create", { name: `demo ${new Date().toISOString()}` }, session.cookie);
  const value = (token.data as { token?: string } | undefined)?.token;
  if (!value) throw new Error(`could not create an API token: ${token.error?.message ?? token.status}`);
  return { ...account, token: value };
}
