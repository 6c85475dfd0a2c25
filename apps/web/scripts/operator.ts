/**
 * npm run operator -w @sfbench/web -- [--email <address>] [--origin <url>] [--hours 24]
 *
 * Makes the portal's operator account, on the portal's machine: stores a
 * one-time link (its token hashed, expiring after --hours) and prints it;
 * following it sets the password of the account of the address (created, or
 * taken from whoever signed up with it first) and makes it the operator's
 * (src/server/operator/setup.ts). The address is --email, else
 * SFBENCH_OPERATOR_EMAIL; the portal must run with SFBENCH_OPERATOR_EMAIL set
 * to it. The link's origin is --origin, else SFBENCH_PUBLIC_ORIGIN's first,
 * else http://127.0.0.1:3000. The database is the portal's (DATABASE_URL, or
 * the local `sfbench` database), migrated first.
 */
import { parseArgs } from "node:util";
import { createDb, ensureDatabase, migrate } from "@sfbench/db";
import { z } from "zod";
import { env as portalEnv } from "../src/env.ts";
import { createOperatorSetup } from "../src/server/operator/setup.ts";

const fail = (message: string): never => {
  process.stderr.write(`operator: ${message}\n`);
  process.exit(2);
};

const { values } = parseArgs({ options: { email: { type: "string" }, origin: { type: "string" }, hours: { type: "string", default: "24" } } });
const configured = portalEnv.SFBENCH_OPERATOR_EMAIL ?? undefined;
const given = values.email?.trim().toLowerCase();
if (given && configured && given !== configured)
  fail(
    `--email ${given} is not SFBENCH_OPERATOR_EMAIL (${configured}): the operator is the account of SFBENCH_OPERATOR_EMAIL; give that address or change the variable`,
  );
const email = given ?? configured ?? fail("give the operator's address: --email <address> (or set SFBENCH_OPERATOR_EMAIL)");
if (!z.email().safeParse(email).success) fail(`--email must be an email address like you@example.com, got "${email}"`);
const origin = values.origin ?? portalEnv.SFBENCH_PUBLIC_ORIGIN[0] ?? "http://127.0.0.1:3000";
if (!URL.canParse(origin) || new URL(origin).origin !== origin)
  fail(`--origin must be an origin like https://sfbench.example.org (scheme and host, no path), got "${origin}"`);
const hours = Number(values.hours);
if (!(hours > 0 && hours <= 168)) fail(`--hours must be more than 0 and at most 168, got "${values.hours}"`);

const url = await ensureDatabase({ onProgress: (m) => process.stderr.write(`${m}\n`) });
await migrate(url);
const db = createDb(url, { max: 1 });
try {
  const { link, expiresAt } = await createOperatorSetup(db, email, { origin, hours });
  process.stdout.write(
    `the operator's account (${email}): open this link and choose its password (it works once, until ${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC):\n${link}\n`,
  );
  if (!configured) process.stdout.write(`run the portal with SFBENCH_OPERATOR_EMAIL=${email}: only then is this account the operator's\n`);
} finally {
  await db.$disconnect();
}
