-- CreateTable
CREATE TABLE "call_merge_starts" (
    "call_id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "caller_number" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "call_merge_starts_pkey" PRIMARY KEY ("call_id")
);

-- CreateTable
CREATE TABLE "call_merge_daily" (
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "merged_calls" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "call_merge_daily_pkey" PRIMARY KEY ("dealer_group_id","dealer_id","day")
);

-- CreateIndex
CREATE INDEX "call_merge_starts_dealer_group_id_started_at_dealer_id_call_idx" ON "call_merge_starts"("dealer_group_id", "started_at", "dealer_id", "call_id");

-- CreateIndex
CREATE INDEX "call_merge_starts_dealer_group_id_caller_number_dealer_id_s_idx" ON "call_merge_starts"("dealer_group_id", "caller_number", "dealer_id", "started_at", "call_id");

-- AddForeignKey
ALTER TABLE "call_merge_starts" ADD CONSTRAINT "call_merge_starts_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A call begins a merged call when no call of the same caller at the same rooftop started in the two
-- minutes before it (at the same instant, the lower id is first); a call without a caller number
-- always does (MERGE_WINDOW_SECONDS in src/modules/calls/calls.service.ts). That depends only on the
-- calls of its caller in those two minutes, so a statement that writes, moves or removes calls can
-- change it only for the calls of those callers from each place it touched to two minutes after:
-- those are judged again, here, in the writing transaction, so every writer keeps the table current.
-- Writers of one dealer group take turns from here to their commit (a transaction-level lock), so
-- two writers never judge a caller's calls without seeing each other's.
CREATE FUNCTION "call_merge_starts_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- The places: each written, moved or removed call's group, rooftop, caller and start time.
  groups uuid[];
  dealers uuid[];
  callers text[];
  times timestamptz[];
  -- The calls the statement wrote (a call without a caller number is judged by itself).
  written uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.dealer_group_id), array_agg(n.dealer_id), array_agg(n.caller_number), array_agg(n.started_at), array_agg(n.id)
      INTO groups, dealers, callers, times, written FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.dealer_group_id), array_agg(o.dealer_id), array_agg(o.caller_number), array_agg(o.started_at)
      INTO groups, dealers, callers, times FROM old_rows o;
  ELSE
    -- An update moves a call only when its group, rooftop, caller or start time changes: its place
    -- before and after.
    WITH moved AS (
      SELECT o.id, o.dealer_group_id AS old_group, o.dealer_id AS old_dealer, o.caller_number AS old_caller, o.started_at AS old_time,
        n.dealer_group_id, n.dealer_id, n.caller_number, n.started_at
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (o.dealer_group_id, o.dealer_id, o.caller_number, o.started_at) IS DISTINCT FROM (n.dealer_group_id, n.dealer_id, n.caller_number, n.started_at))
    SELECT array_agg(p.dealer_group_id), array_agg(p.dealer_id), array_agg(p.caller_number), array_agg(p.started_at),
      (SELECT array_agg(m.id) FROM moved m)
      INTO groups, dealers, callers, times, written
      FROM (SELECT old_group, old_dealer, old_caller, old_time FROM moved UNION ALL SELECT dealer_group_id, dealer_id, caller_number, started_at FROM moved)
        AS p(dealer_group_id, dealer_id, caller_number, started_at);
  END IF;
  IF groups IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtext('call_merge_starts:' || g.id::text)) FROM (SELECT DISTINCT id FROM unnest(groups) AS u(id) ORDER BY 1) g;
  WITH place AS (
    SELECT DISTINCT p.dealer_group_id, p.dealer_id, p.caller_number, p.started_at
    FROM unnest(groups, dealers, callers, times) AS p(dealer_group_id, dealer_id, caller_number, started_at) WHERE p.caller_number IS NOT NULL),
  judged AS (
    SELECT c.id, c.dealer_group_id, c.dealer_id, c.caller_number, c.started_at,
      c.caller_number IS NULL OR NOT EXISTS (
        SELECT 1 FROM calls b WHERE b.dealer_group_id = c.dealer_group_id AND b.caller_number = c.caller_number AND b.dealer_id = c.dealer_id
          AND b.started_at >= c.started_at - interval '120 seconds' AND b.started_at <= c.started_at AND (b.started_at, b.id) < (c.started_at, c.id)) AS starts
    FROM (
      SELECT c.id, c.dealer_group_id, c.dealer_id, c.caller_number, c.started_at FROM place p
      JOIN calls c ON c.dealer_group_id = p.dealer_group_id AND c.caller_number = p.caller_number AND c.dealer_id = p.dealer_id
        AND c.started_at >= p.started_at AND c.started_at <= p.started_at + interval '120 seconds'
      UNION
      SELECT c.id, c.dealer_group_id, c.dealer_id, c.caller_number, c.started_at FROM calls c WHERE c.id = ANY(written)) c),
  ended AS (
    DELETE FROM call_merge_starts s USING judged j WHERE s.call_id = j.id AND NOT j.starts)
  INSERT INTO call_merge_starts AS s (call_id, dealer_group_id, dealer_id, caller_number, started_at)
    SELECT j.id, j.dealer_group_id, j.dealer_id, j.caller_number, j.started_at FROM judged j WHERE j.starts ORDER BY j.id
    ON CONFLICT (call_id) DO UPDATE SET dealer_group_id = excluded.dealer_group_id, dealer_id = excluded.dealer_id,
      caller_number = excluded.caller_number, started_at = excluded.started_at
    WHERE (s.dealer_group_id, s.dealer_id, s.caller_number, s.started_at)
      IS DISTINCT FROM (excluded.dealer_group_id, excluded.dealer_id, excluded.caller_number, excluded.started_at);
  RETURN NULL;
