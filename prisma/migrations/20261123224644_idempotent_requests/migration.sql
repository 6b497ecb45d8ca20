-- CreateTable
CREATE TABLE "idempotent_requests" (
    "caller" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "body_fingerprint" TEXT NOT NULL,
    "claim_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lease_until" TIMESTAMPTZ(3),
    "status" INTEGER,
    "headers" JSONB,
    "sealed_body" TEXT,

    CONSTRAINT "idempotent_requests_pkey" PRIMARY KEY ("caller","key")
);

-- CreateIndex
CREATE INDEX "idempotent_requests_created_at_idx" ON "idempotent_requests"("created_at");
