-- Every pooled connection of every instance listens on ddp_auth, so an instance hears one change
-- once per connection: the connection that committed it at once, the idle ones later. The payload
-- now names the transaction too, so an instance acts on the first copy and knows the later ones for
-- copies (acting on a late copy would forget sessions read back since, and read them again).
CREATE OR REPLACE FUNCTION "notify_auth_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('ddp_auth', TG_TABLE_NAME || ' ' || txid_current()::text);
  RETURN NULL;
END
$$;
