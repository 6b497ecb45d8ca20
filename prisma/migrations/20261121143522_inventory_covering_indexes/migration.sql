-- DropIndex
DROP INDEX "vehicles_dealer_group_id_status_idx";

-- CreateIndex
CREATE INDEX "vehicles_group_status_cover_idx" ON "vehicles"("dealer_group_id", "status", "date_in_stock", "sold_at", "price", "id");

-- CreateIndex
CREATE INDEX "vehicles_group_make_status_cover_idx" ON "vehicles"("dealer_group_id", "make", "status", "date_in_stock", "sold_at", "price", "id");
