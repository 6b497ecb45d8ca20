-- Instances keep recent inventory answers (src/http/answer-cache.ts) and must hear of every change
-- to what those answers are made of: vehicles, and the rooftops whose names and records they carry.
-- Each statement that changes them announces, once per dealer group it touched, the group and its
-- transaction on ddp_inventory (the transaction, so an instance that hears it on several pooled
-- connections acts once). Notifications go out when the transaction commits, and not at all if it
-- rolls back; PostgreSQL folds repeats of the same payload within a transaction into one.
CREATE FUNCTION "notify_inventory_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('ddp_inventory', g.dealer_group_id::text || ' ' || txid_current()::text)
      FROM (SELECT DISTINCT dealer_group_id FROM old_rows) g;
  ELSE
    PERFORM pg_notify('ddp_inventory', g.dealer_group_id::text || ' ' || txid_current()::text)
      FROM (SELECT DISTINCT dealer_group_id FROM new_rows) g;
  END IF;
  RETURN NULL;
END
$$;

-- A statement's transition tables hold one event each, so each event has its trigger.
CREATE TRIGGER "vehicles_inventory_insert" AFTER INSERT ON "vehicles" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_change"();
CREATE TRIGGER "vehicles_inventory_update" AFTER UPDATE ON "vehicles" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_change"();
CREATE TRIGGER "vehicles_inventory_delete" AFTER DELETE ON "vehicles" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_change"();
CREATE TRIGGER "dealers_inventory_insert" AFTER INSERT ON "dealers" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_change"();
CREATE TRIGGER "dealers_inventory_update" AFTER UPDATE ON "dealers" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_change"();
CREATE TRIGGER "dealers_inventory_delete" AFTER DELETE ON "dealers" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_change"();
-- Truncating cannot name its groups: every instance forgets every answer.
CREATE FUNCTION "notify_inventory_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ddp_inventory', '* ' || txid_current()::text);
  RETURN NULL;
END
$$;
CREATE TRIGGER "vehicles_inventory_truncate" AFTER TRUNCATE ON "vehicles"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_truncate"();
CREATE TRIGGER "dealers_inventory_truncate" AFTER TRUNCATE ON "dealers"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_inventory_truncate"();
