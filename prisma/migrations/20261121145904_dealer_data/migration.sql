-- CreateEnum
CREATE TYPE "source_category" AS ENUM ('paid_search', 'organic_search', 'third_party_listing', 'oem', 'social', 'display', 'email', 'referral', 'walk_in', 'phone', 'direct', 'other');

-- CreateEnum
CREATE TYPE "mapping_match" AS ENUM ('exact', 'pattern');

-- CreateEnum
CREATE TYPE "call_direction" AS ENUM ('inbound', 'outbound');

-- CreateEnum
CREATE TYPE "call_status" AS ENUM ('answered', 'missed', 'voicemail');

-- CreateEnum
CREATE TYPE "lead_type" AS ENUM ('new', 'used', 'service', 'finance', 'trade_in');

-- CreateEnum
CREATE TYPE "lead_status" AS ENUM ('new', 'contacted', 'appointment', 'showed', 'sold', 'lost');

-- CreateEnum
CREATE TYPE "contract_type" AS ENUM ('cash', 'finance', 'lease');

-- AlterTable
ALTER TABLE "dealers" ADD COLUMN     "external_ids" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "franchises" TEXT[];

-- CreateTable
CREATE TABLE "dealer_aliases" (
    "id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "alias" TEXT NOT NULL,
    "system" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "dealer_aliases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "partners" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "contact_email" TEXT,
    "website" TEXT,
    "notes" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "partners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "partner_dealers" (
    "partner_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "relationship_type" TEXT NOT NULL,
    "data_permissions" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "partner_dealers_pkey" PRIMARY KEY ("partner_id","dealer_id")
);

-- CreateTable
CREATE TABLE "sources" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "name" CITEXT NOT NULL,
    "category" "source_category" NOT NULL,
    "channel" TEXT,
    "color" TEXT,
    "cost_per_month" DECIMAL(12,2),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "source_mappings" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "source_id" UUID NOT NULL,
    "match" "mapping_match" NOT NULL,
    "raw_value" TEXT NOT NULL,
    "normalized" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "source_mappings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "calls" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_seconds" INTEGER NOT NULL,
    "direction" "call_direction" NOT NULL,
    "status" "call_status" NOT NULL,
    "caller_number" TEXT,
    "tracking_number" TEXT,
    "raw_source" TEXT,
    "campaign" TEXT,
    "first_time_caller" BOOLEAN NOT NULL DEFAULT false,
    "recording_url" TEXT,
    "department" TEXT,
    "source_id" UUID,
    "sale_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leads" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "type" "lead_type" NOT NULL,
    "status" "lead_status" NOT NULL DEFAULT 'new',
    "first_name" TEXT,
    "last_name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "vehicle_year" INTEGER,
    "vehicle_make" TEXT,
    "vehicle_model" TEXT,
    "vehicle_vin" TEXT,
    "raw_source" TEXT,
    "comments" TEXT,
    "assignee" TEXT,
    "source_id" UUID,
    "sale_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sales" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "deal_number" TEXT NOT NULL,
    "sold_at" TIMESTAMPTZ(3) NOT NULL,
    "delivered_at" TIMESTAMPTZ(3),
    "salesperson" TEXT NOT NULL,
    "contract_type" "contract_type" NOT NULL,
    "vehicle_condition" "vehicle_condition" NOT NULL,
    "vin" VARCHAR(17),
    "vehicle_year" INTEGER,
    "vehicle_make" TEXT,
    "vehicle_model" TEXT,
    "sale_price" DECIMAL(12,2) NOT NULL,
    "front_gross" DECIMAL(12,2) NOT NULL,
    "back_gross" DECIMAL(12,2) NOT NULL,
    "amount_financed" DECIMAL(12,2),
    "trade_in_value" DECIMAL(12,2),
    "trade_in_vin" TEXT,
    "customer_name" TEXT,
    "customer_email" TEXT,
    "customer_phone" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sales_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "dealer_aliases_dealer_id_alias_key" ON "dealer_aliases"("dealer_id", "alias");

-- CreateIndex
CREATE UNIQUE INDEX "partners_dealer_group_id_name_key" ON "partners"("dealer_group_id", "name");

