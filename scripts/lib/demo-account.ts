/**
 * The demo account: signed up and signed in through the portal's API like a
 * person would (password kept in .sfbench/demo-account.json), its address
 * verified through the link the portal mailed (the demo's portal names it its
 * operator, so it may submit the bundled targets), then an API token for the CLI.
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
 * Signs the account in (signing it up first when needed) and verifies its
 * address when it is not: `verificationLink` returns the link of the next
 * verification mail to the address (the demo reads it from its SMTP server).
 */
export async function demoAccount(
  server: string,
  account: Account,
  verificationLink: (email: string) => Promise<string>,
): Promise<{ email: string; password: string; token: string; verifiedWith?: string }> {
  // sign-up answers the same for a new and an existing email and signs nobody in: sign in, and sign up first when that fails
  let signedUp = false;
  let session = await mutation(server, "auth.signIn", account);
  if (session.status === 401) {
    const signUp = await mutation(server, "auth.signUp", account);
    if (signUp.status !== 200) throw new Error(`could not sign up the demo account: ${signUp.error?.message ?? signUp.status}`);
    signedUp = true;
    session = await mutation(server, "auth.signIn", account);
  }
  if (!session.cookie) throw new Error(`could not sign in the demo account: ${session.error?.message ?? session.status}`);
  const me = await fetch(`${server}/api/trpc/auth.me`, { headers: { cookie: session.cookie } }).then(
    (r) => r.json() as Promise<{ result?: { data?: { emailVerified?: boolean } } }>,
  );
  let verifiedWith: string | undefined;
  if (!me.result?.data?.emailVerified) {
    // a new account was mailed its link at sign-up; an existing one asks for another
    if (!signedUp) {
      const resend = await mutation(server, "auth.resendVerification", {}, session.cookie);
      if (resend.status !== 200) throw new Error(`could not send the demo account a verification link: ${resend.error?.message ?? resend.status}`);
    }
    verifiedWith = await verificationLink(account.email);
    const token = new URL(verifiedWith).searchParams.get("token") ?? "";
    // a link verifies its account only for the account's signed-in owner
    const verified = await mutation(server, "auth.verifyEmail", { token }, session.cookie);
    if (verified.status !== 200) throw new Error(`could not verify the demo account's address: ${verified.error?.message ?? verified.status}`);
  }
  const token = await mutation(server, "tokens.create", { name: `demo ${new Date().toISOString()}` }, session.cookie);
  const value = (token.data as { token?: string } | undefined)?.token;
  if (!value) throw new Error(`could not create an API token: ${token.error?.message ?? token.status}`);
  return { ...account, token: value, ...(verifiedWith ? { verifiedWith } : {}) };
}
