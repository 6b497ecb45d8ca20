-- Each API instance keeps the sessions it authenticated in memory, so a request costs no statement
-- to say who is calling. Whatever changes who a user or an API key is, or what it may see, tells
-- every instance to forget them: a notification on ddp_auth, sent when the change commits (all the
-- pooled connections of every instance listen). Updates that change nothing a session holds
-- (a sign-in time, a key's last use) notify nobody.
CREATE FUNCTION "notify_auth_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ddp_auth', TG_TABLE_NAME);
  RETURN NULL;
END
$$;

CREATE TRIGGER "users_auth_change" AFTER UPDATE OF "email", "role", "disabled_at", "must_change_password" OR DELETE ON "users"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "user_dealer_groups_auth_change" AFTER INSERT OR UPDATE OR DELETE ON "user_dealer_groups"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "api_keys_auth_change" AFTER UPDATE OF "name", "key_hash", "scopes", "rate_limit_per_hour", "allowed_ips", "revoked_at" OR DELETE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
CREATE TRIGGER "api_key_dealer_groups_auth_change" AFTER INSERT OR UPDATE OR DELETE ON "api_key_dealer_groups"
  FOR EACH STATEMENT EXECUTE FUNCTION "notify_auth_change"();
