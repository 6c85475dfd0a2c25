/**
 * Throttling of sign-in and sign-up, per account (the email tried, whether or
 * not it has an account) and per client address, kept in PostgreSQL
 * (AuthAttempt) so that it holds across requests, processes and restarts.
 *
 * An attempt is recorded before the password is checked, in a transaction that
 * holds an advisory lock per key, so that parallel attempts cannot all slip
 * under a limit: of 30 wrong passwords sent at once, `limit` are checked and
 * the rest are refused with 429 and the time to retry, and so is the right
 * password after them until the window has passed. A refused attempt is not
 * recorded (hammering does not extend the wait); a successful sign-in stops
 * counting. Rows older than the longest window are deleted now and then.
 *
 * A sign-in from a browser that signed in to the account before (its device
 * cookie, auth/device-cookies.ts) is limited per device instead of per
 * account, and does not count against the account: the account's limit
 * stops strangers guessing, not its owner.
 */
import type { Db } from "@sfbench/db";
import { env } from "../../env.ts";
import { tooManyRequests } from "../trpc/errors.ts";
import { hashSecret } from "./secrets.ts";

export type AuthAction = "sign-in" | "sign-up";

export interface ThrottleLimits {
  /** sign-in attempts per account per SIGN_IN_WINDOW_MS */
  signInPerAccount: number;
  /** sign-in attempts per address per SIGN_IN_WINDOW_MS */
  signInPerAddress: number;
  /** sign-ups per address per SIGN_UP_WINDOW_MS (per email: the same number) */
  signUpPerAddress: number;
}

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_UP_WINDOW_MS = 60 * 60_000;
const PRUNE_EVERY_MS = 60_000;
/** a burst on one account queues on its lock (and for pool connections): it waits instead of failing with a 500 */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 };

export function defaultThrottleLimits(): ThrottleLimits {
  return {
    signInPerAccount: env.SFBENCH_SIGNIN_ATTEMPTS_PER_ACCOUNT,
    signInPerAddress: env.SFBENCH_SIGNIN_ATTEMPTS_PER_ADDRESS,
    signUpPerAddress: env.SFBENCH_SIGNUPS_PER_ADDRESS,
  };
}

interface Rule {
  /** account: attempts on the account without one of its device cookies; device: with that cookie; address: from the address */
  scope: "account" | "device" | "address";
  limit: number;
  windowMs: number;
  /** what was refused, for the message */
  what: string;
}

function rules(action: AuthAction, limits: ThrottleLimits, device: boolean): Rule[] {
  if (action === "sign-in") {
    return [
      {
        scope: device ? "device" : "account",
        limit: limits.signInPerAccount,
        windowMs: SIGN_IN_WINDOW_MS,
        what: device
          ? `too many sign-in attempts from this browser (at most ${limits.signInPerAccount} in 15 minutes)`
          : `too many sign-in attempts for this account (at most ${limits.signInPerAccount} in 15 minutes)`,
      },
      {
        scope: "address",
        limit: limits.signInPerAddress,
        windowMs: SIGN_IN_WINDOW_MS,
        what: `too many sign-in attempts from your address (at most ${limits.signInPerAddress} in 15 minutes)`,
      },
    ];
  }
  return [
    {
      scope: "account",
      limit: limits.signUpPerAddress,
      windowMs: SIGN_UP_WINDOW_MS,
      what: `too many sign-ups for this email (at most ${limits.signUpPerAddress} an hour)`,
    },
    {
      scope: "address",
      limit: limits.signUpPerAddress,
      windowMs: SIGN_UP_WINDOW_MS,
      what: `too many sign-ups from your address (at most ${limits.signUpPerAddress} an hour)`,
    },
  ];
}

export interface AttemptKey {
  action: AuthAction;
  /** the lower-cased email tried */
  email: string;
  /** clientAddress(); null when the request did not say (then only the account is limited) */
  address: string | null;
  /** the id of the account's device cookie the request carried (deviceOf); null or absent: none */
  device?: string | null;
}

/** Records an attempt, or throws a 429 (TOO_MANY_REQUESTS, with the time to retry) when a limit is reached. Returns the attempt's id. */
export async function beginAttempt(db: Db, key: AttemptKey, limits: ThrottleLimits): Promise<string> {
  const device = key.action === "sign-in" ? (key.device ?? null) : null;
  const values = { account: hashSecret(key.email), address: key.address, device };
  // what each scope counts: the account's limit counts only the attempts that came without one of its device cookies
  const scoped = (scope: Rule["scope"]) => (scope === "account" ? { account: values.account, device: null } : { [scope]: values[scope] });
  const applicable = rules(key.action, limits, device !== null).filter((r) => values[r.scope] !== null);
  const id = await db.$transaction(async (tx) => {
    const locks = applicable.map((r) => `auth:${key.action}:${r.scope}:${values[r.scope]}`).sort();
    for (const lock of locks) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lock}, 0))`;
    const now = new Date();
    let refusal: { rule: Rule; retryAt: Date } | undefined;
    for (const rule of applicable) {
      // the limit-th newest attempt that counts: while it is inside the window, the limit is reached
      const nth = await tx.authAttempt.findFirst({
        where: { action: key.action, ...scoped(rule.scope), counts: true, createdAt: { gt: new Date(now.getTime() - rule.windowMs) } },
        orderBy: { createdAt: "desc" },
        skip: rule.limit - 1,
        select: { createdAt: true },
      });
      const retryAt = nth ? new Date(nth.createdAt.getTime() + rule.windowMs) : undefined;
      if (retryAt && (!refusal || retryAt > refusal.retryAt)) refusal = { rule, retryAt };
    }
    if (refusal) throw tooManyRequests(refusal.rule.what, refusal.retryAt, now);
    const row = await tx.authAttempt.create({ data: { action: key.action, ...values, createdAt: now }, select: { id: true } });
    return row.id;
  }, TX_OPTIONS);
  await prune(db);
  return id;
}

/** The attempt succeeded (a sign-in with the right password): it no longer counts against the limits. */
export async function attemptSucceeded(db: Db, id: string): Promise<void> {
  await db.authAttempt.update({ where: { id }, data: { counts: false } });
}

let lastPrune = 0;
async function prune(db: Db): Promise<void> {
  const now = Date.now();
  if (now - lastPrune < PRUNE_EVERY_MS) return;
  lastPrune = now;
  await db.authAttempt.deleteMany({ where: { createdAt: { lt: new Date(now - Math.max(SIGN_IN_WINDOW_MS, SIGN_UP_WINDOW_MS)) } } });
}
