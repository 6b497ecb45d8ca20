// `npm run bench:webhooks [-- --events N --concurrency C]`: events per second from commit to delivery.
// Seeds N vehicles into a scratch database (DATABASE_URL's server if set, else an embedded one),
// points a webhook endpoint at a local receiver, then changes every vehicle's price in one
// statement (N vehicle.price_changed events, one per vehicle) and times the commit to the last
// delivery; then N changes to one vehicle (one record: delivered one at a time, in order). Every
// delivery's signature is checked with the Standard Webhooks library, and the order per vehicle.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { seedDealerGroup } from '../src/seed/demo';
import { loadOptions, startBenchApp } from './bench-app';

const USAGE = `
usage: npm run bench:webhooks -- [--events N] [--concurrency C]
  Seeds N vehicles (default 5000), then times N price changes from their commit to their delivery to a
  local receiver with C deliveries at once per instance (default 4), and N changes of one vehicle.`;

const {
  size: events,
  extra: { concurrency },
} = loadOptions({ name: 'events', default: '5000' }, USAGE, { concurrency: { default: '4' } });

const bench = await startBenchApp({
  ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RELAY_INTERVAL_MS: '20',
  WEBHOOK_CONCURRENCY: concurrency,
});
const { app } = bench;

let secret = '';
let bad = 0;
let outOfOrder = 0;
const lastPrice = new Map<string, number>();
const arrived: number[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      new Webhook(secret).verify(body, request.headers as Record<string, string>);
    } catch {
      bad += 1;
    }
    const event = JSON.parse(body) as { subject_id: string; data: { new_price: string } };
    const price = Number(event.data.new_price);
    if ((lastPrice.get(event.subject_id) ?? -Infinity) > price) outOfOrder += 1;
    lastPrice.set(event.subject_id, price);
    arrived.push(Date.now());
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

/** Waits until `count` deliveries have arrived; answers the instant of the last. */
async function deliveries(count: number): Promise<number> {
  for (const deadline = Date.now() + 600_000; Date.now() < deadline;) {
    if (arrived.length >= count) return arrived[count - 1]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`only ${arrived.length} of ${count} deliveries arrived within 10 minutes`);
}

try {
  console.log(`seeding ${events.toLocaleString('en-US')} vehicles on ${bench.engine}…`);
  const groupId = await seedDealerGroup(app.database.pool, {
    name: 'Bench',
    slug: `bench-${Date.now()}`,
    vehicles: events,
    seed: 42,
  });
  const auth = await bench.grantAndLogin(groupId);
  const created = await fetch(`${app.url}/api/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
      event_types: ['vehicle.price_changed'],
    }),
  });
  secret = ((await created.json()) as { secret: string }).secret;

  const rows: string[] = [];
  const report = (label: string, count: number, started: number, last: number) => {
    const seconds = (last - started) / 1000;
    rows.push(
      `| ${label} | ${count.toLocaleString('en-US')} | ${seconds.toFixed(2)} | ${(count / seconds).toFixed(0)} |`,
    );
  };

  // Many records: every vehicle's price moves in one statement.
  let started = Date.now();
  await app.database.pool.query('UPDATE vehicles SET price = coalesce(price, 20000) + 1 WHERE dealer_group_id = $1', [
    groupId,
  ]);
  report(
    `${events.toLocaleString('en-US')} vehicles, one price change each, one statement`,
    events,
    started,
    await deliveries(events),
  );

  // One record: its changes go out one at a time, in order.
  const single = Math.min(events, 500);
  const {
    rows: [vehicle],
  } = await app.database.pool.query<{ id: string }>('SELECT id FROM vehicles WHERE dealer_group_id = $1 LIMIT 1', [
    groupId,
  ]);
  started = Date.now();
  for (let index = 1; index <= single; index += 1)
    await app.database.pool.query('UPDATE vehicles SET price = $2 WHERE id = $1', [vehicle!.id, 50_000 + index]);
  report(
    `one vehicle, ${single} price changes in ${single} transactions`,
    single,
    started,
    await deliveries(events + single),
  );

  console.log(`\nwebhook delivery on ${bench.engine}, ${concurrency} deliveries at once, receiver on loopback\n`);
  console.log('| events | count | seconds from first commit to last delivery | events/s |');
  console.log('|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(`\nsignatures that failed to verify: ${bad}; deliveries out of order for their vehicle: ${outOfOrder}`);
} finally {
  receiver.close();
  await bench.stop();
}
