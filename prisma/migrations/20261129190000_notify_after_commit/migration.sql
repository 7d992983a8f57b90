-- Hand-written. NOTIFY serialises committing transactions (Postgres holds a global lock from pre-commit through
-- the WAL flush), so one notifying commit per claim caps claims at one fsync each. The one-statement hot paths
-- (claim, the lease holder's writes) therefore set phoneloop.notify_after_commit for their own transaction and
-- announce their Event with pg_notify right after it commits (a notify-only transaction needs no WAL flush).
-- Every other write is announced by this trigger, as before.
CREATE OR REPLACE FUNCTION "phoneloop_notify_event"() RETURNS trigger AS $$
BEGIN
  IF current_setting('phoneloop.notify_after_commit', true) = 'on' THEN
    RETURN NEW;
  END IF;
  PERFORM pg_notify('phoneloop_events', NEW."id"::text);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;
