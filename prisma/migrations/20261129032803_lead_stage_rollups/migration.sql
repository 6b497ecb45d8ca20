-- CreateTable
CREATE TABLE "lead_stage_daily" (
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "status" "lead_status" NOT NULL,
    "type" "lead_type" NOT NULL,
    "leads" INTEGER NOT NULL DEFAULT 0,
    "sold" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "lead_stage_daily_pkey" PRIMARY KEY ("dealer_group_id","dealer_id","day","status","type")
);

-- Leads per rooftop (and, under the nil UUID, all the group's rooftops together), UTC day received,
-- status and type, with how many of them count as sold (a linked deal or status sold), kept by
-- triggers in every writer's transaction like lead_daily. The lead stats by status and by type read
-- whole days here; the rows for the group hold at most one per day, status and type.
CREATE FUNCTION "lead_stage_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO lead_stage_daily AS r (dealer_group_id, dealer_id, day, status, type, leads, sold)
    SELECT * FROM (
      SELECT d.dealer_group_id, coalesce(d.dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, d.day, d.status, d.type,
        sum(d.sign) AS leads, coalesce(sum(d.sign) FILTER (WHERE d.sold), 0) AS sold
      FROM (SELECT x.dealer_group_id, (x.received_at AT TIME ZONE 'UTC')::date AS day, x.dealer_id, x.status, x.type, x.sign,
          (x.sale_id IS NOT NULL OR x.status = 'sold') AS sold
        FROM (%s) x) d
      GROUP BY GROUPING SETS ((d.dealer_group_id, d.dealer_id, d.day, d.status, d.type), (d.dealer_group_id, d.day, d.status, d.type))) delta
    WHERE (leads, sold) <> (0, 0)
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (dealer_group_id, dealer_id, day, status, type) DO UPDATE SET leads = r.leads + excluded.leads, sold = r.sold + excluded.sold
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "leads_stage_daily_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_stage_daily_apply"();
CREATE TRIGGER "leads_stage_daily_update" AFTER UPDATE ON "leads"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "lead_stage_daily_apply"();
CREATE TRIGGER "leads_stage_daily_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "lead_stage_daily_apply"();

-- Backfill from the leads already there.
INSERT INTO "lead_stage_daily" (dealer_group_id, dealer_id, day, status, type, leads, sold)
SELECT l.dealer_group_id, coalesce(l.dealer_id, '00000000-0000-0000-0000-000000000000'), l.day, l.status, l.type,
  count(*), count(*) FILTER (WHERE l.sold)
FROM (SELECT dealer_group_id, (received_at AT TIME ZONE 'UTC')::date AS day, dealer_id, status, type,
    (sale_id IS NOT NULL OR status = 'sold') AS sold FROM "leads") l
GROUP BY GROUPING SETS ((l.dealer_group_id, l.day, l.dealer_id, l.status, l.type), (l.dealer_group_id, l.day, l.status, l.type));
