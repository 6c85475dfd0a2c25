/**
 * A local mail server for the portal's verification mail: a real SMTP server
 * (smtp-server) on loopback that accepts every message, writes it to
 * `<dir>/<time>-<n>.eml` and keeps it, parsed (mailparser), for whoever waits
 * for it. The browser test, the router tests and the demo point the portal's
 * SFBENCH_SMTP_HOST/PORT (or its mailer) at it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  /** the .eml file it was written to */
  file: string;
}

export interface MailSink {
  host: string;
  port: number;
  dir: string;
  received: ReceivedMail[];
  /** the next message to `to` not yet taken, waiting up to `timeoutMs` */
  next(to: string, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

/** The first http(s) link in a mail's text whose path is `pathname` (the verification page). */
export function linkIn(mail: Pick<ReceivedMail, "text">, pathname: string): string {
  const found = mail.text.match(/https?:\/\/\S+/g)?.find((u) => URL.canParse(u) && new URL(u).pathname === pathname);
  if (!found) throw new Error(`no ${pathname} link in the mail:\n${mail.text}`);
  return found;
}

/** Starts the sink on 127.0.0.1:`port` (0: any free port). */
export async function startMailSink(opts: { dir: string; port?: number }): Promise<MailSink> {
  mkdirSync(opts.dir, { recursive: true });
  const received: ReceivedMail[] = [];
  const taken = new Set<ReceivedMail>();
  const waiters = new Set<() => void>();
  let count = 0;
  const server = new SMTPServer({
    // loopback only, for the portal's own mail: no TLS to negotiate, no accounts
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", callback);
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        const file = path.join(opts.dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${++count}.eml`);
        writeFileSync(file, raw);
        simpleParser(raw).then(
          (parsed) => {
            received.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), subject: parsed.subject ?? "", text: parsed.text ?? "", file });
            for (const wake of waiters) wake();
            callback();
          },
          (e: Error) => callback(e),
        );
      });
    },
  });
  server.on("error", (e) => process.stderr.write(`mail sink: ${e.message}\n`));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: "127.0.0.1",
    port,
    dir: opts.dir,
    received,
    next(to, timeoutMs = 30_000) {
      const address = to.toLowerCase();
      const take = () => {
        const mail = received.find((m) => !taken.has(m) && m.to.includes(address));
        if (mail) taken.add(mail);
        return mail;
      };
      return new Promise((resolve, reject) => {
        const now = take();
        if (now) return resolve(now);
        const wake = () => {
          const mail = take();
          if (!mail) return;
          cleanup();
          resolve(mail);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (received: ${received.map((m) => m.to.join(",")).join("; ") || "none"})`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(wake);
        };
        waiters.add(wake);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
