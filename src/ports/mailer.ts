// Outgoing email (verification and password links). Implementations: SMTP and a development outbox.

export interface MailMessage {
  /** One recipient address. */
  to: string;
  subject: string;
  /** Plain-text body (every message has one). */
  text: string;
}

export interface Mailer {
  /** Sends (or, in development, stores) the message; rejects when it cannot. */
  send(message: MailMessage): Promise<void>;
}
