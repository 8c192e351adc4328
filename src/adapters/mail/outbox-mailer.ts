// Development mail: each message is written to a file in the outbox directory and the log says where
// (recipient, subject, file) — not the body, whose links are secrets (auth requirement 89).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { MailMessage, Mailer } from '../../ports/mailer.js';

export interface MailLog {
  info(obj: Record<string, unknown>, msg: string): void;
}

export class OutboxMailer implements Mailer {
  constructor(
    private readonly dir: string,
    private readonly from: string,
    private readonly log: MailLog,
  ) {}

  async send(m: MailMessage): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
    const file = join(this.dir, name);
    const headers = [`From: ${this.from}`, `To: ${m.to}`, `Subject: ${m.subject}`, `Date: ${new Date().toUTCString()}`, 'Content-Type: text/plain; charset=utf-8'];
    writeFileSync(file, `${headers.join('\r\n')}\r\n\r\n${m.text.replace(/\r?\n/g, '\r\n')}`, { mode: 0o600 });
    this.log.info({ to: m.to, subject: m.subject, file }, 'email written to the outbox (development mail transport)');
  }
}
