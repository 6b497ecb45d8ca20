import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import { badInput } from '../../errors';
import { pageArgs } from '../../pagination';
import { inCallerGroups } from '../../tenancy';
import { emailAddress, isUuid, optionalText } from '../../validation';
import { recordAudit } from '../../audit';
import { pluginByKey } from '../plugins/registry';
import { findIntegration, issueSftpAccount } from '../integrations/integrations.service';

/** SFTP credential emails: a fresh SFTP account for a data provider, sent by SMTP or kept in the outbox; history without passwords. */

type MailServices = Pick<AppServices, 'mailer' | 'feeds'>;

export interface EmailInput {
  integration_id?: string | null;
  recipient?: string | null;
  provider_name?: string | null;
  message?: string | null;
}

const PASSWORD_PLACEHOLDER = '(a new password is generated when the email is sent)';

async function prepare(caller: Caller, input: EmailInput) {
  if (!input.integration_id) throw badInput('integration_id', 'is required');
  const integration = await findIntegration(caller, input.integration_id);
  const plugin = pluginByKey(integration.pluginKey)!;
  if (plugin.delivery !== 'sftp')
    throw badInput('integration_id', `${plugin.name} pulls its data over HTTP; it has no SFTP inbox`);
  const recipient = emailAddress('recipient', input.recipient);
  const dealer = await caller.db.dealer.findUniqueOrThrow({
    where: { id: integration.dealerId },
    select: { name: true },
  });
  return {
    integration,
    plugin,
    recipient,
    dealer,
    providerName: optionalText('provider_name', input.provider_name, 100) ?? null,
    note: optionalText('message', input.message, 2000) ?? null,
  };
}

function compose(
  prepared: Awaited<ReturnType<typeof prepare>>,
  account: { host: string; port: number | null; username: string; password: string },
) {
  const { integration, plugin, dealer, providerName, note } = prepared;
  const config = integration.config as Record<string, unknown>;
  const patterns = String(
    config.file_pattern ?? plugin.configSchema.find((field) => field.name === 'file_pattern')?.default ?? '*',
  );
  const subject = `SFTP access for the ${dealer.name} ${plugin.name} feed`;
  const text = [
    `Hello${providerName ? ` ${providerName}` : ''},`,
    '',
    `Please deliver the ${plugin.name} files for ${dealer.name} to this SFTP account:`,
    '',
    `  Host:      ${account.host}`,
    `  Port:      ${account.port ?? '(the SFTP server is not running yet; you will be told the port)'}`,
    `  Username:  ${account.username}`,
    `  Password:  ${account.password}`,
    '  Folder:    / (upload files straight into it)',
    `  Files:     ${patterns} (${plugin.formats.join(', ')})`,
    `  Schedule:  at least every ${integration.expectedCadenceHours} hours`,
    '',
    'Each file is read within a minute of its upload; a file with the same name replaces the waiting one.',
    ...(note ? ['', note] : []),
    '',
    'This password replaces any earlier one for this account. Keep it private.',
  ].join('\n');
  return { subject, text };
}

export async function previewEmail(caller: Caller, app: MailServices, input: EmailInput) {
  const prepared = await prepare(caller, input);
  const username = prepared.integration.sftpUsername ?? '(assigned when sent)';
  const host = app.feeds.sftp?.host ?? 'localhost';
  const port = app.feeds.sftp?.port ?? null;
  const { subject, text } = compose(prepared, { host, port, username, password: PASSWORD_PLACEHOLDER });
  return {
    integration_id: prepared.integration.id,
    recipient: prepared.recipient,
    subject,
    text,
    username,
    host,
    port,
    delivery: app.mailer.delivery,
  };
}

/** Issues a new password for the integration's SFTP account and emails it; without SMTP (or if SMTP fails) the message goes to the outbox. */
export async function sendEmail(caller: Caller, app: MailServices, input: EmailInput) {
  const prepared = await prepare(caller, input);
  const account = await issueSftpAccount(caller.db, app.feeds, prepared.integration.id);
  const { subject, text } = compose(prepared, account);
  const receipt = await app.mailer.send({ to: prepared.recipient, subject, text });
  const note = receipt.smtpError
    ? `the SMTP server did not take the message (${receipt.smtpError}); it was written to the outbox instead`
    : receipt.delivery === 'outbox'
      ? 'no SMTP server is configured (SMTP_URL): the message was written to the outbox for an operator to send'
      : null;
  const record = await caller.db.$transaction(async (tx) => {
    const row = await tx.sftpCredentialEmail.create({
      data: {
        dealerGroupId: prepared.integration.dealerGroupId,
        integrationId: prepared.integration.id,
        recipient: prepared.recipient,
        providerName: prepared.providerName,
        subject,
        username: account.username,
        host: account.host,
        port: account.port ?? 0,
        delivery: receipt.delivery,
        outboxFile: receipt.outboxFile,
        messageId: receipt.messageId,
        sentByUserId: caller.session.userId,
      },
    });
    await recordAudit(tx, caller, {
      action: 'sftp_credentials.sent',
      targetType: 'integration',
      targetId: prepared.integration.id,
      dealerGroupIds: [prepared.integration.dealerGroupId],
      details: { recipient: prepared.recipient, delivery: receipt.delivery },
    });
    return row;
  });
  return { ...record, note };
}

export async function emailHistory(
  caller: Caller,
  args: { integration_id?: string | null; limit?: number | null; offset?: number | null },
) {
  const { limit, offset } = pageArgs(args);
  if (args.integration_id && !isUuid(args.integration_id))
    throw badInput('integration_id', 'must be an integration id');
  const where: Prisma.SftpCredentialEmailWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    ...(args.integration_id ? { integrationId: args.integration_id } : {}),
  };
  const [total, emails] = await Promise.all([
    caller.db.sftpCredentialEmail.count({ where }),
    caller.db.sftpCredentialEmail.findMany({
      where,
      orderBy: [{ sentAt: 'desc' }, { id: 'asc' }],
      take: limit,
      skip: offset,
    }),
  ]);
  return { items: emails.map((email) => ({ ...email, note: null })), total, limit, offset };
}