-- CreateIndex
CREATE INDEX "partner_dealers_dealer_id_idx" ON "partner_dealers"("dealer_id");

-- CreateIndex
CREATE UNIQUE INDEX "sources_dealer_group_id_name_key" ON "sources"("dealer_group_id", "name");

-- CreateIndex
CREATE INDEX "source_mappings_dealer_group_id_normalized_idx" ON "source_mappings"("dealer_group_id", "normalized");

-- CreateIndex
CREATE INDEX "source_mappings_source_id_idx" ON "source_mappings"("source_id");

-- CreateIndex
CREATE UNIQUE INDEX "source_mappings_dealer_group_id_match_raw_value_key" ON "source_mappings"("dealer_group_id", "match", "raw_value");

-- CreateIndex
CREATE INDEX "calls_dealer_group_id_started_at_idx" ON "calls"("dealer_group_id", "started_at");

-- CreateIndex
CREATE INDEX "calls_dealer_id_started_at_idx" ON "calls"("dealer_id", "started_at");

-- CreateIndex
CREATE INDEX "calls_dealer_group_id_updated_at_idx" ON "calls"("dealer_group_id", "updated_at");

-- CreateIndex
CREATE INDEX "calls_dealer_group_id_caller_number_started_at_idx" ON "calls"("dealer_group_id", "caller_number", "started_at");

-- CreateIndex
CREATE INDEX "calls_source_id_idx" ON "calls"("source_id");

-- CreateIndex
CREATE INDEX "calls_sale_id_idx" ON "calls"("sale_id");

-- CreateIndex
CREATE UNIQUE INDEX "calls_dealer_group_id_provider_external_id_key" ON "calls"("dealer_group_id", "provider", "external_id");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_received_at_idx" ON "leads"("dealer_group_id", "received_at");

-- CreateIndex
CREATE INDEX "leads_dealer_id_received_at_idx" ON "leads"("dealer_id", "received_at");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_updated_at_idx" ON "leads"("dealer_group_id", "updated_at");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_status_idx" ON "leads"("dealer_group_id", "status");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_email_idx" ON "leads"("dealer_group_id", "email");

-- CreateIndex
CREATE INDEX "leads_dealer_group_id_phone_idx" ON "leads"("dealer_group_id", "phone");

-- CreateIndex
CREATE INDEX "leads_source_id_idx" ON "leads"("source_id");

-- CreateIndex
CREATE INDEX "leads_sale_id_idx" ON "leads"("sale_id");

-- CreateIndex
CREATE UNIQUE INDEX "leads_dealer_group_id_provider_external_id_key" ON "leads"("dealer_group_id", "provider", "external_id");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_sold_at_idx" ON "sales"("dealer_group_id", "sold_at");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_salesperson_sold_at_idx" ON "sales"("dealer_group_id", "salesperson", "sold_at");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_updated_at_idx" ON "sales"("dealer_group_id", "updated_at");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_customer_email_idx" ON "sales"("dealer_group_id", "customer_email");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_customer_phone_idx" ON "sales"("dealer_group_id", "customer_phone");

-- CreateIndex
CREATE INDEX "sales_dealer_group_id_vin_idx" ON "sales"("dealer_group_id", "vin");

-- CreateIndex
CREATE UNIQUE INDEX "sales_dealer_id_deal_number_key" ON "sales"("dealer_id", "deal_number");

-- AddForeignKey
ALTER TABLE "dealer_aliases" ADD CONSTRAINT "dealer_aliases_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "partners" ADD CONSTRAINT "partners_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "partner_dealers" ADD CONSTRAINT "partner_dealers_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "partner_dealers" ADD CONSTRAINT "partner_dealers_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sources" ADD CONSTRAINT "sources_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_mappings" ADD CONSTRAINT "source_mappings_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "source_mappings" ADD CONSTRAINT "source_mappings_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_sale_id_fkey" FOREIGN KEY ("sale_id") REFERENCES "sales"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_source_id_fkey" FOREIGN KEY ("source_id") REFERENCES "sources"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "leads" ADD CONSTRAINT "leads_sale_id_fkey" FOREIGN KEY ("sale_id") REFERENCES "sales"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sales" ADD CONSTRAINT "sales_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
