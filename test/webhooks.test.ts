import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';
import { createKey } from './helpers/keys';
import { GROUP_LANES } from '../src/modules/webhooks/webhook-dispatcher';

/**
 * Webhooks, from the receiver's side: a local server records what arrives; the signatures are
 * checked with the Standard Webhooks library; retries, order per record, redelivery, secret
 * rotation, and an endpoint disabled once its retry window has passed.
 */

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; subject_id: string | null; data: Record<string, unknown> };
}

/** A receiver that answers each request with the next status of `plan` (then 200) and keeps what it got. */
async function startReceiver() {
  const received: Received[] = [];
  let plan: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: request.headers, body, event: JSON.parse(body) });
      response.writeHead(plan.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    answerNext: (statuses: number[]) => {
      plan = [...statuses];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

// On a server, an event is handed out once every write transaction begun before it has ended, other
// test files' included: waits are generous, and so is each test's time.
vi.setConfig({ testTimeout: 120_000 });

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 60_000): Promise<NonNullable<T>> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const DELIVERING = {
  WEBHOOK_DELIVERY: 'true',
  WEBHOOK_RETRY_BASE_MS: '150',
  WEBHOOK_RELAY_INTERVAL_MS: '50',
  ALLOW_PRIVATE_NETWORKS: 'true',
};

describe('webhooks', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;
  let receiver: Receiver;

  beforeAll(async () => {
    app = await startTestApp(DELIVERING);
    group = await seedGroup(app.database.prisma, { dealers: 2, vehicles: [{}, {}] });
    admin = await group.login(app.client);
  });
  afterAll(async () => {
    await app?.stop();
  });
  afterEach(async () => {
    await receiver?.close();
  });

  async function endpoint(body: Record<string, unknown>) {
    const created = await app.client.post('/webhook-endpoints', { url: receiver.url, ...body }, admin);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { endpoint: { id: string }; secret: string };
  }

  it('signs each event as the Standard Webhooks specification says, with the secret shown once', async () => {
    receiver = await startReceiver();
    const { endpoint: made, secret } = await endpoint({ event_types: ['lead.created'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const shown = await app.client.get(`/webhook-endpoints/${made.id}`, admin);
    expect(shown.body).toMatchObject({ id: made.id, url: receiver.url, event_types: ['lead.created'], enabled: true });
    expect(JSON.stringify(shown.body)).not.toContain(secret);

    await seedActivity(app.database.prisma, group, { leads: [{ dealer: 0 }], calls: [{ dealer: 0 }] });
    const [got] = await until('the lead', () => (receiver.received.length ? receiver.received : null));
    expect(got!.event.type).toBe('lead.created');
    expect(got!.headers['webhook-id']).toBe(got!.event.id);
    // The library receivers use accepts it, and refuses it with another secret or another body.
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
      id: got!.event.id,
    });
    expect(() =>
      new Webhook(`whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`).verify(
        got!.body,
        got!.headers as Record<string, string>,
      ),
    ).toThrow();
    expect(() =>
      new Webhook(secret).verify(got!.body.replace('lead', 'LEAD'), got!.headers as Record<string, string>),
    ).toThrow();
    // The call was not asked for.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received.map((entry) => entry.event.type)).toEqual(['lead.created']);
  });

  it('retries a receiver that fails: 500 twice then 200 delivers the same event three times, all in the log', async () => {
    receiver = await startReceiver();
    receiver.answerNext([500, 500]);
    const { endpoint: made } = await endpoint({ event_types: ['sale.created'] });
    await seedActivity(app.database.prisma, group, { sales: [{ dealer: 1 }] });
    await until('three attempts', () => receiver.received.length >= 3);
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size).toBe(1);
    const log = await until('the delivered state', async () => {
      const deliveries = await app.client.get(`/webhook-endpoints/${made.id}/deliveries`, admin);
      return deliveries.body.deliveries[0]?.status === 'delivered' ? deliveries.body.deliveries[0] : null;
    });
    expect(log).toMatchObject({ event_type: 'sale.created', attempts: 3, response_status: 200, next_attempt_at: null });
    const detail = await app.client.graphql(
      `query ($id: ID!) { webhookDeliveries(id: $id) { deliveries { attempt_log { response_status next_attempt_at } } } }`,
      { id: made.id },
      admin,
    );
    const attempts = detail.body.data.webhookDeliveries.deliveries[0].attempt_log;
    expect(attempts.map((attempt: { response_status: number }) => attempt.response_status)).toEqual([500, 500, 200]);
    expect(attempts[0].next_attempt_at).not.toBeNull();

    // Delivered again on demand.
    const again = await app.client.post(`/webhook-endpoints/${made.id}/deliveries/${log.id}/redeliver`, {}, admin);
    expect(again.status).toBe(202);
    await until('the redelivery', () => receiver.received.length >= 4);
    expect(receiver.received[3]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
  });

  it("delivers one vehicle's events in order, even when an attempt fails in between", async () => {
    receiver = await startReceiver();
    receiver.answerNext([503]);
    await endpoint({ event_types: ['vehicle.price_changed'] });
    const {
      rows: [{ id: vehicle }],
    } = await app.database.pool.query('SELECT id FROM vehicles WHERE dealer_group_id = $1 ORDER BY vin LIMIT 1', [
      group.groupId,
    ]);
    for (const price of ['19001.00', '19002.00', '19003.00'])
      await app.database.pool.query('UPDATE vehicles SET price = $2 WHERE id = $1', [vehicle, price]);
    await until(
      'the three changes',
      () =>
        receiver.received.filter((entry) => entry.headers['webhook-id'] !== receiver.received[0]!.headers['webhook-id'])
          .length >= 2,
    );
    const delivered = [...new Map(receiver.received.map((entry) => [entry.event.id, entry.event])).values()];
    expect(delivered.map((event) => event.data.new_price)).toEqual(['19001.00', '19002.00', '19003.00']);
    // The first was tried twice before the others went.
    expect(receiver.received.map((entry) => entry.event.data.new_price)).toEqual([
      '19001.00',
      '19001.00',
      '19002.00',
      '19003.00',
    ]);
  });

  it('signs with the old secret too during the grace period of a rotation, and sends a test event', async () => {
    receiver = await startReceiver();
    const { endpoint: made, secret: old } = await endpoint({ event_types: ['lead.created'] });
    const rotated = await app.client.post(`/webhook-endpoints/${made.id}/rotate-secret`, { grace_hours: 1 }, admin);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(old);
    const test = await app.client.post(`/webhook-endpoints/${made.id}/test`, {}, admin);
    expect(test.status).toBe(202);
    const [got] = await until('the test event', () => (receiver.received.length ? receiver.received : null));
    expect(got!.event.type).toBe('webhook.test');
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh])
      expect(() => new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).not.toThrow();
  });

  it('refuses bad endpoints with a 400 naming the field, and hides other groups endpoints', async () => {
    receiver = await startReceiver();
    for (const [body, field] of [
      [{ url: 'ftp://example.com/x', event_types: ['lead.created'] }, 'url'],
      [{ url: 'not a url', event_types: ['lead.created'] }, 'url'],
      [{ url: 'https://example.com/x', event_types: ['lead.exploded'] }, 'event_types'],
      [{ url: 'https://example.com/x', event_types: [] }, 'event_types'],
      [{ url: 'https://example.com/x', event_types: ['lead.created'], dealer_ids: ['42'] }, 'dealer_ids'],
    ] as const) {
      const response = await app.client.post('/webhook-endpoints', body, admin);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    const { endpoint: made } = await endpoint({ event_types: ['lead.created'] });
    const other = await seedGroup(app.database.prisma, { dealers: 1 });
    const otherAdmin = await other.login(app.client);
    expect((await app.client.get(`/webhook-endpoints/${made.id}`, otherAdmin)).status).toBe(404);
    expect((await app.client.get('/webhook-endpoints', otherAdmin)).body.endpoints).toEqual([]);
    expect(
      (await app.client.request('DELETE', `/api/v1/webhook-endpoints/${made.id}`, { token: otherAdmin })).status,
    ).toBe(404);
    // A group has at most 20 endpoints.
    for (let index = 0; index < 20; index += 1) {
      const created = await app.client.post(
        '/webhook-endpoints',
        { url: `https://example.com/hook-${index}`, event_types: ['lead.created'] },
        otherAdmin,
      );
      expect(created.status).toBe(201);
    }
    const beyond = await app.client.post(
      '/webhook-endpoints',
      { url: 'https://example.com/hook-21', event_types: ['lead.created'] },
      otherAdmin,
    );
    expect(beyond.status).toBe(409);
    expect(beyond.body.error.message).toContain('20');
  });

  it("keeps one group's slow receiver to its own lanes, so another group's events go out meanwhile", async () => {
    receiver = await startReceiver();
    let inFlight = 0;
    let most = 0;
    let slowDone = 0;
    const slow = createServer((request, response) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      request.resume();
      setTimeout(() => {
        inFlight -= 1;
        slowDone += 1;
        response.writeHead(200).end('ok');
      }, 700);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const busy = await seedGroup(app.database.prisma, { dealers: 1 });
      const busyAdmin = await busy.login(app.client);
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
      expect(
        (await app.client.post('/webhook-endpoints', { url, event_types: ['lead.created'] }, busyAdmin)).status,
      ).toBe(201);
      await endpoint({ event_types: ['call.created'] });
      // Six leads (six subjects) for the slow receiver, then one call for ours.
      await seedActivity(app.database.prisma, busy, { leads: Array.from({ length: 6 }, () => ({ dealer: 0 })) });
      await until('the slow receiver busy', () => inFlight > 0);
      await seedActivity(app.database.prisma, group, { calls: [{ dealer: 0 }] });
      await until('our call', () => receiver.received.length > 0);
      await until('the slow receiver done', () => slowDone === 6);
      expect(most).toBeLessThanOrEqual(GROUP_LANES);
    } finally {
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it("sends a partner's endpoint only the events its links allow, and stops when a link goes", async () => {
    receiver = await startReceiver();
    const partner = (await app.client.post('/partners', { name: 'Lead Router', kind: 'vendor' }, admin)).body.id;
    const link = (dealerId: string) =>
      app.client.post(
        `/partners/${partner}/dealers`,
        { dealer_id: dealerId, relationship_type: 'crm', data_permissions: ['leads'] },
        admin,
      );
    expect((await link(group.dealerIds[0]!)).status).toBe(201);
    const key = (
      await createKey(app.client, admin, {
        name: 'router',
        scopes: ['leads:read', 'calls:read', 'webhooks:write'],
        partnerId: partner,
      })
    ).key;
    const made = await app.client.post(
      '/webhook-endpoints',
      { url: receiver.url, event_types: ['lead.created', 'call.created'] },
      key,
    );
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    // Leads at both rooftops and a call at the linked one: only the linked rooftop's lead is the partner's.
    const first = await seedActivity(app.database.prisma, group, {
      leads: [{ dealer: 1 }, { dealer: 0 }],
      calls: [{ dealer: 0 }],
    });
    await until('the lead', () => receiver.received.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received.map((entry) => [entry.event.type, entry.event.subject_id])).toEqual([
      ['lead.created', first.leads[1]],
    ]);
    // A lead the receiver refuses waits for its retry; the link goes meanwhile: the retry is not sent.
    receiver.answerNext([500, 500, 500, 500, 500]);
    const refused = await seedActivity(app.database.prisma, group, { leads: [{ dealer: 0 }] });
    await until('the refused attempt', () => receiver.received.length === 2);
    const unlinked = await app.client.request('DELETE', `/api/v1/partners/${partner}/dealers/${group.dealerIds[0]}`, {
      token: admin,
    });
    expect(unlinked.status).toBe(200);
    const stopped = await until('the retry withheld', async () => {
      const log = await app.client.get(`/webhook-endpoints/${made.body.endpoint.id}/deliveries`, admin);
      return (log.body.deliveries as Array<{ status: string; error: string | null; event_id: string }>).find(
        (delivery) => delivery.status === 'failed' && delivery.error?.includes('no longer allow'),
      );
    });
    expect(receiver.received.at(-1)!.event.subject_id).toBe(refused.leads[0]);
    expect(stopped).toBeTruthy();
    const attempts = receiver.received.length;
    // New leads at the unlinked rooftop are not handed to the partner at all.
    await seedActivity(app.database.prisma, group, { leads: [{ dealer: 0 }] });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(receiver.received).toHaveLength(attempts);
  });
});

describe('an endpoint failing past its retry window', () => {
  it('is disabled and its group admins are emailed; enabled again, it receives new events', async () => {
    const app = await startTestApp({ ...DELIVERING, WEBHOOK_RETRY_HOURS: '0' });
    const receiver = await startReceiver();
    try {
      const group = await seedGroup(app.database.prisma, { dealers: 1 });
      const admin = await group.login(app.client);
      receiver.answerNext([500]);
      const made = await app.client.post(
        '/webhook-endpoints',
        { url: receiver.url, event_types: ['call.created'] },
        admin,
      );
      await seedActivity(app.database.prisma, group, { calls: [{ dealer: 0 }] });
      const disabled = await until('the endpoint disabled', async () => {
        const shown = await app.client.get(`/webhook-endpoints/${made.body.endpoint.id}`, admin);
        return shown.body.enabled === false ? shown.body : null;
      });
      expect(disabled.disabled_reason).toContain('answered 500');
      const mail = await until('the email', () => {
        const dir = path.join(app.dataDir, 'outbox');
        const files = (() => {
          try {
            return readdirSync(dir);
          } catch {
            return [];
          }
        })();
        return files
          .map((file) => readFileSync(path.join(dir, file), 'utf8'))
          .find((text) => text.includes('A webhook endpoint was disabled') && text.includes(group.users.admin!.email));
      });
      expect(mail).toContain(group.users.admin!.email);
      // Nothing goes to a disabled endpoint; enabled again, the next events do.
      await seedActivity(app.database.prisma, group, { calls: [{ dealer: 0 }] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).toHaveLength(1);
      const enabled = await app.client.request('PATCH', `/api/v1/webhook-endpoints/${made.body.endpoint.id}`, {
        token: admin,
        body: { enabled: true },
      });
      expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
      await seedActivity(app.database.prisma, group, { calls: [{ dealer: 0 }] });
      await until('the next call', () => receiver.received.length === 2);
    } finally {
      await receiver.close();
      await app.stop();
    }
  });
});

const external = inject('externalDatabase');
describe.skipIf(!external)('a server stopped after a commit', () => {
  it('delivers the event once another instance starts', async () => {
    const receiver = await startReceiver();
    // Instances share the key ring that seals the signing secrets.
    const shared = { ...DELIVERING, CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}` };
    const first = await startTestApp(shared);
    let second: TestApp | null = null;
    try {
      const group = await seedGroup(first.database.prisma, { dealers: 1 });
      const admin = await group.login(first.client);
      await first.client.post('/webhook-endpoints', { url: receiver.url, event_types: ['sale.created'] }, admin);
      await first.stop();
      // Written while no instance runs.
      const outside = new pg.Client({ connectionString: first.databaseUrl });
      await outside.connect();
      await outside.query(
        `INSERT INTO sales (id, dealer_group_id, dealer_id, deal_number, sold_at, salesperson, contract_type, vehicle_condition,
           sale_price, front_gross, back_gross, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 'OUTSIDE-1', now(), 'Sam Lee', 'cash', 'used', 20000, 1000, 500, now())`,
        [group.groupId, group.dealerIds[0]],
      );
      await outside.end();
      expect(receiver.received).toEqual([]);
      second = await startTestApp(shared);
      await until('the sale', () => receiver.received.some((entry) => entry.event.type === 'sale.created'));
    } finally {
      await receiver.close();
      await second?.stop();
    }
  });
});
