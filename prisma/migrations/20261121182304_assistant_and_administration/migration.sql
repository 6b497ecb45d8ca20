-- AlterTable
ALTER TABLE "users" ADD COLUMN     "invite_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "invite_token_hash" TEXT,
ADD COLUMN     "invited_by_id" UUID,
ADD COLUMN     "must_change_password" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "ai_configs" (
    "dealer_group_id" UUID NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "base_url" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "api_key" TEXT,
    "daily_token_limit" INTEGER NOT NULL,
    "timeout_ms" INTEGER NOT NULL,
    "rerank_dealer_matches" BOOLEAN NOT NULL DEFAULT true,
    "updated_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ai_configs_pkey" PRIMARY KEY ("dealer_group_id")
);

-- CreateTable
CREATE TABLE "assistant_usage" (
    "dealer_group_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "prompt_tokens" INTEGER NOT NULL DEFAULT 0,
    "completion_tokens" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "assistant_usage_pkey" PRIMARY KEY ("dealer_group_id","day")
);

-- CreateTable
CREATE TABLE "assistant_conversations" (
    "id" UUID NOT NULL,
    "owner_user_id" UUID,
    "owner_api_key_id" UUID,
    "dealer_group_ids" UUID[],
    "title" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "assistant_conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assistant_messages" (
    "id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "answered" BOOLEAN NOT NULL DEFAULT true,
    "engine" TEXT,
    "model" TEXT,
    "note" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',
    "prompt_tokens" INTEGER NOT NULL DEFAULT 0,
    "completion_tokens" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assistant_messages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "assistant_usage_day_idx" ON "assistant_usage"("day");

-- CreateIndex
CREATE INDEX "assistant_conversations_owner_user_id_updated_at_idx" ON "assistant_conversations"("owner_user_id", "updated_at");

-- CreateIndex
CREATE INDEX "assistant_conversations_owner_api_key_id_updated_at_idx" ON "assistant_conversations"("owner_api_key_id", "updated_at");

-- CreateIndex
CREATE INDEX "assistant_messages_conversation_id_created_at_idx" ON "assistant_messages"("conversation_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "users_invite_token_hash_key" ON "users"("invite_token_hash");

-- AddForeignKey
ALTER TABLE "ai_configs" ADD CONSTRAINT "ai_configs_dealer_group_id_fkey" FOREIGN KEY ("dealer_group_id") REFERENCES "dealer_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assistant_messages" ADD CONSTRAINT "assistant_messages_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "assistant_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
