-- Lead stats by source: deals and gross per source from rollups, as leads and sold leads are.
-- A deal counts once for each canonical source of the leads linked to it, on the day that source's
-- first such lead came in (so the figures of consecutive periods add up, and a deal two leads of one
-- source reached counts, and its gross adds, once).

-- CreateTable
CREATE TABLE "lead_source_deals" (
    "sale_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "lead_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "gross" DECIMAL(14,2) NOT NULL,

    CONSTRAINT "lead_source_deals_pkey" PRIMARY KEY ("sale_id","source_id")
);

-- CreateTable
CREATE TABLE "lead_deal_daily" (
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "source_id" UUID NOT NULL,
    "deals" INTEGER NOT NULL DEFAULT 0,
    "gross" DECIMAL(16,2) NOT NULL DEFAULT 0,

    CONSTRAINT "lead_deal_daily_pkey" PRIMARY KEY ("dealer_group_id","dealer_id","day","source_id")
);

-- Read by the partial days at either end of a period, and by filters lead_deal_daily does not carry.
CREATE INDEX "lead_source_deals_period_idx" ON "lead_source_deals"("dealer_group_id", "received_at");

-- The pairs of deal and source the leads a statement wrote or removed belong to (for an update, only
-- rows whose deal, source, time or rooftop changed), each recomputed from the leads as they are now:
-- the first lead of the pair (by time, then id), its deal's gross. A pair with no lead left goes.
CREATE FUNCTION "lead_source_deals_apply"() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  touched text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT n.sale_id, n.source_id, n.dealer_group_id FROM new_rows n WHERE n.sale_id IS NOT NULL'
    WHEN 'DELETE' THEN 'SELECT o.sale_id, o.source_id, o.dealer_group_id FROM old_rows o WHERE o.sale_id IS NOT NULL'
    ELSE 'SELECT x.sale_id, x.source_id, n.dealer_group_id FROM old_rows o JOIN new_rows n ON n.id = o.id,
        LATERAL (VALUES (o.sale_id, o.source_id), (n.sale_id, n.source_id)) x(sale_id, source_id)
      WHERE x.sale_id IS NOT NULL
        AND (o.sale_id, o.source_id, o.received_at, o.dealer_id) IS DISTINCT FROM (n.sale_id, n.source_id, n.received_at, n.dealer_id)' END;
  deals uuid[];
  sources uuid[];
  groups uuid[];
BEGIN
  EXECUTE format('SELECT array_agg(p.sale_id), array_agg(p.source_id), array_agg(DISTINCT p.dealer_group_id) FROM (SELECT DISTINCT t.sale_id,
      coalesce(t.source_id, ''00000000-0000-0000-0000-000000000000'') AS source_id, t.dealer_group_id FROM (%s) t) p', touched)
    INTO deals, sources, groups;
  IF deals IS NULL THEN
    RETURN NULL;
  END IF;
  -- One writer at a time per dealer group, in one order: two transactions linking leads to one deal
  -- would each compute its pairs without the other's leads. The statements below start after the
  -- lock, so they read what a writer that held it committed. A lock per group, not per deal: linking
  -- a group's leads is one statement over thousands of deals, more locks than a transaction may hold.
  PERFORM pg_advisory_xact_lock(x.k) FROM (SELECT DISTINCT hashtext('lead_source_deals:' || g::text) AS k FROM unnest(groups) AS u(g) ORDER BY 1) x;
  DELETE FROM lead_source_deals t USING unnest(deals, sources) AS p(sale_id, source_id)
  WHERE t.sale_id = p.sale_id AND t.source_id = p.source_id;
  INSERT INTO lead_source_deals (sale_id, source_id, dealer_group_id, lead_id, dealer_id, received_at, gross)
  SELECT DISTINCT ON (l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000'))
    l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000'), l.dealer_group_id, l.id, l.dealer_id, l.received_at,
    d.front_gross + d.back_gross
  FROM leads l JOIN sales d ON d.id = l.sale_id
  WHERE l.sale_id = ANY(deals)
    AND (l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000')) IN (SELECT * FROM unnest(deals, sources))
  ORDER BY l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000'), l.received_at, l.id;
  RETURN NULL;
END $$;

CREATE TRIGGER "leads_source_deals_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_source_deals_apply"();
CREATE TRIGGER "leads_source_deals_update" AFTER UPDATE ON "leads"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_source_deals_apply"();
CREATE TRIGGER "leads_source_deals_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_source_deals_apply"();

-- A deal's gross changed: its pairs carry the new gross. (A deal deleted unlinks its leads, whose
-- update above removes its pairs.)
CREATE FUNCTION "lead_source_deals_gross"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(x.k)
  FROM (SELECT DISTINCT hashtext('lead_source_deals:' || n.dealer_group_id::text) AS k FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (o.front_gross, o.back_gross) IS DISTINCT FROM (n.front_gross, n.back_gross) ORDER BY 1) x;
  UPDATE lead_source_deals t SET gross = n.front_gross + n.back_gross
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE t.sale_id = n.id AND (o.front_gross, o.back_gross) IS DISTINCT FROM (n.front_gross, n.back_gross);
  RETURN NULL;
END $$;

CREATE TRIGGER "sales_source_deals_update" AFTER UPDATE ON "sales"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_source_deals_gross"();

-- Deals and gross per rooftop (and all rooftops together), day and source, from the pairs.
CREATE FUNCTION "lead_deal_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO lead_deal_daily AS r (dealer_group_id, dealer_id, day, source_id, deals, gross)
    SELECT * FROM (
      SELECT d.dealer_group_id, coalesce(d.dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, d.day, d.source_id,
        sum(d.sign) AS deals, sum(d.sign * d.gross) AS gross
      FROM (SELECT x.dealer_group_id, (x.received_at AT TIME ZONE 'UTC')::date AS day, x.dealer_id, x.source_id, x.sign, x.gross
        FROM (%s) x) d
      GROUP BY GROUPING SETS ((d.dealer_group_id, d.dealer_id, d.day, d.source_id), (d.dealer_group_id, d.day, d.source_id))) delta
    WHERE (deals, gross) <> (0, 0)
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (dealer_group_id, dealer_id, day, source_id) DO UPDATE SET deals = r.deals + excluded.deals, gross = r.gross + excluded.gross
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "lead_source_deals_daily_insert" AFTER INSERT ON "lead_source_deals" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_deal_daily_apply"();
CREATE TRIGGER "lead_source_deals_daily_update" AFTER UPDATE ON "lead_source_deals"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_deal_daily_apply"();
CREATE TRIGGER "lead_source_deals_daily_delete" AFTER DELETE ON "lead_source_deals" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_deal_daily_apply"();

-- The deals per source read these rollups now, not the linked leads through their own index.
DROP INDEX "leads_converted_idx";

-- Backfill from the leads already linked (the triggers above fill lead_deal_daily).
INSERT INTO "lead_source_deals" (sale_id, source_id, dealer_group_id, lead_id, dealer_id, received_at, gross)
SELECT DISTINCT ON (l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000'))
  l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000'), l.dealer_group_id, l.id, l.dealer_id, l.received_at,
  d.front_gross + d.back_gross
FROM "leads" l JOIN "sales" d ON d.id = l.sale_id
ORDER BY l.sale_id, coalesce(l.source_id, '00000000-0000-0000-0000-000000000000'), l.received_at, l.id;
