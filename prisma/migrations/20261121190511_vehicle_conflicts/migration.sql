-- AlterTable
ALTER TABLE "dealers" ADD COLUMN     "conflicts_checked_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "vehicle_conflicts" (
    "vehicle_id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "field" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "difference" DOUBLE PRECISION,
    "details" JSONB NOT NULL,
    "signature" TEXT NOT NULL,
    "detected_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vehicle_conflicts_pkey" PRIMARY KEY ("vehicle_id","field","kind")
);

-- CreateIndex
CREATE INDEX "vehicle_conflicts_dealer_group_id_detected_at_idx" ON "vehicle_conflicts"("dealer_group_id", "detected_at" DESC);

-- CreateIndex
CREATE INDEX "vehicle_conflicts_dealer_id_kind_idx" ON "vehicle_conflicts"("dealer_id", "kind");

-- AddForeignKey
ALTER TABLE "vehicle_conflicts" ADD CONSTRAINT "vehicle_conflicts_vehicle_id_fkey" FOREIGN KEY ("vehicle_id") REFERENCES "vehicles"("id") ON DELETE CASCADE ON UPDATE CASCADE;
