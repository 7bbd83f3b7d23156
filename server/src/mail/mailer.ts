import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Sends through SMTP_URL when set. In every case each message is also written as an .eml file under
 * <data folder>/outbox/ and logged, so the embedded default needs no mail server.
 */
export class Mailer {
  private readonly transport: Transporter | null;
  readonly outbox: string;

  constructor(
    dataDir: string,
    smtpUrl: string | undefined,
    private readonly from = 'Mitate <no-reply@mitate.local>',
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.outbox = path.join(dataDir, 'outbox');
    fs.mkdirSync(this.outbox, { recursive: true });
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  async send(mail: Mail): Promise<void> {
    const eml = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const info = await eml.sendMail({ from: this.from, ...mail });
    const file = path.join(this.outbox, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomUUID()}.eml`);
    fs.writeFileSync(file, info.message as Buffer);
    this.log(`mail to ${mail.to}: ${mail.subject} (${file})`);
    if (this.transport) await this.transport.sendMail({ from: this.from, ...mail });
  }
}
