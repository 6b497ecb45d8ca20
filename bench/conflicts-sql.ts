// The conflicts and discrepancies list (GET /multi-source/conflicts?limit=50, default thresholds) as the
// benchmark's two references: the best hand-written SQL, and the product's former query as it stood
// before its rewrite (tenant test `= ANY($1::uuid[])`, vehicles joined before the sort), kept here
// word for word so the gain stays measurable.
import type { Statement } from './inventory-shapes';

export const CONFLICTS_PAGE = 50;

/** How the list names a disagreement: by the field and the spread, at the default thresholds. */
const KIND = `CASE
      WHEN c.kind <> 'disagreement' THEN c.kind
      WHEN c.field IN ('price', 'msrp', 'internet_price') AND c.difference > $2 THEN 'price_disagreement'
      WHEN c.field = 'mileage' AND c.difference > $3 THEN 'mileage_disagreement'
      ELSE 'source_disagreement' END`;

const FIELDS = `c.vehicle_id::text, v.vin, c.dealer_id::text, c.field, ${KIND} AS kind,
  v.field_sources ->> c.field AS winning_source, c.difference, c.details, c.detected_at`;

export function conflictsStatements(groupId: string): {
  best: { count: Statement; page: Statement };
  former: { count: Omit<Statement, 'name'>; page: Omit<Statement, 'name'> };
} {
  return {
    best: {
      count: {
        name: 'bestConflictsCount',
        text: 'SELECT count(*)::int AS total FROM vehicle_conflicts WHERE dealer_group_id = $1',
        values: [groupId],
      },
      // The page walks the (dealer_group_id, detected_at DESC) index and stops at 50; only those 50
      // are joined to vehicles for the VIN and the winning source.
      page: {
        name: 'bestConflictsPage',
        text: `SELECT ${FIELDS} FROM (SELECT * FROM vehicle_conflicts c WHERE c.dealer_group_id = $1
            ORDER BY c.detected_at DESC, c.vehicle_id, c.field LIMIT ${CONFLICTS_PAGE}) c
          JOIN vehicles v ON v.id = c.vehicle_id ORDER BY c.detected_at DESC, c.vehicle_id, c.field`,
        values: [groupId, 500, 250],
      },
    },
    former: {
      count: {
        text: `/* multiSourceConflictsCount */ SELECT count(*)::int AS total FROM vehicle_conflicts c WHERE c.dealer_group_id = ANY($1::uuid[]) AND true`,
        values: [[groupId]],
      },
      page: {
        text: `/* multiSourceConflicts */
      SELECT ${FIELDS}
      FROM vehicle_conflicts c JOIN vehicles v ON v.id = c.vehicle_id WHERE c.dealer_group_id = ANY($1::uuid[]) AND true
      ORDER BY c.detected_at DESC, c.vehicle_id, c.field LIMIT $4 OFFSET $5`,
        values: [[groupId], 500, 250, CONFLICTS_PAGE, 0],
      },
    },
  };
}
