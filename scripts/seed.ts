// `npm run seed -- --vehicles N [--name "Group name"]`: adds a dealer group with N generated
// vehicles to the configured database (DATABASE_URL, or the embedded one under DATA_DIR, through the
// running server when it has DATA_DIR open), and gives the first admin access to it. For benchmarks
// and demos at scale.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { connectDatabase } from '../src/db/database';
import { applyMigrations } from '../src/db/schema-engine';
import { seedDealerGroup } from '../src/seed/demo';
import { openToolDatabase } from './tool-database';
import { helpRequested } from './usage';

helpRequested(`
usage: npm run seed -- [--vehicles N] [--name "Group name"] [--seed S]
  Adds a dealer group of N generated vehicles (default 10000, at most 5000000) to DATABASE_URL (or the
  embedded database under DATA_DIR, through the running server when it has DATA_DIR open) and gives the first
  admin access to it. --seed makes the data repeatable.`);

const { values } = parseArgs({
  options: {
    vehicles: { type: 'string', default: '10000' },
    name: { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});
const vehicles = Number(values.vehicles);
if (!Number.isInteger(vehicles) || vehicles < 1 || vehicles > 5_000_000) {
  console.error('--vehicles must be a whole number from 1 to 5000000');
  process.exit(2);
}
const config = loadConfig();
const server = await openToolDatabase(config, 'npm run seed');
await applyMigrations(server.url);
const database = connectDatabase(server.url);
try {
  const name = values.name ?? `Benchmark Group ${vehicles}`;
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Date.now().toString(36)}`;
  const started = Date.now();
  const groupId = await seedDealerGroup(database.pool, { name, slug, vehicles, seed: Number(values.seed) });
  if (config.adminEmail) {
    const admin = await database.prisma.user.findUnique({ where: { email: config.adminEmail.toLowerCase() } });
    if (admin) await database.prisma.userDealerGroup.create({ data: { userId: admin.id, dealerGroupId: groupId } });
  }
  console.log(JSON.stringify({ dealerGroupId: groupId, name, vehicles, seconds: (Date.now() - started) / 1000 }));
} finally {
  await database.close();
  await server.stop();
}
