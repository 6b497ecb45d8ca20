// The five inventory questions the benchmark asks, each in every target's own language: the best
// hand-written SQL for it on these tables (as a PostgreSQL expert would write it, using only the
// indexes the schema has), PostGraphile's GraphQL, our REST query string and our GraphQL variables;
// plus a plain reference statement with the product's exact semantics, run once to check answers.

/** One statement for pg, prepared once per connection under its name. */
export interface Statement {
  name: string;
  text: string;
  values: unknown[];
}

export interface BestSql {
  /** The exact total. */
  count: Statement;
  /** The page of 25, picked in index order, then joined to dealers for the name. */
  page: Statement;
  /** When the fast page cannot be trusted (told by the count row and the page), this one answers instead. */
  fallback?: { when(count: Record<string, unknown>, rows: unknown[]): boolean; statement: Statement };
}

export interface Shape {
  key: string;
  /** A few words for the summary. */
  label: string;
  title: string;
  offset: number;
  best: BestSql;
  /** Where the best SQL is cleverer than the plain statement, in a few words for the table. */
  bestNote: string;
  /** The product's semantics in plain SQL: the total, and the page's VINs. */
  reference: { count: string; page: string; values: unknown[] };
  rest: Record<string, string>;
  graphql: Record<string, unknown>;
  postgraphile: { query: string; variables: Record<string, unknown>; note: string };
}

export const PAGE = 25;

/** Days on lot as the product computes it: to today, or to the sale once sold (UTC dates). */
const DAYS_ON_LOT = `((COALESCE(v.sold_at, now()) AT TIME ZONE 'UTC')::date - v.date_in_stock)`;

/** What the page carries: every field of the list shape, days on lot, and the dealer's name. */
const COLUMNS = `v.id, v.vin, v.stock_number, v.year, v.make, v.model, v.trim, v.body_style, v.condition, v.mileage,
  v.exterior_color, v.interior_color, v.msrp::text AS msrp, v.price::text AS price, v.internet_price::text AS internet_price,
  v.status, ${DAYS_ON_LOT} AS days_on_lot, v.date_in_stock::text AS date_in_stock, v.sold_at, v.photos, v.dealer_id,
  v.created_at, v.updated_at, d.name AS dealer_name`;

/** The product's free-text match (inventory.filters.ts): VIN, stock number, make, model, trim, or "year make model". */
const Q_MATCH = `(v.vin ILIKE $2 OR v.stock_number ILIKE $2 OR v.make ILIKE $2 OR v.model ILIKE $2 OR v.trim ILIKE $2
  OR (v.year::text || ' ' || v.make || ' ' || v.model) ILIKE $2)`;
/** The searchable fields as the trigram index on vehicles has them. */
const SEARCH_TEXT = `(v.vin || chr(1) || coalesce(v.stock_number, '') || chr(1) || v.year::text || ' ' || v.make::text || ' ' || v.model::text || chr(1) || coalesce(v.trim, ''))`;

/**
 * Plain statements with the product's semantics: its WHERE and ORDER BY (inventory.filters.ts), the
 * id breaking ties in the direction of the last key as SQL reads it (descending for `-updated_at`;
 * ascending for days on lot on the lot, read as the stock-in date ascending).
 */
const reference = (where: string, orderBy: string, offset: number, values: unknown[], tieBreak = 'v.id ASC') => ({
  count: `SELECT count(*)::int AS total FROM vehicles v WHERE v.dealer_group_id = $1 AND ${where}`,
  page: `SELECT v.vin FROM vehicles v WHERE v.dealer_group_id = $1 AND ${where}
    ORDER BY ${orderBy}, ${tieBreak} LIMIT ${PAGE} OFFSET ${offset}`,
  values,
});

/** PostGraphile's fields for the same answer (its names; days on lot is not a column it has). */
const PG_NODE = `rowId vin stockNumber year make model trim bodyStyle condition mileage exteriorColor interiorColor
  msrp price internetPrice status dateInStock soldAt photos dealerId createdAt updatedAt dealerByDealerIdAndDealerGroupId { rowId name }`;

const postgraphileQuery = (variables: string, args: string) =>
  `query Page($group: UUID!${variables}) { allVehicles(${args}) { totalCount nodes { ${PG_NODE} } } }`;

/** Our GraphQL query: one document, each shape sets the variables it needs. */
export const GRAPHQL_QUERY = `query Page($make: [String!], $status: [String!], $q: String, $price_min: Money, $price_max: Money,
  $updated_since: DateTime, $sort: String, $offset: Int) {
  inventory(make: $make, status: $status, q: $q, price_min: $price_min, price_max: $price_max,
    updated_since: $updated_since, sort: $sort, offset: $offset, limit: ${PAGE}) {
    pagination { total limit offset }
    vehicles { id vin stock_number year make model trim body_style condition mileage exterior_color interior_color msrp price internet_price
      status days_on_lot date_in_stock sold_at photos dealer_id created_at updated_at dealer { id name } } } }`;

