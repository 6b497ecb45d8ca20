import type { Config } from '../config';
import type { Database } from '../db/database';
import type { Logger } from '../logger';
import { hashPassword } from '../auth/passwords';
import { seedDealerGroup } from './demo';

export const DEMO_GROUP = { name: 'Summit Auto Group', slug: 'summit-auto-group' };

/**
 * First start: the demo dealer group (on an empty database, when enabled) and the first admin
 * from ADMIN_EMAIL / ADMIN_PASSWORD, with access to every dealer group that exists then.
 */
export async function bootstrap(database: Database, config: Config, logger: Logger): Promise<void> {
  const { prisma } = database;
  if (config.seedDemoData && (await prisma.dealerGroup.count()) === 0) {
    const started = Date.now();
    await seedDealerGroup(database.pool, { ...DEMO_GROUP, vehicles: config.demoVehicles });
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
