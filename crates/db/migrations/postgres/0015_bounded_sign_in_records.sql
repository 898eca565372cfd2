-- The background sweep deletes failed sign-ins older than the lockout window: by age.
CREATE INDEX login_failures_at ON login_failures (at);

-- A refused sign-in counts in its lock's `login.locked` entry, found by account and
-- address: the latest entry of an action for them.
CREATE INDEX audit_log_action_email ON audit_log (action, user_email, client_address, id);