export const SHAPE_KEYS = ['1', '2', '3', '4', '5'] as const;

/**
 * The five shapes over one dealer group; `updatedSince` leaves a few thousand vehicles; the deep page
 * is at offset 10,000 (or half the vehicles, for a smaller run).
 */
export function inventoryShapes(groupId: string, updatedSince: Date, deep: number): Shape[] {
  const since = updatedSince.toISOString();
  const byUpdate = `ORDER BY v.updated_at DESC, v.id DESC LIMIT ${PAGE}`;
  const q = 'camry';
  return [
    {
      key: '1',
      label: 'filter and sort',
      title: 'filter and sort: Toyotas, available, longest on the lot first',
      offset: 0,
      best: {
        // Both read the (group, lower(make), status, date_in_stock, id) index only: the count every
        // match, the page its first 25 in order. Vehicles on the lot have no sale date (a check
        // constraint says so), so longest on the lot first is the stock-in date, oldest first.
        count: {
          name: 'best1count',
          text: `SELECT count(*)::int AS total FROM vehicles v
            WHERE v.dealer_group_id = $1 AND lower(v.make::text) = $2 AND v.status = $3::vehicle_status`,
          values: [groupId, 'toyota', 'available'],
        },
        page: {
          name: 'best1page',
          text: `SELECT ${COLUMNS} FROM (SELECT id FROM vehicles WHERE dealer_group_id = $1 AND lower(make::text) = $2 AND status = $3::vehicle_status
              ORDER BY date_in_stock, id LIMIT ${PAGE}) p
            JOIN vehicles v ON v.id = p.id JOIN dealers d ON d.id = v.dealer_id ORDER BY v.date_in_stock, v.id`,
          values: [groupId, 'toyota', 'available'],
        },
      },
      bestNote: 'count and page from the (group, lower(make), status, date_in_stock, id) index alone',
      reference: reference(`v.make = $2 AND v.status = 'available'`, `${DAYS_ON_LOT} DESC NULLS LAST`, 0, [
        groupId,
        'Toyota',
      ]),
      rest: { make: 'Toyota', status: 'available', sort: '-days_on_lot' },
      graphql: { make: ['Toyota'], status: ['available'], sort: '-days_on_lot' },
      postgraphile: {
        query: postgraphileQuery(
          '',
          `condition: { dealerGroupId: $group, make: "Toyota", status: available }, orderBy: [DATE_IN_STOCK_ASC, ROW_ID_ASC], first: ${PAGE}`,
        ),
        variables: { group: groupId },
        note: 'orderBy DATE_IN_STOCK_ASC: days on lot is not a column; the same order while no vehicle in the answer has a sale date',
      },
    },
    {
      key: '2',
      label: 'free text q',
      title: `free text q=${q}, newest change first`,
      offset: 0,
      best: {
        // The trigram index over the searchable fields (apart by chr(1), so a match never spans two)
        // answers the count; the page walks the (group, updated_at, id) index backwards and stops at
        // the 25th match, or reads the matches and sorts them, as the planner finds cheaper.
        count: {
          name: 'best2count',
          text: `SELECT count(*)::int AS total FROM vehicles v WHERE v.dealer_group_id = $1 AND ${SEARCH_TEXT} ILIKE $2`,
          values: [groupId, `%${q}%`],
        },
        page: {
          name: 'best2page',
          text: `SELECT ${COLUMNS} FROM vehicles v JOIN dealers d ON d.id = v.dealer_id
            WHERE v.dealer_group_id = $1 AND ${SEARCH_TEXT} ILIKE $2 ${byUpdate}`,
          values: [groupId, `%${q}%`],
        },
      },
      bestNote: 'count from the trigram index; page as the planner finds cheaper',
      reference: reference(Q_MATCH, 'v.updated_at DESC NULLS LAST', 0, [groupId, `%${q}%`], 'v.id DESC'),
      rest: { q },
      graphql: { q },
      postgraphile: {
        query: postgraphileQuery(
          ', $q: String!',
          `condition: { dealerGroupId: $group }, filter: { or: [{ vin: { includesInsensitive: $q } }, { stockNumber: { includesInsensitive: $q } },
            { make: { includesInsensitive: $q } }, { model: { includesInsensitive: $q } }, { trim: { includesInsensitive: $q } }] },
            orderBy: [UPDATED_AT_DESC, ROW_ID_DESC], first: ${PAGE}`,
        ),
        variables: { group: groupId, q },
        note: 'connection-filter includesInsensitive on vin, stockNumber, make, model and trim; "year make model" has no filter, the same rows for a q without spaces',
      },
    },
    {
      key: '3',
      label: 'price range',
      title: 'price 20,000 to 30,000, cheapest first',
      offset: 0,
      best: {
        count: {
          name: 'best3count',
          text: `SELECT count(*)::int AS total FROM vehicles v WHERE v.dealer_group_id = $1 AND v.price >= $2 AND v.price <= $3`,
          values: [groupId, '20000', '30000'],
        },
        page: {
          name: 'best3page',
          text: `SELECT ${COLUMNS} FROM vehicles v JOIN dealers d ON d.id = v.dealer_id
            WHERE v.dealer_group_id = $1 AND v.price >= $2 AND v.price <= $3 ORDER BY v.price, v.id LIMIT ${PAGE}`,
          values: [groupId, '20000', '30000'],
        },
      },
      bestNote: 'count and page from the (group, price) index',
      reference: reference('v.price >= $2::numeric AND v.price <= $3::numeric', 'v.price ASC NULLS LAST', 0, [
        groupId,
        '20000',
        '30000',
      ]),
      rest: { price_min: '20000', price_max: '30000', sort: 'price' },
      graphql: { price_min: '20000', price_max: '30000', sort: 'price' },
      postgraphile: {
        query: postgraphileQuery(
          '',
          `condition: { dealerGroupId: $group }, filter: { price: { greaterThanOrEqualTo: "20000", lessThanOrEqualTo: "30000" } },
            orderBy: [PRICE_ASC, ROW_ID_ASC], first: ${PAGE}`,
        ),
        variables: { group: groupId },
        note: 'connection-filter on price',
      },
    },
    {
      key: '4',
      label: 'deep page',
      title: `a deep page: by price, offset ${deep.toLocaleString('en-US')}`,
      offset: deep,
      best: {
        count: {
          name: 'best4count',
          text: `SELECT count(*)::int AS total FROM vehicles v WHERE v.dealer_group_id = $1`,
          values: [groupId],
        },
        // Rather than sort 10,025 rows fetched from the table, find the price at the offset and how many
        // rows come before it from the (group, price) index alone, then read the page from there.
        page: {
          name: 'best4page',
          text: `WITH boundary AS MATERIALIZED (
              SELECT price FROM vehicles WHERE dealer_group_id = $1 ORDER BY price LIMIT 1 OFFSET $2),
            skipped AS MATERIALIZED (
              SELECT count(*)::int AS n FROM vehicles WHERE dealer_group_id = $1 AND price < (SELECT price FROM boundary))
            SELECT ${COLUMNS} FROM vehicles v JOIN dealers d ON d.id = v.dealer_id
            WHERE v.dealer_group_id = $1 AND v.price >= (SELECT price FROM boundary)
            ORDER BY v.price, v.id LIMIT ${PAGE} OFFSET $2 - (SELECT n FROM skipped)`,
          values: [groupId, deep],
        },
        // Vehicles without a price sort last and the boundary cannot reach them: if the page runs short of
        // the total, answer with the plain statement.
        fallback: {
          when: (count, rows) => rows.length < Math.min(PAGE, Number(count.total) - deep),
          statement: {
            name: 'best4plain',
            text: `SELECT ${COLUMNS} FROM vehicles v JOIN dealers d ON d.id = v.dealer_id WHERE v.dealer_group_id = $1
              ORDER BY v.price, v.id LIMIT ${PAGE} OFFSET $2`,
            values: [groupId, deep],
          },
        },
      },
      bestNote: 'the price at the offset and the rows before it counted from the (group, price) index alone',
      reference: reference('true', 'v.price ASC NULLS LAST', deep, [groupId]),
      rest: { sort: 'price', offset: String(deep) },
      graphql: { sort: 'price', offset: deep },
      postgraphile: {
        query: postgraphileQuery(
          '',
          `condition: { dealerGroupId: $group }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: ${PAGE}, offset: ${deep}`,
        ),
        variables: { group: groupId },
        note: 'first/offset',
      },
    },
    {
      key: '5',
      label: 'updated_since',
      title: `changed since ${since}, newest change first`,
      offset: 0,
      best: {
        count: {
          name: 'best5count',
          text: `SELECT count(*)::int AS total FROM vehicles v WHERE v.dealer_group_id = $1 AND v.updated_at >= $2`,
          values: [groupId, updatedSince],
        },
        page: {
          name: 'best5page',
          text: `SELECT ${COLUMNS} FROM vehicles v JOIN dealers d ON d.id = v.dealer_id
            WHERE v.dealer_group_id = $1 AND v.updated_at >= $2 ${byUpdate}`,
          values: [groupId, updatedSince],
        },
      },
      bestNote: 'count and page from the (group, updated_at) index',
      reference: reference(
        'v.updated_at >= $2',
        'v.updated_at DESC NULLS LAST',
        0,
        [groupId, updatedSince],
        'v.id DESC',
      ),
      rest: { updated_since: since },
      graphql: { updated_since: since },
      postgraphile: {
        query: postgraphileQuery(
          ', $since: Datetime!',
          `condition: { dealerGroupId: $group }, filter: { updatedAt: { greaterThanOrEqualTo: $since } },
            orderBy: [UPDATED_AT_DESC, ROW_ID_DESC], first: ${PAGE}`,
        ),
        variables: { group: groupId, since },
        note: 'connection-filter on updatedAt',
      },
    },
  ];
}
