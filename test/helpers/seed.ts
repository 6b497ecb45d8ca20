import { randomUUID } from 'node:crypto';
import type { Db } from '../../src/db/database';
import { hashPassword } from '../../src/auth/passwords';
import { withCheckDigit } from '../../src/modules/inventory/vin';
import type { Role } from '../../src/auth/scopes';
import type { ApiClient } from './app';

/** Seed builders: unique dealer groups, rooftops, users and vehicles, so suites never collide. */

const PASSWORD_HASH = hashPassword('correct horse battery staple');
export const TEST_PASSWORD = 'correct horse battery staple';

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter += 1)}-${randomUUID().slice(0, 6)}`;

export function testVin(index: number, wmi = '1HG'): string {
  const serial = String(index).padStart(6, '0');
  const vds = randomUUID()
    .replace(/[^0-9]/g, '')
    .padEnd(5, '7')
    .slice(0, 5);
  return withCheckDigit(`${wmi}${vds}0T${String.fromCharCode(65 + (index % 8))}${serial}`.replace(/[IOQ]/g, 'A'));
}

export interface VehicleSeed {
  vin?: string;
  make?: string;
  model?: string;
  trim?: string | null;
  year?: number;
  price?: string | null;
  msrp?: string | null;
  status?: 'available' | 'pending' | 'in_transit' | 'sold' | 'presumed_sold';
  condition?: 'new' | 'used' | 'certified';
  bodyStyle?: string | null;
  mileage?: number | null;
  daysOnLot?: number;
  soldDaysAgo?: number;
  stockNumber?: string;
  dealer?: number;
  sources?: Array<{ source: string; data: Record<string, unknown> }>;
  fieldSources?: Record<string, string>;
  updatedAt?: Date;
}

export interface SeededGroup {
  groupId: string;
  dealerIds: string[];
  vehicles: Array<{ id: string; vin: string }>;
  users: Record<string, { id: string; email: string }>;
  login(client: ApiClient, user?: string): Promise<string>;
}

const dayStart = (daysAgo: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - daysAgo * 86_400_000);
};

export async function seedGroup(
  db: Db,
  options: { dealers?: number; vehicles?: VehicleSeed[]; users?: Record<string, Role> } = {},
): Promise<SeededGroup> {
  const slug = unique('group');
  const group = await db.dealerGroup.create({ data: { name: `Group ${slug}`, slug } });
  const dealerIds: string[] = [];
  for (let index = 0; index < (options.dealers ?? 2); index += 1) {
    const dealer = await db.dealer.create({
      data: { dealerGroupId: group.id, name: `Rooftop ${index + 1} ${slug}`, code: `R${index + 1}` },
    });
    dealerIds.push(dealer.id);
  }
  const vehicles: Array<{ id: string; vin: string }> = [];
  for (const [index, seed] of (options.vehicles ?? []).entries()) {
    const vin = seed.vin ?? testVin(counter * 1000 + index);
    const created = await db.vehicle.create({
      data: {
        dealerGroupId: group.id,
        dealerId: dealerIds[seed.dealer ?? 0] as string,
        vin,
        stockNumber: seed.stockNumber ?? `S${index}`,
        year: seed.year ?? 2022,
        make: seed.make ?? 'Honda',
        model: seed.model ?? 'Civic',
        trim: seed.trim ?? null,
        bodyStyle: seed.bodyStyle ?? 'Sedan',
        condition: seed.condition ?? 'used',
        mileage: seed.mileage ?? 20000,
        msrp: seed.msrp ?? null,
        price: seed.price === undefined ? '20000.00' : seed.price,
        status: seed.status ?? 'available',
        dateInStock: dayStart(seed.daysOnLot ?? 10),
        soldAt: seed.soldDaysAgo === undefined ? null : new Date(dayStart(seed.soldDaysAgo).getTime() + 12 * 3_600_000),
        fieldSources: seed.fieldSources ?? {},
        sourceRecords: seed.sources
          ? { create: seed.sources.map((source) => ({ source: source.source, data: source.data as object })) }
          : undefined,
      },
    });
    if (seed.updatedAt)
      await db.$executeRaw`UPDATE vehicles SET updated_at = ${seed.updatedAt} WHERE id = ${created.id}::uuid`;
    vehicles.push({ id: created.id, vin });
  }
  const users: SeededGroup['users'] = {};
  for (const [name, role] of Object.entries(options.users ?? { admin: 'admin' })) {
    const email = `${name}.${slug}@example.com`;
    const user = await db.user.create({
      data: {
        email,
        name,
        role: role as Role,
        passwordHash: await PASSWORD_HASH,
        dealerGroups: { create: { dealerGroupId: group.id } },
      },
    });
    users[name] = { id: user.id, email };
  }
  return {
    groupId: group.id,
    dealerIds,
    vehicles,
    users,
    async login(client, user = Object.keys(users)[0] as string) {
      const response = await client.post('/auth/login', { email: users[user]?.email, password: TEST_PASSWORD });
      if (response.status !== 200) throw new Error(`login failed: ${JSON.stringify(response.body)}`);
      return response.body.token as string;
    },
  };
}

/** Calls, leads, sales and sources for a seeded group, written directly (setup, not the API under test). */
export async function seedActivity(
  db: Db,
  group: SeededGroup,
  options: {
    sources?: Array<{ name: string; category?: string; costPerMonth?: string }>;
    calls?: Array<
      Partial<{
        dealer: number;
        provider: string;
        startedAt: Date;
        durationSeconds: number;
        status: 'answered' | 'missed' | 'voicemail';
        direction: 'inbound' | 'outbound';
        callerNumber: string | null;
        rawSource: string | null;
        firstTimeCaller: boolean;
        department: string;
      }>
    >;
    leads?: Array<
      Partial<{
        dealer: number;
        receivedAt: Date;
        type: 'new' | 'used' | 'service' | 'finance' | 'trade_in';
        status: 'new' | 'contacted' | 'appointment' | 'showed' | 'sold' | 'lost';
        email: string | null;
        phone: string | null;
        rawSource: string | null;
        assignee: string | null;
        vehicleVin: string | null;
      }>
    >;
    sales?: Array<
      Partial<{
        dealer: number;
        dealNumber: string;
        soldAt: Date;
        salesperson: string;
        contractType: 'cash' | 'finance' | 'lease';
        salePrice: string;
        frontGross: string;
        backGross: string;
        customerEmail: string | null;
        customerPhone: string | null;
        vin: string | null;
      }>
    >;
  },
) {
  const sources: string[] = [];
  for (const source of options.sources ?? []) {
    const created = await db.source.create({
      data: {
        dealerGroupId: group.groupId,
        name: source.name,
        category: (source.category ?? 'paid_search') as 'paid_search',
        costPerMonth: source.costPerMonth,
      },
    });
    sources.push(created.id);
  }
  const dealerOf = (index = 0) => group.dealerIds[index] as string;
  const calls = await Promise.all(
    (options.calls ?? []).map((call, index) =>
      db.call.create({
        data: {
          dealerGroupId: group.groupId,
          dealerId: dealerOf(call.dealer),
          provider: call.provider ?? 'callrail',
          externalId: `call-${index}-${randomUUID()}`,
          startedAt: call.startedAt ?? new Date(Date.now() - index * 3_600_000),
          durationSeconds: call.durationSeconds ?? 60,
          status: call.status ?? 'answered',
          direction: call.direction ?? 'inbound',
          callerNumber:
            call.callerNumber === undefined ? `+1303555${String(1000 + index).slice(-4)}` : call.callerNumber,
          rawSource: call.rawSource === undefined ? 'Google Ads' : call.rawSource,
          firstTimeCaller: call.firstTimeCaller ?? false,
          department: call.department ?? 'sales',
        },
        select: { id: true },
      }),
    ),
  );
  const leads = await Promise.all(
    (options.leads ?? []).map((lead, index) =>
      db.lead.create({
        data: {
          dealerGroupId: group.groupId,
          dealerId: dealerOf(lead.dealer),
          provider: 'adf',
          externalId: `lead-${index}-${randomUUID()}`,
          receivedAt: lead.receivedAt ?? new Date(Date.now() - index * 3_600_000),
          type: lead.type ?? 'used',
          status: lead.status ?? 'new',
          email: lead.email === undefined ? `buyer${index}@example.com` : lead.email,
          phone: lead.phone ?? null,
          rawSource: lead.rawSource === undefined ? 'Cars.com' : lead.rawSource,
          assignee: lead.assignee ?? null,
          vehicleVin: lead.vehicleVin ?? null,
          firstName: 'Pat',
          lastName: `Buyer${index}`,
        },
        select: { id: true },
      }),
    ),
  );
  const sales = await Promise.all(
    (options.sales ?? []).map((sale, index) =>
      db.sale.create({
        data: {
          dealerGroupId: group.groupId,
          dealerId: dealerOf(sale.dealer),
          dealNumber: sale.dealNumber ?? `D${index}-${randomUUID().slice(0, 6)}`,
          soldAt: sale.soldAt ?? new Date(),
          salesperson: sale.salesperson ?? 'Alex Rivera',
          contractType: sale.contractType ?? 'finance',
          vehicleCondition: 'used',
          salePrice: sale.salePrice ?? '25000.00',
          frontGross: sale.frontGross ?? '1500.00',
          backGross: sale.backGross ?? '900.00',
          customerEmail: sale.customerEmail ?? null,
          customerPhone: sale.customerPhone ?? null,
          vin: sale.vin ?? null,
        },
        select: { id: true },
      }),
    ),
  );
  return {
    sources,
    calls: calls.map((row) => row.id),
    leads: leads.map((row) => row.id),
    sales: sales.map((row) => row.id),
  };
}
