import type { Config } from '../config';
import type { Database } from '../db/database';
import type { Logger } from '../logger';
import { hashPassword } from '../auth/passwords';
import { seedDealerGroup } from './demo';
import { resolveAndLink, seedActivity } from './activity';

export const DEMO_GROUP = { name: 'Summit Auto Group', slug: 'summit-auto-group' };

/**
 * First start: the demo dealer group (on an empty database, when enabled) and the first admin
 * from ADMIN_EMAIL / ADMIN_PASSWORD, with access to every dealer group that exists then.
 */
export async function bootstrap(database: Database, config: Config, logger: Logger): Promise<void> {
  const { prisma } = database;
  if (config.seedDemoData && (await prisma.dealerGroup.count()) === 0) {
    const started = Date.now();
    const dealerGroupId = await seedDealerGroup(database.pool, { ...DEMO_GROUP, vehicles: config.demoVehicles });
    const scale = config.demoVehicles / 3000;
    await seedActivity(database.pool, { dealerGroupId, calls: Math.round(4000 * scale), leads: Math.round(2500 * scale), sales: Math.round(600 * scale) });
    await resolveAndLink(database.prisma, dealerGroupId);
    logger.info('demo data created', { dealerGroup: DEMO_GROUP.name, vehicles: config.demoVehicles, ms: Date.now() - started });
  }
  if (!config.adminEmail || !config.adminPassword) return;
  const email = config.adminEmail.toLowerCase();
  if (await prisma.user.findUnique({ where: { email }, select: { id: true } })) return;
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
}
