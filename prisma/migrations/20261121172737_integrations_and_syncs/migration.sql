-- CreateEnum
CREATE TYPE "sync_strategy" AS ENUM ('overwrite', 'merge', 'update_only');

-- CreateEnum
CREATE TYPE "sync_status" AS ENUM ('running', 'succeeded', 'failed');

-- AlterTable
ALTER TABLE "dealers" ADD COLUMN     "source_priority" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "vehicle_source_records" ADD COLUMN     "integration_id" UUID,
ADD COLUMN     "missed_syncs" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "missing_since" TIMESTAMPTZ(3),
ADD COLUMN     "sync_run_id" UUID;

-- CreateTable
CREATE TABLE "integrations" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "dealer_id" UUID NOT NULL,
    "plugin_key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "strategy" "sync_strategy" NOT NULL DEFAULT 'merge',
    "sold_grace_syncs" INTEGER,
    "sold_grace_hours" INTEGER,
    "track_history" BOOLEAN NOT NULL DEFAULT true,
    "schedule_minutes" INTEGER,
    "expected_cadence_hours" INTEGER NOT NULL DEFAULT 24,
    "credentials" TEXT,
    "column_mapping" JSONB NOT NULL DEFAULT '{}',
    "template_id" UUID,
    "sftp_username" TEXT,
    "sftp_password_hash" TEXT,
    "last_file_at" TIMESTAMPTZ(3),
    "last_file_name" TEXT,
    "next_sync_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "disconnected_at" TIMESTAMPTZ(3),

    CONSTRAINT "integrations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_runs" (
    "id" UUID NOT NULL,
    "integration_id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "status" "sync_status" NOT NULL DEFAULT 'running',
    "trigger" TEXT NOT NULL,
    "file_name" TEXT,
    "template_id" UUID,
    "template_version" INTEGER,
    "rows_read" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "updated" INTEGER NOT NULL DEFAULT 0,
    "unchanged" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "flagged" INTEGER NOT NULL DEFAULT 0,
    "presumed_sold" INTEGER NOT NULL DEFAULT 0,
    "returned" INTEGER NOT NULL DEFAULT 0,
    "bytes_read" BIGINT NOT NULL DEFAULT 0,
    "bytes_total" BIGINT,
    "error" TEXT,
    "heartbeat_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "sync_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sync_row_errors" (
    "id" BIGSERIAL NOT NULL,
    "sync_run_id" UUID NOT NULL,
    "row" INTEGER NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'error',
    "field" TEXT,
    "message" TEXT NOT NULL,
    "raw" JSONB,

    CONSTRAINT "sync_row_errors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mapping_templates" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "plugin_key" TEXT,
    "target" TEXT NOT NULL DEFAULT 'vehicles',
    "field_mappings" JSONB NOT NULL DEFAULT '{}',
    "value_mappings" JSONB NOT NULL DEFAULT '{}',
    "version" INTEGER NOT NULL DEFAULT 1,
    "published" BOOLEAN NOT NULL DEFAULT false,
    "published_at" TIMESTAMPTZ(3),
    "cloned_from_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mapping_templates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mapping_template_versions" (
    "template_id" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "field_mappings" JSONB NOT NULL,
    "value_mappings" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "mapping_template_versions_pkey" PRIMARY KEY ("template_id","version")
);

-- CreateTable
CREATE TABLE "sftp_credential_emails" (
    "id" UUID NOT NULL,
    "dealer_group_id" UUID NOT NULL,
    "integration_id" UUID NOT NULL,
    "recipient" TEXT NOT NULL,
    "provider_name" TEXT,
    "subject" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "delivery" TEXT NOT NULL,
    "outbox_file" TEXT,
    "message_id" TEXT,
    "sent_by_user_id" UUID,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sftp_credential_emails_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "integrations_sftp_username_key" ON "integrations"("sftp_username");

-- CreateIndex
CREATE INDEX "integrations_dealer_group_id_created_at_idx" ON "integrations"("dealer_group_id", "created_at");

-- CreateIndex
CREATE INDEX "integrations_dealer_id_idx" ON "integrations"("dealer_id");

-- CreateIndex
CREATE INDEX "integrations_next_sync_at_idx" ON "integrations"("next_sync_at");

-- CreateIndex
CREATE INDEX "sync_runs_integration_id_started_at_idx" ON "sync_runs"("integration_id", "started_at");

-- CreateIndex
CREATE INDEX "sync_runs_dealer_group_id_started_at_idx" ON "sync_runs"("dealer_group_id", "started_at");

-- CreateIndex
CREATE INDEX "sync_runs_status_idx" ON "sync_runs"("status");

-- CreateIndex
CREATE INDEX "sync_row_errors_sync_run_id_row_idx" ON "sync_row_errors"("sync_run_id", "row");

-- CreateIndex
CREATE INDEX "mapping_templates_dealer_group_id_name_idx" ON "mapping_templates"("dealer_group_id", "name");

-- CreateIndex
CREATE INDEX "mapping_templates_published_name_idx" ON "mapping_templates"("published", "name");

-- CreateIndex
CREATE INDEX "sftp_credential_emails_dealer_group_id_sent_at_idx" ON "sftp_credential_emails"("dealer_group_id", "sent_at");

-- CreateIndex
CREATE INDEX "vehicle_source_records_integration_id_idx" ON "vehicle_source_records"("integration_id");

-- AddForeignKey
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_dealer_id_fkey" FOREIGN KEY ("dealer_id") REFERENCES "dealers"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "integrations" ADD CONSTRAINT "integrations_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "mapping_templates"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_runs" ADD CONSTRAINT "sync_runs_integration_id_fkey" FOREIGN KEY ("integration_id") REFERENCES "integrations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sync_row_errors" ADD CONSTRAINT "sync_row_errors_sync_run_id_fkey" FOREIGN KEY ("sync_run_id") REFERENCES "sync_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mapping_templates" ADD CONSTRAINT "mapping_templates_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "mapping_template_versions" ADD CONSTRAINT "mapping_template_versions_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "mapping_templates"("id") ON DELETE CASCADE ON UPDATE CASCADE;
