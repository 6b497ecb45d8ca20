-- DropIndex
DROP INDEX "vehicle_conflicts_dealer_group_id_detected_at_idx";

-- CreateIndex
CREATE INDEX "vehicle_conflicts_dealer_group_id_detected_at_vehicle_id_fi_idx" ON "vehicle_conflicts"("dealer_group_id", "detected_at" DESC, "vehicle_id", "field");
