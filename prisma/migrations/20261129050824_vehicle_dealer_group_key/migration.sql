-- A vehicle refers to its rooftop and that rooftop's group together: one key check per vehicle written
-- (two before), and a vehicle's group can no longer differ from its rooftop's.

-- DropForeignKey
ALTER TABLE "vehicles" DROP CONSTRAINT "vehicles_dealer_group_id_fkey";

-- DropForeignKey
ALTER TABLE "vehicles" DROP CONSTRAINT "vehicles_dealer_id_fkey";

-- CreateIndex
CREATE UNIQUE INDEX "dealers_id_dealer_group_id_key" ON "dealers"("id", "dealer_group_id");

-- AddForeignKey
ALTER TABLE "vehicles" ADD CONSTRAINT "vehicles_dealer_id_dealer_group_id_fkey" FOREIGN KEY ("dealer_id", "dealer_group_id") REFERENCES "dealers"("id", "dealer_group_id") ON DELETE RESTRICT ON UPDATE CASCADE;
