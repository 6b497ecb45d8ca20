-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateExtension: case-insensitive text for make, model and body style
CREATE EXTENSION IF NOT EXISTS "citext";

-- CreateEnum
CREATE TYPE "user_role" AS ENUM ('admin', 'analyst', 'viewer');

-- CreateEnum
CREATE TYPE "vehicle_condition" AS ENUM ('new', 'used', 'certified');

-- CreateEnum
CREATE TYPE "vehicle_status" AS ENUM ('available', 'pending', 'in_transit', 'sold', 'presumed_sold');

-- CreateTable
CREATE TABLE "dealer_groups" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dealer_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dealers" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "street" TEXT,
    "city" TEXT,
    "state" TEXT,
    "postal_code" TEXT,
    "phone" TEXT,
    "website" TEXT,
    "time_zone" TEXT NOT NULL DEFAULT 'America/New_York',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "archived_at" TIMESTAMPTZ(3),

    CONSTRAINT "dealers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "password_hash" TEXT,
    "role" "user_role" NOT NULL DEFAULT 'viewer',
    "disabled_at" TIMESTAMPTZ(3),
    "last_login_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "user_dealer_groups" (
    "user_id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "user_dealer_groups_pkey" PRIMARY KEY ("user_id","dealer_group_id")
);

-- CreateTable
CREATE TABLE "refresh_tokens" (
    "id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "family_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vehicles" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "vin" VARCHAR(17) NOT NULL,
    "stock_number" TEXT,
    "year" INTEGER NOT NULL,
    "make" CITEXT NOT NULL,
    "model" CITEXT NOT NULL,
    "trim" TEXT,
    "body_style" CITEXT,
    "condition" "vehicle_condition" NOT NULL,
    "mileage" INTEGER,
    "exterior_color" TEXT,
    "interior_color" TEXT,
    "msrp" DECIMAL(12,2),
    "price" DECIMAL(12,2),
    "internet_price" DECIMAL(12,2),
    "status" "vehicle_status" NOT NULL DEFAULT 'available',
    "date_in_stock" DATE NOT NULL,
    "sold_at" TIMESTAMPTZ(3),
    "photos" TEXT[],
    "field_sources" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vehicles_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vehicle_source_records" (
    "id" UUID NOT NULL,
    "vehicle_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vehicle_source_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vehicle_changes" (
    "id" UUID NOT NULL,
    "vehicle_id" UUID NOT NULL,
    "field" TEXT NOT NULL,
    "old_value" JSONB,
    "new_value" JSONB,
    "source" TEXT,
    "sync_run_id" UUID,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vehicle_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "request_logs" (
    "id" BIGSERIAL NOT NULL,
    "request_id" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "operation" TEXT,
    "status" INTEGER NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "ip" TEXT,
    "user_agent" TEXT,
    "user_id" UUID,
    "api_key_id" UUID,
    "dealer_group_ids" UUID[],

    CONSTRAINT "request_logs_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "dealer_groups_slug_key" ON "dealer_groups"("slug");

-- CreateIndex
CREATE INDEX "dealers_dealer_group_id_name_idx" ON "dealers"("dealer_group_id", "name");

-- CreateIndex
CREATE UNIQUE INDEX "dealers_dealer_group_id_code_key" ON "dealers"("dealer_group_id", "code");

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "user_dealer_groups_dealer_group_id_idx" ON "user_dealer_groups"("dealer_group_id");

-- CreateIndex
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "refresh_tokens_family_id_idx" ON "refresh_tokens"("family_id");

-- CreateIndex
CREATE INDEX "refresh_tokens_user_id_idx" ON "refresh_tokens"("user_id");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_status_idx" ON "vehicles"("dealer_group_id", "status");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_make_model_idx" ON "vehicles"("dealer_group_id", "make", "model");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_condition_idx" ON "vehicles"("dealer_group_id", "condition");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_mileage_idx" ON "vehicles"("dealer_group_id", "mileage");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_stock_number_idx" ON "vehicles"("dealer_group_id", "stock_number");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_year_idx" ON "vehicles"("dealer_group_id", "year");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_price_idx" ON "vehicles"("dealer_group_id", "price");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_date_in_stock_idx" ON "vehicles"("dealer_group_id", "date_in_stock");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_updated_at_idx" ON "vehicles"("dealer_group_id", "updated_at");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_body_style_idx" ON "vehicles"("dealer_group_id", "body_style");

-- CreateIndex
CREATE INDEX "vehicles_dealer_id_status_idx" ON "vehicles"("dealer_id", "status");

-- CreateIndex
CREATE INDEX "vehicles_vin_idx" ON "vehicles"("vin");

-- CreateIndex
CREATE UNIQUE INDEX "vehicles_dealer_id_vin_key" ON "vehicles"("dealer_id", "vin");

-- CreateIndex
CREATE INDEX "vehicle_source_records_source_vehicle_id_idx" ON "vehicle_source_records"("source", "vehicle_id");

-- CreateIndex
CREATE UNIQUE INDEX "vehicle_source_records_vehicle_id_source_key" ON "vehicle_source_records"("vehicle_id", "source");

-- CreateIndex
CREATE INDEX "vehicle_changes_vehicle_id_changed_at_idx" ON "vehicle_changes"("vehicle_id", "changed_at");

-- CreateIndex
CREATE INDEX "request_logs_occurred_at_idx" ON "request_logs"("occurred_at");

-- CreateIndex
CREATE INDEX "request_logs_user_id_occurred_at_idx" ON "request_logs"("user_id", "occurred_at");

-- CreateIndex
CREATE INDEX "request_logs_api_key_id_occurred_at_idx" ON "request_logs"("api_key_id", "occurred_at");

-- CreateIndex
CREATE INDEX "request_logs_status_occurred_at_idx" ON "request_logs"("status", "occurred_at");

-- CreateIndex
CREATE INDEX "request_logs_dealer_group_ids_idx" ON "request_logs" USING GIN ("dealer_group_ids");

-- AddForeignKey
ALTER TABLE "dealers" ADD CONSTRAINT "dealers_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_dealer_groups" ADD CONSTRAINT "user_dealer_groups_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "user_dealer_groups" ADD CONSTRAINT "user_dealer_groups_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vehicles" ADD CONSTRAINT "vehicles_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vehicles" ADD CONSTRAINT "vehicles_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vehicle_source_records" ADD CONSTRAINT "vehicle_source_records_vehicle_id_fkey" FOREIGN KEY ("vehicle_id") REFERENCES "vehicles"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vehicle_changes" ADD CONSTRAINT "vehicle_changes_vehicle_id_fkey" FOREIGN KEY ("vehicle_id") REFERENCES "vehicles"("id") ON DELETE CASCADE ON UPDATE CASCADE;
