-- Every process keeps verified sessions in memory (db/src/session_cache.rs) and must
-- forget them when another process changes an account or a session. These triggers
-- notify the channel `switchboard_accounts` at the commit of any statement that updates
-- or deletes users or sessions (foreign-key actions included: deleting an extension
-- clears users.ext_id through an UPDATE); PostgreSQL delivers a notification only when
-- its transaction commits, and once per distinct payload per transaction.
CREATE FUNCTION switchboard_accounts_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('switchboard_accounts', TG_TABLE_NAME);
    RETURN NULL;
END;
$$;

CREATE TRIGGER users_notify_accounts
    AFTER UPDATE OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION switchboard_accounts_changed();

CREATE TRIGGER sessions_notify_accounts
    AFTER UPDATE OR DELETE OR TRUNCATE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION switchboard_accounts_changed();