END $$;

-- Named to fire first of a statement's triggers on calls (they fire in name order): a writer takes
-- its group's turn before its statement locks any rollup row, so it never waits for the turn while
-- holding a row the writer that has the turn may need next.
CREATE TRIGGER "calls_0_merge_starts_insert" AFTER INSERT ON "calls" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "call_merge_starts_apply"();
CREATE TRIGGER "calls_0_merge_starts_update" AFTER UPDATE ON "calls"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "call_merge_starts_apply"();
CREATE TRIGGER "calls_0_merge_starts_delete" AFTER DELETE ON "calls" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "call_merge_starts_apply"();

-- Merged calls per rooftop and UTC day of their first call (and, under the nil UUID, all rooftops of
-- the group together), kept from call_merge_starts by statement-level triggers as call_daily is
-- kept from calls: each statement adds its new rows and subtracts its old ones, grouped by key and
-- upserted in key order.
CREATE FUNCTION "call_merge_daily_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO call_merge_daily AS r (dealer_group_id, dealer_id, day, merged_calls)
    SELECT * FROM (
      SELECT d.dealer_group_id, coalesce(d.dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, d.day, sum(d.sign) AS merged_calls
      FROM (SELECT x.dealer_group_id, x.dealer_id, (x.started_at AT TIME ZONE 'UTC')::date AS day, x.sign FROM (%s) x) d
      GROUP BY GROUPING SETS ((d.dealer_group_id, d.dealer_id, d.day), (d.dealer_group_id, d.day))) delta
    WHERE merged_calls <> 0
    ORDER BY 1, 2, 3
    ON CONFLICT (dealer_group_id, dealer_id, day) DO UPDATE SET merged_calls = r.merged_calls + excluded.merged_calls
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "call_merge_starts_daily_insert" AFTER INSERT ON "call_merge_starts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "call_merge_daily_apply"();
CREATE TRIGGER "call_merge_starts_daily_update" AFTER UPDATE ON "call_merge_starts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "call_merge_daily_apply"();
CREATE TRIGGER "call_merge_starts_daily_delete" AFTER DELETE ON "call_merge_starts" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "call_merge_daily_apply"();

-- The calls already stored (the trigger above counts them by day).
INSERT INTO "call_merge_starts" (call_id, dealer_group_id, dealer_id, caller_number, started_at)
SELECT c.id, c.dealer_group_id, c.dealer_id, c.caller_number, c.started_at FROM calls c
WHERE c.caller_number IS NULL OR NOT EXISTS (
  SELECT 1 FROM calls b WHERE b.dealer_group_id = c.dealer_group_id AND b.caller_number = c.caller_number AND b.dealer_id = c.dealer_id
    AND b.started_at >= c.started_at - interval '120 seconds' AND b.started_at <= c.started_at AND (b.started_at, b.id) < (c.started_at, c.id));
