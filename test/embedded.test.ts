import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../src/db/database';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { applyMigrations } from '../src/db/schema-engine';

describe('embedded PostgreSQL server', () => {
  it("keeps concurrent clients' statements and transactions apart", async () => {
    const server = await startEmbeddedPostgres(null);
    await applyMigrations(server.url);
    const databases = Array.from({ length: 3 }, () => connectDatabase(server.url, { poolSize: 4 }));
    try {
      const work = Array.from({ length: 150 }, async (_, index) => {
        const { prisma } = databases[index % databases.length]!;
        const slug = `group-${index}`;
        if (index % 3 === 0) {
          await prisma.$transaction(async (tx) => {
            const group = await tx.dealerGroup.create({ data: { name: `Group ${index}`, slug } });
            await tx.dealer.create({ data: { dealerGroupId: group.id, name: `Rooftop ${index}`, code: `R${index}` } });
          });
        } else {
          await prisma.dealerGroup.create({ data: { name: `Group ${index}`, slug } });
        }
        const found = await prisma.dealerGroup.findMany({
          where: { slug: { in: [slug, 'nothing', 'else'] } },
          include: { dealers: true },
        });
        return [found.length, found[0]?.dealers.length ?? -1, index % 3 === 0 ? 1 : 0];
      });
      for (const [groups, dealers, expectedDealers] of await Promise.all(work)) {
        expect(groups).toBe(1);
        expect(dealers).toBe(expectedDealers);
      }
    } finally {
      await Promise.all(databases.map((database) => database.close()));
      await server.stop();
    }
  }, 30_000);

  it('delivers a notification to the other clients when it commits (one session: a LISTEN by one listens for all)', async () => {
    const server = await startEmbeddedPostgres(null);
    const clients = Array.from({ length: 3 }, () => new pg.Client({ connectionString: server.url }));
    try {
      await Promise.all(clients.map((client) => client.connect()));
      const [listener, other, sender] = clients as [pg.Client, pg.Client, pg.Client];
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(`listener ${message.channel} ${message.payload}`));
      other.on('notification', (message) => heard.push(`other ${message.channel} ${message.payload}`));
      await listener.query('LISTEN changes');
      await other.query('SELECT 1');
      await sender.query("BEGIN; SELECT pg_notify('changes', 'one'); COMMIT;");
      // Nothing is announced before its transaction commits, nor when it rolls back.
      await sender.query("BEGIN; SELECT pg_notify('changes', 'never'); ROLLBACK;");
      await expect.poll(() => heard.sort()).toEqual(['listener changes one', 'other changes one']);
      await listener.query('SELECT 1');
      expect(heard).toHaveLength(2);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
      await server.stop();
    }
  });
});
