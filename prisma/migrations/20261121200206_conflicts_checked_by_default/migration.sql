-- AlterTable
ALTER TABLE "dealers" ALTER COLUMN "conflicts_checked_at" SET DEFAULT CURRENT_TIMESTAMP;
