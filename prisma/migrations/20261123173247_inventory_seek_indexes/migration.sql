-- DropIndex
DROP INDEX "vehicles_dealer_group_id_body_style_idx";

-- DropIndex
DROP INDEX "vehicles_dealer_group_id_make_model_idx";

-- DropIndex
DROP INDEX "vehicles_dealer_group_id_price_idx";

-- DropIndex
DROP INDEX "vehicles_dealer_group_id_updated_at_idx";

-- DropIndex
DROP INDEX "vehicles_group_make_status_cover_idx";

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_price_id_idx" ON "vehicles"("dealer_group_id", "price", "id");

-- CreateIndex
CREATE INDEX "vehicles_dealer_group_id_updated_at_id_idx" ON "vehicles"("dealer_group_id", "updated_at", "id");

-- Make, model and body style are citext for display and grouping, and filters compare lower() as
-- plain text instead, which costs a fraction of the per-entry case folding of citext. The make index
-- leads with the group, then orders by date in stock and id, so "one make, one status, longest on
-- the lot first" is read in index order, and INCLUDE (make) lets PostgreSQL answer counts from the
-- index alone (it needs the column of the expression to do so).
CREATE INDEX "vehicles_group_make_status_seek_idx" ON "vehicles" ("dealer_group_id", lower("make"::text), "status", "date_in_stock", "id") INCLUDE ("make");
CREATE INDEX "vehicles_group_model_idx" ON "vehicles" ("dealer_group_id", lower("model"::text)) INCLUDE ("model");
CREATE INDEX "vehicles_group_body_style_idx" ON "vehicles" ("dealer_group_id", lower("body_style"::text)) INCLUDE ("body_style");

-- Free text (q): trigrams of everything q matches (pg_trgm ignores case), so a substring search
-- (ILIKE) reads the matching rows instead of the whole group. The fields are apart by chr(1), which
-- no q may hold, so one condition matches exactly what q means (inventory.filters.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "vehicles_search_trgm_idx" ON "vehicles" USING gin (("vin" || chr(1) || coalesce("stock_number", '') || chr(1) || "year"::text || ' ' || "make"::text || ' ' || "model"::text || chr(1) || coalesce("trim", '')) gin_trgm_ops);

-- A vehicle on the lot has no sale date: days on lot is then today minus the stock-in date, so a
-- page of vehicles on the lot sorted by days on lot reads the date_in_stock index order.
UPDATE "vehicles" SET "sold_at" = NULL WHERE "sold_at" IS NOT NULL AND "status" NOT IN ('sold', 'presumed_sold');
ALTER TABLE "vehicles" ADD CONSTRAINT "vehicles_on_lot_unsold_check" CHECK ("sold_at" IS NULL OR "status" IN ('sold', 'presumed_sold'));
