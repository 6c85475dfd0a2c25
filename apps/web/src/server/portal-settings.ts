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
  /** the origin links in mail point to: SFBENCH_PUBLIC_ORIGIN's first, else the one the request was sent to */
  linkOrigin: string | null;
}

export function defaultPortalSettings(): PortalSettings {
  return {
    operatorEmail: env.SFBENCH_OPERATOR_EMAIL ?? null,
    verification: { mailer: envMailer(), hours: env.SFBENCH_VERIFICATION_HOURS, perHour: env.SFBENCH_VERIFICATION_EMAILS_PER_HOUR },
    linkOrigin: env.SFBENCH_PUBLIC_ORIGIN[0] ?? null,
  };
}
