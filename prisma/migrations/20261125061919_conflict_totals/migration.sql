-- How many conflicts each rooftop has, kept by triggers in every writer's transaction like
-- dealer_activity: the conflicts list's total without a kind or vehicle filter sums these few rows
-- instead of counting the group's conflicts for every page.
CREATE TABLE "vehicle_conflict_totals" (
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "conflicts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "vehicle_conflict_totals_pkey" PRIMARY KEY ("dealer_group_id","dealer_id")
);

CREATE FUNCTION "vehicle_conflict_totals_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($sql$
    INSERT INTO vehicle_conflict_totals AS t (dealer_group_id, dealer_id, conflicts)
    SELECT * FROM (
      SELECT d.dealer_group_id, d.dealer_id, sum(d.sign)::int AS conflicts FROM (%s) d GROUP BY 1, 2) delta
    WHERE conflicts <> 0
    ORDER BY 1, 2
    ON CONFLICT (dealer_group_id, dealer_id) DO UPDATE SET conflicts = t.conflicts + excluded.conflicts
  $sql$, rollup_deltas(TG_OP));
  RETURN NULL;
END $$;

CREATE TRIGGER "vehicle_conflicts_totals_insert" AFTER INSERT ON "vehicle_conflicts" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "vehicle_conflict_totals_apply"();
CREATE TRIGGER "vehicle_conflicts_totals_update" AFTER UPDATE ON "vehicle_conflicts"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "vehicle_conflict_totals_apply"();
CREATE TRIGGER "vehicle_conflicts_totals_delete" AFTER DELETE ON "vehicle_conflicts" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "vehicle_conflict_totals_apply"();

-- Backfill from the conflicts already there.
INSERT INTO "vehicle_conflict_totals" (dealer_group_id, dealer_id, conflicts)
SELECT dealer_group_id, dealer_id, count(*) FROM "vehicle_conflicts" GROUP BY 1, 2;
