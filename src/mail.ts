import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

/**
 * Outgoing email: SMTP when SMTP_URL is set; otherwise each message is written, complete, as an
 * .eml file to the outbox folder under DATA_DIR, so nothing is lost and an operator can send it.
 */

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  replyTo?: string | null;
}
export interface MailReceipt {
  delivery: 'smtp' | 'outbox';
  messageId: string | null;
  outboxFile: string | null;
  /** Why SMTP did not take it, when it fell back to the outbox. */ smtpError: string | null;
}

export class Mailer {
  private readonly transport: Transporter | null;

  constructor(private readonly options: { smtpUrl: string | null; from: string; dataDir: string | null }) {
    this.transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;
  }

  get delivery(): 'smtp' | 'outbox' {
    return this.transport ? 'smtp' : 'outbox';
  }

  get outboxDir(): string {
    return path.join(this.options.dataDir ?? path.join(process.cwd(), 'data'), 'outbox');
  }

  /** Sends by SMTP; with no SMTP, or when the server refuses, the message goes to the outbox instead. */
  async send(message: MailMessage): Promise<MailReceipt> {
    const envelope = {
      from: this.options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      replyTo: message.replyTo ?? undefined,
    };
    let smtpError: string | null = null;
    if (this.transport) {
      try {
        const info = await this.transport.sendMail(envelope);
        return { delivery: 'smtp', messageId: info.messageId ?? null, outboxFile: null, smtpError: null };
      } catch (error) {
        smtpError = (error as Error).message.slice(0, 300);
      }
    }
    // The stream transport builds the same RFC 5322 message SMTP would carry, without sending it.
    const built = await nodemailer
      .createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
      .sendMail(envelope);
    await mkdir(this.outboxDir, { recursive: true, mode: 0o700 });
    const file = path.join(
      this.outboxDir,
      `${new Date().toISOString().replace(/[-:.]/g, '')}-${randomUUID().slice(0, 8)}.eml`,
    );
    await writeFile(file, built.message as Buffer, { mode: 0o600 });
    return { delivery: 'outbox', messageId: built.messageId ?? null, outboxFile: path.basename(file), smtpError };
  }

  close() {
    this.transport?.close();
  }
}
