-- The events of an update of leads or vehicles, each row's JSON built once: the planner had folded
-- the row's JSON into the comparison of each of its fields (the row's JSON built again per field,
-- about 0.5 ms per lead updated, 1 ms per vehicle), and the changes were worked out once per use.
-- Leads a statement left exactly as they were are skipped before any JSON is built (not vehicles:
-- their make and model compare without case, where a change of case is a change). The statements
-- run without JIT: their row estimates come from the trigger's transition tables, which made
-- PostgreSQL compile each of them (about 0.6 s) for a few thousand rows.
CREATE OR REPLACE FUNCTION "activity_events"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  kind text := TG_ARGV[0];
  hidden text[] := ARRAY['dealer_group_id'];
  -- The table's numeric columns with fraction digits (money).
  money text[] := ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = TG_RELID AND a.attnum > 0 AND NOT a.attisdropped
    AND a.atttypid = 'numeric'::regtype AND a.atttypmod > 4 AND ((a.atttypmod - 4) & 65535) > 0 ORDER BY a.attnum);
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format($sql$
      INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data, sync_run_id, request_id)
      SELECT %L, n.dealer_group_id, n.dealer_id, n.id, jsonb_build_object(%L, activity_event_row(to_jsonb(n), $1, $2)),
        event_cause('sync_run_id')::uuid, event_cause('request_id')
      FROM new_rows n ORDER BY n.dealer_id, n.id
    $sql$, kind || '.created', kind) USING hidden, money;
  ELSE
    EXECUTE format($sql$
      INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data, sync_run_id, request_id)
      SELECT %L, c.dealer_group_id, c.dealer_id, c.id, jsonb_build_object(%L, c.id, 'changes', c.changes),
        event_cause('sync_run_id')::uuid, event_cause('request_id')
      FROM (
        SELECT n.id, n.dealer_group_id, n.dealer_id,
          (SELECT jsonb_object_agg(f.key, jsonb_build_object('old', f.value, 'new', d.new_data -> f.key))
           FROM jsonb_each(d.old_data) f
           WHERE f.key <> 'updated_at' AND f.value IS DISTINCT FROM d.new_data -> f.key) AS changes
        FROM new_rows n JOIN old_rows o ON o.id = n.id AND o IS DISTINCT FROM n
        CROSS JOIN LATERAL (SELECT activity_event_row(to_jsonb(o), $1, $2) AS old_data, activity_event_row(to_jsonb(n), $1, $2) AS new_data OFFSET 0) d
        OFFSET 0
      ) c
      WHERE c.changes IS NOT NULL ORDER BY c.dealer_id, c.id
    $sql$, kind || '.updated', kind || '_id') USING hidden, money;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION "vehicle_events"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data, sync_run_id, request_id)
    SELECT 'vehicle.created', n.dealer_group_id, n.dealer_id, n.id, jsonb_build_object('vehicle', vehicle_event_data(n)),
      event_cause('sync_run_id')::uuid, event_cause('request_id')
    FROM new_rows n ORDER BY n.dealer_id, n.vin;
    RETURN NULL;
  END IF;
  -- An update: the merged fields that moved (old and new value, and the source that now wins each),
  -- then one event for the update and one for each kind of move a partner may listen for alone.
  INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data, sync_run_id, request_id)
  SELECT e.type, c.dealer_group_id, c.dealer_id, c.id, e.data, event_cause('sync_run_id')::uuid, event_cause('request_id')
  FROM (
    SELECT n.id, n.dealer_group_id, n.dealer_id, n.vin, o.status::text AS old_status, n.status::text AS new_status,
      o.price::text AS old_price, n.price::text AS new_price,
      (SELECT jsonb_object_agg(f.field, jsonb_build_object('old', f.old_value, 'new', d.new_data -> f.field, 'source', n.field_sources ->> f.field))
       FROM jsonb_each(d.old_data) AS f(field, old_value)
       WHERE f.field NOT IN ('id', 'vin', 'dealer_id', 'sold_at') AND f.old_value IS DISTINCT FROM d.new_data -> f.field) AS changes
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    CROSS JOIN LATERAL (SELECT vehicle_event_data(o) AS old_data, vehicle_event_data(n) AS new_data OFFSET 0) d
    OFFSET 0
  ) c
  CROSS JOIN LATERAL (VALUES
    (1, 'vehicle.updated', jsonb_build_object('vehicle_id', c.id, 'vin', c.vin, 'changes', c.changes), true),
    (2, 'vehicle.price_changed', jsonb_build_object('vehicle_id', c.id, 'vin', c.vin, 'old_price', c.old_price, 'new_price', c.new_price),
      c.old_price IS DISTINCT FROM c.new_price),
    (3, 'vehicle.status_changed', jsonb_build_object('vehicle_id', c.id, 'vin', c.vin, 'old_status', c.old_status, 'new_status', c.new_status),
      c.old_status <> c.new_status),
    (4, 'vehicle.sold', jsonb_build_object('vehicle_id', c.id, 'vin', c.vin, 'old_status', c.old_status),
      c.new_status = 'sold' AND c.old_status <> 'sold'),
    (5, 'vehicle.presumed_sold', jsonb_build_object('vehicle_id', c.id, 'vin', c.vin, 'old_status', c.old_status),
      c.new_status = 'presumed_sold' AND c.old_status <> 'presumed_sold')
  ) AS e(kind, type, data, applies)
  WHERE c.changes IS NOT NULL AND e.applies
  ORDER BY c.dealer_id, c.vin, e.kind;
  RETURN NULL;
END $$;
