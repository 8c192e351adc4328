// Mail through an SMTP server (nodemailer), configured by one URL (mail.smtpUrl).
import nodemailer from 'nodemailer';
import type { MailMessage, Mailer } from '../../ports/mailer.js';

export class SmtpMailer implements Mailer {
  readonly #transport;
  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.#transport = nodemailer.createTransport(smtpUrl);
  }
  async send(m: MailMessage): Promise<void> {
    await this.#transport.sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text });
  }
  close(): void {
    this.#transport.close();
  }
}
