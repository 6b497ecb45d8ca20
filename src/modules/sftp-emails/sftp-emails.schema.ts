import type { SftpCredentialEmail } from '../../generated/prisma/client';
import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { listArgs } from '../../schema-args';
import { emailHistory, previewEmail, sendEmail } from './sftp-emails.service';
import { restOperations } from '../../http/operations';

const operation = restOperations('SFTP credential emails');

/** The SFTP credential emails section of docs/operations.md: SFTP credential emails to data providers. */

type Sent = SftpCredentialEmail & { note: string | null };

const SentEmail = builder.objectRef<Sent>('SftpCredentialEmail').implement({
  description: 'An SFTP account sent to a data provider. The password is never kept.',
  fields: (t) => ({
    id: t.exposeID('id'),
    integration_id: t.exposeID('integrationId'),
    recipient: t.exposeString('recipient'),
    provider_name: t.exposeString('providerName', { nullable: true }),
    subject: t.exposeString('subject'),
    username: t.exposeString('username'),
    host: t.exposeString('host'),
    port: t.exposeInt('port'),
    delivery: t.exposeString('delivery', {
      description: 'smtp, or outbox when no SMTP server took it (the .eml file waits under DATA_DIR/outbox)',
    }),
    outbox_file: t.exposeString('outboxFile', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
    sent_by_user_id: t.exposeID('sentByUserId', { nullable: true }),
    sent_at: t.expose('sentAt', { type: 'DateTime' }),
  }),
});

const EmailPreview = builder
  .objectRef<Awaited<ReturnType<typeof previewEmail>>>('SftpCredentialEmailPreview')
  .implement({
    fields: (t) => ({
      integration_id: t.exposeID('integration_id'),
      recipient: t.exposeString('recipient'),
      subject: t.exposeString('subject'),
      text: t.exposeString('text'),
      username: t.exposeString('username'),
      host: t.exposeString('host'),
      port: t.exposeInt('port', { nullable: true }),
      delivery: t.exposeString('delivery', { description: 'How it would go: smtp or outbox.' }),
    }),
  });

const EmailPage = pageOf('SftpCredentialEmailPage', 'emails', itemsLoaded(SentEmail));

const emailArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  integration_id: t.arg.id({ required: true }),
  recipient: t.arg.string({ required: true, description: "The data provider's email address." }),
  provider_name: t.arg.string(),
  message: t.arg.string({ description: 'A note added to the email.' }),
});

builder.queryFields((t) => ({
  sftpCredentialEmails: t.field({
    ...operation('GET /sftp-credential-emails', 'List SFTP credential emails'),
    type: EmailPage,
    description: 'What was sent, when and to whom (never the password).',
    authScopes: { scope: 'integrations:read' },
    args: { integration_id: t.arg.id(), ...listArgs(t) },
    resolve: (_root, args, context) =>
      emailHistory(context, { ...args, integration_id: args.integration_id?.toString() }),
  }),
}));

builder.mutationFields((t) => ({
  previewSftpCredentialEmail: t.field({
    ...operation('POST /sftp-credential-emails/preview', 'Preview an SFTP credential email'),
    type: EmailPreview,
    description: 'The email as it would go, without sending it or changing the password.',
    authScopes: { scope: 'integrations:write' },
    args: emailArgs(t as never),
    resolve: (app, args, context) =>
      previewEmail(context, app, { ...args, integration_id: String(args.integration_id) }),
  }),
  sendSftpCredentialEmail: t.field({
    ...operation('POST /sftp-credential-emails', 'Send SFTP credentials by email', { status: 201 }),
    type: SentEmail,
    description: 'Issues a new SFTP password for the integration and emails the account to the data provider.',
    authScopes: { scope: 'integrations:write' },
    args: emailArgs(t as never),
    resolve: (app, args, context) => sendEmail(context, app, { ...args, integration_id: String(args.integration_id) }),
  }),
}));
