/**
 * The portal's outgoing mail. With SFBENCH_SMTP_HOST set, nodemailer sends over
 * SMTP (plain on loopback, STARTTLS when the server offers it); without it the
 * messages go to the portal's log, so a development portal still shows its
 * verification links.
 */
import nodemailer from "nodemailer";
import { env } from "../../env.ts";

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** "smtp://host:port" or "log": where send() delivers */
  readonly where: string;
  send(mail: Mail): Promise<void>;
}

export function smtpMailer(settings: { host: string; port: number; from: string }): Mailer {
  const transport = nodemailer.createTransport({ host: settings.host, port: settings.port, secure: false });
  return {
    where: `smtp://${settings.host}:${settings.port}`,
    async send(mail) {
      await transport.sendMail({ from: settings.from, ...mail });
    },
  };
}

export function logMailer(write: (line: string) => void = (line) => process.stdout.write(line)): Mailer {
  return {
    where: "log",
    async send(mail) {
      write(`mail to ${mail.to} (no SFBENCH_SMTP_HOST, so not sent): ${mail.subject}\n${mail.text}\n`);
    },
  };
}

let configured: Mailer | undefined;

/** The mailer the environment configures, made once per process. */
export function envMailer(): Mailer {
  configured ??= env.SFBENCH_SMTP_HOST ? smtpMailer({ host: env.SFBENCH_SMTP_HOST, port: env.SFBENCH_SMTP_PORT, from: env.SFBENCH_SMTP_FROM }) : logMailer();
  return configured;
}
