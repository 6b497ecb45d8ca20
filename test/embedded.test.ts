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
});
