/**
 * What the portal is configured with beyond limits: who its operator is and
 * how it mails verification links. From the environment (env.ts); tests give
 * their own through createContext (a local SMTP server, an operator address).
 */
import { env } from "../env.ts";
import type { VerificationSettings } from "./auth/email-verification.ts";
import { envMailer } from "./mail/mailer.ts";

export interface PortalSettings {
  /** SFBENCH_OPERATOR_EMAIL (lower-cased): its account, once verified, owns the bundled targets' names (operator/operator.ts) */
  operatorEmail: string | null;
  verification: VerificationSettings;
  /** the origin links in mail point to: SFBENCH_PUBLIC_ORIGIN's first, else where the portal listens (listenOrigin) */
  linkOrigin: string | null;
}

/**
 * Where this portal listens, as `next start` records it (PORT, on loopback as
 * sfbench runs it), for mailed links when SFBENCH_PUBLIC_ORIGIN is not set;
 * null outside a server. Never the request's Host or X-Forwarded-Host: anyone
 * can send those, and a verification link to an origin of theirs hands them
 * the token of an address they do not own.
 */
export function listenOrigin(port = process.env.PORT): string | null {
  return port && /^\d+$/.test(port) ? `http://127.0.0.1:${port}` : null;
}

export function defaultPortalSettings(): PortalSettings {
  return {
    operatorEmail: env.SFBENCH_OPERATOR_EMAIL ?? null,
    verification: { mailer: envMailer(), hours: env.SFBENCH_VERIFICATION_HOURS, perHour: env.SFBENCH_VERIFICATION_EMAILS_PER_HOUR },
    linkOrigin: env.SFBENCH_PUBLIC_ORIGIN[0] ?? null,
  };
}
