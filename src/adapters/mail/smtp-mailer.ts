// Mail through an SMTP server (nodemailer), configured by one URL (mail.smtpUrl). nodemailer is loaded
// with the first message, not at start (~0.1-0.25 s of a server's start-up: issue 29).
import type { Transporter } from 'nodemailer';
import type { MailMessage, Mailer } from '../../ports/mailer.js';

export class SmtpMailer implements Mailer {
  #transport: Promise<Transporter> | null = null;
  constructor(
    private readonly smtpUrl: string,
    private readonly from: string,
  ) {}
  #get(): Promise<Transporter> {
    return (this.#transport ??= import('nodemailer').then((m) => m.default.createTransport(this.smtpUrl)));
  }
  async send(m: MailMessage): Promise<void> {
    await (await this.#get()).sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text });
  }
  close(): void {
    void this.#transport?.then((t) => t.close());
  }
}
