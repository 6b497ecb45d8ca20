-- CreateTable
CREATE TABLE "call_daily" (
    "dealer_group_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "dealer_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "answered" INTEGER NOT NULL DEFAULT 0,
    "missed" INTEGER NOT NULL DEFAULT 0,
    "voicemail" INTEGER NOT NULL DEFAULT 0,
    "first_time_callers" INTEGER NOT NULL DEFAULT 0,
    "answered_seconds" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "call_daily_pkey" PRIMARY KEY ("dealer_group_id","dealer_id","day","source_id")
);

-- CreateTable
CREATE TABLE "dealer_activity" (
    "dealer_id" UUID NOT NULL,
    "calls" INTEGER NOT NULL DEFAULT 0,
    "leads" INTEGER NOT NULL DEFAULT 0,
    "sales" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "dealer_activity_pkey" PRIMARY KEY ("dealer_id")
);

-- AddForeignKey
ALTER TABLE "dealer_activity" ADD CONSTRAINT "dealer_activity_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Rollups kept in the writing transaction by statement-level triggers (one upsert per statement,
-- from its transition tables), so every writer keeps them current: syncs, API writes, source
-- enrichment and re-mapping, deletes. Each statement adds its new rows and subtracts its old
-- ones, grouped by key and upserted in key order (two writers lock shared keys in the same order);
-- keys whose figures a statement leaves as they were (an update of other columns) are not touched.
-- call_daily holds each rooftop (dealer_id) and, under the nil UUID, all rooftops of the group
-- together, so group-wide stats read one row per day and source.
-- PostgreSQL allows no column list on triggers with transition tables, hence that filter.
-- The rows a statement changed, each with its sign: +1 for the rows it wrote, -1 for the rows it
-- replaced or deleted (the trigger's transition tables), for the rollups to sum.
CREATE FUNCTION "rollup_deltas"(operation text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE operation
    WHEN 'INSERT' THEN 'SELECT n.*, 1 AS sign FROM new_rows n'
    WHEN 'DELETE' THEN 'SELECT o.*, -1 AS sign FROM old_rows o'
    ELSE 'SELECT o.*, -1 AS sign FROM old_rows o UNION ALL SELECT n.*, 1 FROM new_rows n' END
$$;

CREATE FUNCTION "call_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO call_daily AS r (dealer_group_id, day, dealer_id, source_id, calls, answered, missed, voicemail, first_time_callers, answered_seconds)
    SELECT * FROM (
      SELECT d.dealer_group_id, d.day, coalesce(d.dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, d.source_id,
        sum(d.sign) AS calls, coalesce(sum(d.sign) FILTER (WHERE d.status = 'answered'), 0) AS answered,
        coalesce(sum(d.sign) FILTER (WHERE d.status = 'missed'), 0) AS missed, coalesce(sum(d.sign) FILTER (WHERE d.status = 'voicemail'), 0) AS voicemail,
        coalesce(sum(d.sign) FILTER (WHERE d.first_time_caller), 0) AS first_time_callers,
        coalesce(sum(d.sign * d.duration_seconds) FILTER (WHERE d.status = 'answered'), 0) AS answered_seconds
      FROM (SELECT x.dealer_group_id, (x.started_at AT TIME ZONE 'UTC')::date AS day, x.dealer_id,
          coalesce(x.source_id, '00000000-0000-0000-0000-000000000000') AS source_id, x.sign, x.status, x.first_time_caller, x.duration_seconds
        FROM (%s) x) d
      GROUP BY GROUPING SETS ((d.dealer_group_id, d.day, d.dealer_id, d.source_id), (d.dealer_group_id, d.day, d.source_id))) delta
    WHERE (calls, answered, missed, voicemail, first_time_callers, answered_seconds) <> (0, 0, 0, 0, 0, 0)
    ORDER BY 1, 3, 2, 4
    ON CONFLICT (dealer_group_id, dealer_id, day, source_id) DO UPDATE SET calls = r.calls + excluded.calls,
      answered = r.answered + excluded.answered, missed = r.missed + excluded.missed, voicemail = r.voicemail + excluded.voicemail,
      first_time_callers = r.first_time_callers + excluded.first_time_callers, answered_seconds = r.answered_seconds + excluded.answered_seconds
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "calls_daily_insert" AFTER INSERT ON "calls" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "call_daily_apply"();
CREATE TRIGGER "calls_daily_update" AFTER UPDATE ON "calls"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "call_daily_apply"();
CREATE TRIGGER "calls_daily_delete" AFTER DELETE ON "calls" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "call_daily_apply"();

-- Rows per rooftop in the table the trigger is on (its first argument: calls, leads or sales).
CREATE FUNCTION "dealer_activity_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO dealer_activity AS a (dealer_id, %1$I)
    SELECT d.dealer_id, sum(d.sign) FROM (%2$s) d GROUP BY 1 HAVING sum(d.sign) <> 0 ORDER BY 1
    ON CONFLICT (dealer_id) DO UPDATE SET %1$I = a.%1$I + excluded.%1$I
  $sql$, TG_ARGV[0], rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "calls_activity_insert" AFTER INSERT ON "calls" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('calls');
CREATE TRIGGER "calls_activity_update" AFTER UPDATE ON "calls" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('calls');
CREATE TRIGGER "calls_activity_delete" AFTER DELETE ON "calls" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('calls');
CREATE TRIGGER "leads_activity_insert" AFTER INSERT ON "leads" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('leads');
CREATE TRIGGER "leads_activity_update" AFTER UPDATE ON "leads" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('leads');
CREATE TRIGGER "leads_activity_delete" AFTER DELETE ON "leads" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('leads');
CREATE TRIGGER "sales_activity_insert" AFTER INSERT ON "sales" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('sales');
CREATE TRIGGER "sales_activity_update" AFTER UPDATE ON "sales" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('sales');
CREATE TRIGGER "sales_activity_delete" AFTER DELETE ON "sales" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "dealer_activity_apply"('sales');

-- Backfill from the rows already there.
INSERT INTO "call_daily" (dealer_group_id, day, dealer_id, source_id, calls, answered, missed, voicemail, first_time_callers, answered_seconds)
SELECT c.dealer_group_id, c.day, coalesce(c.dealer_id, '00000000-0000-0000-0000-000000000000'), c.source_id,
  count(*), count(*) FILTER (WHERE c.status = 'answered'), count(*) FILTER (WHERE c.status = 'missed'),
  count(*) FILTER (WHERE c.status = 'voicemail'), count(*) FILTER (WHERE c.first_time_caller),
  coalesce(sum(c.duration_seconds) FILTER (WHERE c.status = 'answered'), 0)
FROM (SELECT dealer_group_id, (started_at AT TIME ZONE 'UTC')::date AS day, dealer_id,
    coalesce(source_id, '00000000-0000-0000-0000-000000000000') AS source_id, status, first_time_caller, duration_seconds FROM "calls") c
GROUP BY GROUPING SETS ((c.dealer_group_id, c.day, c.dealer_id, c.source_id), (c.dealer_group_id, c.day, c.source_id));

INSERT INTO "dealer_activity" (dealer_id, calls, leads, sales)
SELECT d.id, (SELECT count(*) FROM "calls" c WHERE c.dealer_id = d.id), (SELECT count(*) FROM "leads" l WHERE l.dealer_id = d.id),
  (SELECT count(*) FROM "sales" s WHERE s.dealer_id = d.id)
FROM "dealers" d;
