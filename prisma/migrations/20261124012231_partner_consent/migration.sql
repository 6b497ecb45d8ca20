-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "partner_id" UUID;

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "partner_id" UUID;

-- CreateIndex
CREATE INDEX "api_keys_partner_id_idx" ON "api_keys"("partner_id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A key bound to a partner is remembered by every instance with the partner's links (what each
-- rooftop's data the partner may receive): binding a key, and linking, changing or unlinking a
-- rooftop, make every instance forget what it remembered, as any change to a key does.
DROP TRIGGER "api_keys_auth_change" ON "api_keys";
CREATE TRIGGER "api_keys_auth_change" AFTER UPDATE OF "name", "key_hash", "scopes", "rate_limit_per_hour", "allowed_ips", "revoked_at", "partner_id" OR DELETE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "partner_dealers_auth_change" AFTER INSERT OR UPDATE OR DELETE ON "partner_dealers"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();

CREATE INDEX "webhook_endpoints_partner_id_idx" ON "webhook_endpoints"("partner_id");
