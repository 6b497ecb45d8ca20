import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { pluginByKey } from '../modules/plugins/registry';
import { inboxOf } from '../modules/syncs/syncs.service';
import type { AppServices } from '../app-services';
import type { Config } from '../config';
import type { Database } from '../db/database';
import type { Logger } from '../logger';
import { hashPassword } from '../auth/passwords';
import { seedDealerGroup } from './demo';
import { resolveAndLink, seedActivity } from './activity';
import { PROJECT_ROOT } from '../project-root';

export const DEMO_GROUP = { name: 'Summit Auto Group', slug: 'summit-auto-group' };

/**
 * First start: the demo dealer group (on an empty database, when enabled) and the first admin
 * from ADMIN_EMAIL / ADMIN_PASSWORD, with access to every dealer group that exists then.
 */
/** Seeds the demo group into an empty database and creates the first admin; returns the demo group's id when it seeded one. */
export async function bootstrap(database: Database, config: Config, logger: Logger): Promise<string | null> {
  const { prisma } = database;
  let seeded: string | null = null;
  if (config.seedDemoData && (await prisma.dealerGroup.count()) === 0) {
    const started = Date.now();
    const dealerGroupId = await seedDealerGroup(database.pool, { ...DEMO_GROUP, vehicles: config.demoVehicles });
    const scale = config.demoVehicles / 3000;
    await seedActivity(database.pool, {
      dealerGroupId,
      calls: Math.round(4000 * scale),
      leads: Math.round(2500 * scale),
      sales: Math.round(600 * scale),
    });
    await resolveAndLink(database.prisma, dealerGroupId);
    logger.info('demo data created', {
      dealerGroup: DEMO_GROUP.name,
      vehicles: config.demoVehicles,
      ms: Date.now() - started,
    });
    seeded = dealerGroupId;
  }
  if (!config.adminEmail || !config.adminPassword) return seeded;
  const email = config.adminEmail.toLowerCase();
  if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) return seeded;
  const groups = await prisma.dealerGroup.findMany({ select: { id: true } });
  await prisma.user.create({
    data: {
      email,
      name: 'Administrator',
      role: 'admin',
      passwordHash: await hashPassword(config.adminPassword),
      dealerGroups: { create: groups.map((group) => ({ dealerGroupId: group.id })) },
    },
  });
  logger.info('first admin created', { email });
  return seeded;
}

const SAMPLE_FEEDS = path.join(PROJECT_ROOT, 'test/fixtures/feeds');

/**
 * The demo's feeds: the sample files (with their real-world mess) connected to the first rooftop
 * and waiting in their inboxes, so the first scheduler tick syncs them and the runs, row errors and
 * presumed-sold lifecycle can be explored at once.
 */
export async function seedDemoFeeds(
  app: Pick<AppServices, 'database' | 'logger' | 'feeds'>,
  dealerGroupId: string,
): Promise<void> {
  const { database, logger } = app;
  const dealer = await database.prisma.dealer.findFirst({ where: { dealerGroupId }, orderBy: { code: 'desc' } });
  if (!dealer || !existsSync(SAMPLE_FEEDS)) return;
  const feeds = [
    { pluginKey: 'homenet_inventory_csv', source: 'homenet', file: 'homenet-inventory.csv', config: {} },
    {
      pluginKey: 'call_tracking_csv',
      source: 'call_tracking',
      file: 'callrail-calls.csv',
      config: { provider: 'callrail' },
    },
    { pluginKey: 'adf_xml_leads', source: 'adf', file: 'adf-leads.xml', config: {} },
    { pluginKey: 'dms_sales_csv', source: 'dms', file: 'dms-deals.csv', config: {} },
  ];
  for (const feed of feeds) {
    const plugin = pluginByKey(feed.pluginKey)!;
    const integration = await database.prisma.integration.create({
      data: {
        dealerGroupId,
        dealerId: dealer.id,
        pluginKey: feed.pluginKey,
        name: `${plugin.name} – ${dealer.name}`,
        source: feed.source,
        config: feed.config,
        soldGraceSyncs: plugin.target === 'vehicles' ? 3 : null,
      },
    });
    const { incoming } = inboxOf(app.feeds.dataDir, integration.id);
    await mkdir(incoming, { recursive: true });
    await copyFile(path.join(SAMPLE_FEEDS, feed.file), path.join(incoming, feed.file));
  }
  logger.info('demo feeds connected; their sample files sync on the first scheduler tick', {
    dealer: dealer.name,
    feeds: feeds.length,
  });
}
