-- CreateTable
CREATE TABLE "sale_daily" (
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "units" INTEGER NOT NULL DEFAULT 0,
    "revenue" DECIMAL(16,2) NOT NULL DEFAULT 0,
    "front_gross" DECIMAL(16,2) NOT NULL DEFAULT 0,
    "back_gross" DECIMAL(16,2) NOT NULL DEFAULT 0,

    CONSTRAINT "sale_daily_pkey" PRIMARY KEY ("dealer_group_id","dealer_id","day")
);

-- Kept like call_daily (see the activity rollups migration): each statement adds its new deals and
-- subtracts its old ones, per rooftop and for all rooftops of the group, upserted in key order.
CREATE FUNCTION "sale_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO sale_daily AS r (dealer_group_id, dealer_id, day, units, revenue, front_gross, back_gross)
    SELECT * FROM (
      SELECT d.dealer_group_id, coalesce(d.dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, d.day,
        sum(d.sign) AS units, sum(d.sign * d.sale_price) AS revenue, sum(d.sign * d.front_gross) AS front_gross,
        sum(d.sign * d.back_gross) AS back_gross
      FROM (SELECT x.dealer_group_id, x.dealer_id, (x.sold_at AT TIME ZONE 'UTC')::date AS day, x.sign, x.sale_price, x.front_gross, x.back_gross
        FROM (%s) x) d
      GROUP BY GROUPING SETS ((d.dealer_group_id, d.dealer_id, d.day), (d.dealer_group_id, d.day))) delta
    WHERE (units, revenue, front_gross, back_gross) <> (0, 0, 0, 0)
    ORDER BY 1, 2, 3
    ON CONFLICT (dealer_group_id, dealer_id, day) DO UPDATE SET units = r.units + excluded.units,
      revenue = r.revenue + excluded.revenue, front_gross = r.front_gross + excluded.front_gross, back_gross = r.back_gross + excluded.back_gross
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "sales_daily_insert" AFTER INSERT ON "sales" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "sale_daily_apply"();
CREATE TRIGGER "sales_daily_update" AFTER UPDATE ON "sales" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "sale_daily_apply"();
CREATE TRIGGER "sales_daily_delete" AFTER DELETE ON "sales" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "sale_daily_apply"();

INSERT INTO "sale_daily" (dealer_group_id, dealer_id, day, units, revenue, front_gross, back_gross)
SELECT s.dealer_group_id, coalesce(s.dealer_id, '00000000-0000-0000-0000-000000000000'), s.day, count(*), sum(s.sale_price),
  sum(s.front_gross), sum(s.back_gross)
FROM (SELECT dealer_group_id, dealer_id, (sold_at AT TIME ZONE 'UTC')::date AS day, sale_price, front_gross, back_gross FROM "sales") s
GROUP BY GROUPING SETS ((s.dealer_group_id, s.dealer_id, s.day), (s.dealer_group_id, s.day));
