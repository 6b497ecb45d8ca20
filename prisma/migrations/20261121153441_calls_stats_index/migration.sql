-- DropIndex
DROP INDEX "calls_dealer_group_id_started_at_idx";

-- CreateIndex
CREATE INDEX "calls_group_started_stats_idx" ON "calls"("dealer_group_id", "started_at", "status", "duration_seconds", "first_time_caller", "source_id");

-- CreateIndex
CREATE INDEX "sales_dealer_id_sold_at_idx" ON "sales"("dealer_id", "sold_at");
