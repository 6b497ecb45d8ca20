-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "txid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint,
    "position" BIGSERIAL NOT NULL,
    "type" TEXT NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID,
    "subject_id" UUID,
    "data" JSONB NOT NULL,
    "sync_run_id" UUID,
    "request_id" TEXT,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "events_dealer_group_id_txid_position_idx" ON "events"("dealer_group_id", "txid", "position");

-- CreateIndex
CREATE INDEX "events_occurred_at_idx" ON "events"("occurred_at");

-- Events are written by statement-level triggers with transition tables, in the transaction of the
-- change itself, so every writer records them (syncs, API writes, enrichment, re-mapping, psql)
-- and a rolled-back change leaves none. What caused a change is read from two transaction-local
-- settings a writer may set: ddp.sync_run_id and ddp.request_id.
CREATE FUNCTION "event_cause"(name text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT NULLIF(current_setting('ddp.' || name, true), '')
$$;

-- A vehicle, as an event carries it: the merged record in the API names, money as decimal text.
CREATE FUNCTION "vehicle_event_data"(v vehicles) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object('id', v.id, 'vin', v.vin, 'stock_number', v.stock_number, 'year', v.year, 'make', v.make::text,
    'model', v.model::text, 'trim', v.trim, 'body_style', v.body_style::text, 'condition', v.condition, 'mileage', v.mileage,
    'exterior_color', v.exterior_color, 'interior_color', v.interior_color, 'msrp', v.msrp::text, 'price', v.price::text,
    'internet_price', v.internet_price::text, 'status', v.status, 'date_in_stock', v.date_in_stock, 'sold_at', v.sold_at,
    'photos', to_jsonb(v.photos), 'dealer_id', v.dealer_id)
$$;

CREATE FUNCTION "vehicle_events"() RETURNS trigger LANGUAGE plpgsql AS $$
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
    CROSS JOIN LATERAL (SELECT vehicle_event_data(o) AS old_data, vehicle_event_data(n) AS new_data) d
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

CREATE TRIGGER "vehicles_events_insert" AFTER INSERT ON "vehicles" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "vehicle_events"();
CREATE TRIGGER "vehicles_events_update" AFTER UPDATE ON "vehicles"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "vehicle_events"();

-- Leads, calls and deals: created (all three) and updated (leads, whose status and owner move).
-- The data is the record in the API names; money as decimal text; internal columns left out.
CREATE FUNCTION "activity_events"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  kind text := TG_ARGV[0];
  hidden text[] := ARRAY['dealer_group_id'];
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format($sql$
      INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data, sync_run_id, request_id)
      SELECT %L, n.dealer_group_id, n.dealer_id, n.id, jsonb_build_object(%L, activity_event_data(to_jsonb(n), $1)),
        event_cause('sync_run_id')::uuid, event_cause('request_id')
      FROM new_rows n ORDER BY n.dealer_id, n.id
    $sql$, kind || '.created', kind) USING hidden;
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
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        CROSS JOIN LATERAL (SELECT activity_event_data(to_jsonb(o), $1) AS old_data, activity_event_data(to_jsonb(n), $1) AS new_data) d
      ) c
      WHERE c.changes IS NOT NULL ORDER BY c.dealer_id, c.id
    $sql$, kind || '.updated', kind || '_id') USING hidden;
  END IF;
  RETURN NULL;
END $$;

-- A row as an event shows it: its columns but the hidden ones, numbers with fraction digits
-- (money) as decimal text, as the API answers them.
CREATE FUNCTION "activity_event_data"(row_data jsonb, hidden text[]) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(f.key, CASE WHEN jsonb_typeof(f.value) = 'number' AND f.value::text LIKE '%.%'
    THEN to_jsonb(f.value::text) ELSE f.value END), '{}'::jsonb)
  FROM jsonb_each(row_data) f WHERE NOT f.key = ANY(hidden)
$$;

CREATE TRIGGER "leads_events_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "activity_events"('lead');
CREATE TRIGGER "leads_events_update" AFTER UPDATE ON "leads"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "activity_events"('lead');
CREATE TRIGGER "calls_events_insert" AFTER INSERT ON "calls" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "activity_events"('call');
CREATE TRIGGER "sales_events_insert" AFTER INSERT ON "sales" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "activity_events"('sale');

-- A sync run that ends: sync.succeeded or sync.failed, with its counts, for the integration's rooftop.
CREATE FUNCTION "sync_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data, sync_run_id, request_id)
  SELECT 'sync.' || n.status::text, n.dealer_group_id, i.dealer_id, n.id,
    jsonb_build_object('sync_run', jsonb_build_object('id', n.id, 'integration_id', n.integration_id, 'integration_name', i.name,
      'source', i.source, 'status', n.status, 'trigger', n.trigger, 'file_name', n.file_name, 'rows_read', n.rows_read,
      'created', n.created, 'updated', n.updated, 'unchanged', n.unchanged, 'skipped', n.skipped, 'failed', n.failed,
      'flagged', n.flagged, 'presumed_sold', n.presumed_sold, 'returned', n.returned, 'error', n.error,
      'started_at', n.started_at, 'finished_at', n.finished_at)),
    n.id, event_cause('request_id')
  FROM new_rows n JOIN old_rows o ON o.id = n.id JOIN integrations i ON i.id = n.integration_id
  WHERE o.status = 'running' AND n.status <> 'running'
  ORDER BY n.id;
  RETURN NULL;
END $$;

CREATE TRIGGER "sync_runs_events_update" AFTER UPDATE ON "sync_runs"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "sync_events"();
