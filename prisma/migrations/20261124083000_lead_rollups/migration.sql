-- Leads per rooftop (and, under the nil UUID, all the group's rooftops together), UTC day received
-- and canonical source (the nil UUID for none), with how many of them are sold (a linked deal or
-- status sold), kept by triggers in every writer's transaction like call_daily. The lead stats by
-- source read whole days here.
CREATE TABLE "lead_daily" (
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "source_id" UUID NOT NULL,
    "leads" INTEGER NOT NULL DEFAULT 0,
    "sold" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "lead_daily_pkey" PRIMARY KEY ("dealer_group_id","dealer_id","day","source_id")
);

CREATE FUNCTION "lead_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO lead_daily AS r (dealer_group_id, dealer_id, day, source_id, leads, sold)
    SELECT * FROM (
      SELECT d.dealer_group_id, coalesce(d.dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, d.day, d.source_id,
        sum(d.sign) AS leads, coalesce(sum(d.sign) FILTER (WHERE d.sold), 0) AS sold
      FROM (SELECT x.dealer_group_id, (x.received_at AT TIME ZONE 'UTC')::date AS day, x.dealer_id,
          coalesce(x.source_id, '00000000-0000-0000-0000-000000000000') AS source_id, x.sign,
          (x.sale_id IS NOT NULL OR x.status = 'sold') AS sold
        FROM (%s) x) d
      GROUP BY GROUPING SETS ((d.dealer_group_id, d.dealer_id, d.day, d.source_id), (d.dealer_group_id, d.day, d.source_id))) delta
    WHERE (leads, sold) <> (0, 0)
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (dealer_group_id, dealer_id, day, source_id) DO UPDATE SET leads = r.leads + excluded.leads, sold = r.sold + excluded.sold
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "leads_daily_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_daily_apply"();
CREATE TRIGGER "leads_daily_update" AFTER UPDATE ON "leads"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_daily_apply"();
CREATE TRIGGER "leads_daily_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_daily_apply"();

-- The leads that became deals, read for the deals and gross per source without the table: a few of
-- the leads, in the order a period reads them.
CREATE INDEX "leads_converted_idx" ON "leads" ("dealer_group_id", "received_at") INCLUDE ("source_id", "sale_id", "dealer_id")
  WHERE "sale_id" IS NOT NULL;

-- Backfill from the leads already there.
INSERT INTO "lead_daily" (dealer_group_id, dealer_id, day, source_id, leads, sold)
SELECT l.dealer_group_id, coalesce(l.dealer_id, '00000000-0000-0000-0000-000000000000'), l.day, l.source_id,
  count(*), count(*) FILTER (WHERE l.sold)
FROM (SELECT dealer_group_id, (received_at AT TIME ZONE 'UTC')::date AS day, dealer_id,
    coalesce(source_id, '00000000-0000-0000-0000-000000000000') AS source_id, (sale_id IS NOT NULL OR status = 'sold') AS sold FROM "leads") l
GROUP BY GROUPING SETS ((l.dealer_group_id, l.day, l.dealer_id, l.source_id), (l.dealer_group_id, l.day, l.source_id));
