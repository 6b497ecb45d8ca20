import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { connect, FIXTURES } from './helpers/feeds';
import { inboxOf } from '../src/modules/syncs/syncs.service';

/** The real SFTP server and credential emails through a real SMTP server (POST /integrations, and the SFTP credential emails section of docs/operations.md). */
describe('SFTP delivery and credential emails', () => {
  let app: TestApp;
  let outboxApp: TestApp;
  let group: SeededGroup;
  let admin: string;
  let smtp: SMTPServer;
  const received: Array<{ to: string[]; data: string }> = [];

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => {
          data += chunk.toString('utf8');
        });
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((address) => address.address), data });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const smtpPort = (smtp.server.address() as AddressInfo).port;
    app = await startTestApp({
      SFTP_PORT: '0',
      SFTP_PUBLIC_HOST: 'sftp.dealer-data.example',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SYNC_SCHEDULER: 'false',
    });
    outboxApp = await startTestApp({ SYNC_SCHEDULER: 'false' });
    group = await seedGroup(app.database.prisma);
    admin = await group.login(app.client);
  });
  afterAll(async () => {
    await app?.stop();
    await outboxApp?.stop();
    await new Promise<void>((resolve) => smtp?.close(() => resolve()));
  });

  const sftpPort = () => app.services.feeds.sftp!.port;

  it('answers POST /integrations with an SFTP account jailed to the inbox; an uploaded file is synced at once', async () => {
    const { integration, sftp_account: account } = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: group.dealerIds[0],
    });
    expect(account).toMatchObject({ host: 'sftp.dealer-data.example', port: sftpPort(), enabled: true });
    const client = new SftpClient();
    await client.connect({
      host: '127.0.0.1',
      port: sftpPort(),
      username: account!.username,
      password: account!.password,
    });
    try {
      await client.put(readFileSync(path.join(FIXTURES, 'homenet-inventory.csv')), '/inventory_20261121.csv');
    } finally {
      await client.end();
    }
    let run: { status: string; trigger: string; file_name: string; counts: { created: number } } | undefined;
    for (let attempt = 0; attempt < 100 && run?.status !== 'succeeded'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = (await app.client.get(`/integrations/${integration.id}/syncs`, admin)).body.syncs[0];
    }
    expect(run).toMatchObject({
      status: 'succeeded',
      trigger: 'sftp',
      file_name: 'inventory_20261121.csv',
      counts: { created: 12 },
    });
    expect((await app.client.get(`/inventory?dealer_id=${group.dealerIds[0]}`, admin)).body.pagination.total).toBe(12);
    expect((await app.client.get(`/integrations/${integration.id}`, admin)).body).toMatchObject({
      last_file_name: 'inventory_20261121.csv',
    });

    // Jailed: ".." stops at the inbox root, folders do not exist, and nothing lands outside.
    const jailed = new SftpClient();
    await jailed.connect({
      host: '127.0.0.1',
      port: sftpPort(),
      username: account!.username,
      password: account!.password,
    });
    try {
      await jailed.put(Buffer.from('notes'), '/../../escape.dat');
      await expect(jailed.mkdir('/sub')).rejects.toThrow();
      await expect(jailed.put(Buffer.from('x'), '/sub/x.csv')).rejects.toThrow();
      expect((await jailed.list('/')).map((entry) => entry.name)).toEqual(['escape.dat']);
    } finally {
      await jailed.end();
    }
    expect(readdirSync(inboxOf(app.services.feeds.dataDir, integration.id).incoming)).toEqual(['escape.dat']);

    const intruder = new SftpClient();
    await expect(
      intruder.connect({
        host: '127.0.0.1',
        port: sftpPort(),
        username: account!.username,
        password: 'wrong-password',
        retries: 0,
      }),
    ).rejects.toThrow();
  });

  it('previews the credential email without sending or changing the password, sends it by SMTP, and keeps a history without the password', async () => {
    const { integration, sftp_account: first } = await connect(app, admin, {
      plugin_key: 'dms_sales_csv',
      dealer_id: group.dealerIds[1],
    });
    const preview = await app.client.post(
      '/sftp-credential-emails/preview',
      { integration_id: integration.id, recipient: 'feeds@dms-vendor.example', provider_name: 'DMS Vendor' },
      admin,
    );
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      recipient: 'feeds@dms-vendor.example',
      username: first!.username,
      delivery: 'smtp',
      subject: expect.stringContaining('SFTP access'),
    });
    expect(preview.body.text).toContain('Hello DMS Vendor');
    expect(preview.body.text).not.toContain(first!.password);
    expect(received).toHaveLength(0);

    const sent = await app.client.post(
      '/sftp-credential-emails',
      { integration_id: integration.id, recipient: 'feeds@dms-vendor.example', provider_name: 'DMS Vendor' },
      admin,
    );
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      delivery: 'smtp',
      recipient: 'feeds@dms-vendor.example',
      username: first!.username,
      port: sftpPort(),
      note: null,
    });
    expect(received).toHaveLength(1);
    expect(received[0]!.to).toEqual(['feeds@dms-vendor.example']);
    const password = /Password:\s+(\S+)/.exec(received[0]!.data)![1]!;
    expect(password).not.toBe(first!.password);
    // The emailed password works; the one shown at creation no longer does.
    const client = new SftpClient();
    await client.connect({ host: '127.0.0.1', port: sftpPort(), username: first!.username, password });
    await client.end();
    await expect(
      new SftpClient().connect({
        host: '127.0.0.1',
        port: sftpPort(),
        username: first!.username,
        password: first!.password,
        retries: 0,
      }),
    ).rejects.toThrow();

    const history = await app.client.get(`/sftp-credential-emails?integration_id=${integration.id}`, admin);
    expect(history.body.emails).toEqual([
      expect.objectContaining({ recipient: 'feeds@dms-vendor.example', delivery: 'smtp' }),
    ]);
    expect(JSON.stringify(history.body)).not.toContain(password);
    const stored = await app.database.pool.query(
      'SELECT row_to_json(e)::text AS row FROM sftp_credential_emails e WHERE integration_id = $1',
      [integration.id],
    );
    expect(stored.rows[0].row).not.toContain(password);
    expect((await app.client.get('/logs/audit?action=sftp_credentials.sent', admin)).body.events[0]).toMatchObject({
      target_id: integration.id,
    });
    const refused = await app.client.post(
      '/sftp-credential-emails',
      { integration_id: integration.id, recipient: 'not-an-address' },
      admin,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('recipient');
  });

  it('with no SMTP configured writes the message to the outbox and says so: nothing is lost', async () => {
    const otherGroup = await seedGroup(outboxApp.database.prisma);
    const token = await otherGroup.login(outboxApp.client);
    const created = await outboxApp.client.post(
      '/integrations',
      { plugin_key: 'adf_xml_leads', dealer_id: otherGroup.dealerIds[0] },
      token,
    );
    expect(created.body.sftp_account).toMatchObject({ enabled: false, port: null });
    const sent = await outboxApp.client.post(
      '/sftp-credential-emails',
      { integration_id: created.body.integration.id, recipient: 'leads@crm.example' },
      token,
    );
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({
      delivery: 'outbox',
      outbox_file: expect.stringMatching(/\.eml$/),
      note: expect.stringContaining('SMTP_URL'),
    });
    const outbox = path.join(outboxApp.dataDir, 'outbox');
    expect(readdirSync(outbox)).toEqual([sent.body.outbox_file]);
    const message = readFileSync(path.join(outbox, sent.body.outbox_file), 'utf8');
    expect(message).toMatch(/^To: leads@crm\.example$/m);
    expect(message).toMatch(/Password:\s+\S+/);
  });
});
