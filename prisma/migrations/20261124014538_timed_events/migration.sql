-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "rotation_due_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "integrations" ADD COLUMN     "freshness_state" TEXT NOT NULL DEFAULT 'fresh';
