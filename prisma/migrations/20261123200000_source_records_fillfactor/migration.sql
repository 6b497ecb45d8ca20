-- Every sync moves when each listed record was last seen (seen_at and sync_run_id, neither indexed).
-- Room left free on each page lets PostgreSQL write those updates in place (heap-only tuples)
-- instead of adding an entry to every index of the table for each record.
-- Pages written before this keep their old fill until the table is rewritten.
ALTER TABLE "vehicle_source_records" SET (fillfactor = 50);
