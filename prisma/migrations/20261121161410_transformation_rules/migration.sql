-- CreateTable
CREATE TABLE "transformation_rules" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "conditions" JSONB NOT NULL,
    "action" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "transformation_rules_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "transformation_rules_dealer_group_id_position_idx" ON "transformation_rules"("dealer_group_id", "position");

-- AddForeignKey
ALTER TABLE "transformation_rules" ADD CONSTRAINT "transformation_rules_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;
