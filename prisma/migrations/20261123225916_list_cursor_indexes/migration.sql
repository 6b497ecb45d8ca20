-- Lists read by cursor (sort=updated_at for sync pulls, and the newest-first default) continue after
-- (time, id) as an index range: with the id in the index, rows one write stamped with the same time
-- (a sync batch shares its transaction's now()) are read in order instead of sorted on every page.

-- DropIndex
DROP INDEX "calls_dealer_group_id_updated_at_idx";

-- DropIndex
DROP INDEX "leads_dealer_group_id_received_at_idx";

-- DropIndex
DROP INDEX "leads_dealer_group_id_updated_at_idx";

-- DropIndex
DROP INDEX "sales_dealer_group_id_sold_at_idx";

-- DropIndex
DROP INDEX "sales_dealer_group_id_updated_at_idx";

-- CreateIndex
CREATE INDEX "calls_dealer_group_id_updated_at_id_idx" ON "calls"("dealer_group_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_received_at_id_idx" ON "leads"("dealer_group_id", "received_at", "id");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_updated_at_id_idx" ON "leads"("dealer_group_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_sold_at_id_idx" ON "sales"("dealer_group_id", "sold_at", "id");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_updated_at_id_idx" ON "sales"("dealer_group_id", "updated_at", "id");
