/** A real local SMTP server (scripts/mail-sink.ts) and the portal settings that mail verification links to it. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startMailSink, type MailSink } from "../../scripts/mail-sink.ts";
import { smtpMailer } from "../../src/server/mail/mailer.ts";
import type { PortalSettings } from "../../src/server/portal-settings.ts";

export async function mailSink(): Promise<MailSink> {
  return startMailSink({ dir: mkdtempSync(path.join(tmpdir(), "sfbench-mail-")) });
}

export function mailingTo(sink: MailSink, overrides: Partial<PortalSettings["verification"]> & { operatorEmail?: string } = {}): Partial<PortalSettings> {
  const { operatorEmail, ...verification } = overrides;
  return {
    operatorEmail: operatorEmail ?? null,
    verification: {
      mailer: smtpMailer({ host: sink.host, port: sink.port, from: "sfbench test <no-reply@sfbench.test>" }),
      hours: 24,
      perHour: 5,
      ...verification,
    },
  };
}
