import { builder } from '../../builder';

/** Dealer groups (tenants) and dealers (rooftops) as other modules nest them. */

export const DealerGroup = builder.prismaObject('DealerGroup', {
  description: 'A tenant: a dealer group and its rooftops.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    dealers: t.relation('dealers', { query: { where: { archivedAt: null }, orderBy: { name: 'asc' } } }),
  }),
});

export const Dealer = builder.prismaObject('Dealer', {
  description: 'A rooftop: one dealership location.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    name: t.exposeString('name'),
    code: t.exposeString('code'),
    street: t.exposeString('street', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    state: t.exposeString('state', { nullable: true }),
    postal_code: t.exposeString('postalCode', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    website: t.exposeString('website', { nullable: true }),
    time_zone: t.exposeString('timeZone'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
