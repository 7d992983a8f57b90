-- Hand-written. Event ids at insert, from a sequence, each row written once; readers bound themselves by the
-- horizon instead of writers serialising (replaces event_ids_at_commit, whose commit-time lock held every commit
-- that appended an Event from its trigger to the end of its WAL flush, and wrote each Event twice).
--
-- The order: an id is drawn when its Event is inserted. Whatever a transaction read before inserting an Event was
-- committed before, and that commit's Events drew their ids before it — so an effect never has a smaller id than
-- its cause. Transactions still commit in another order than they drew ids, so a reader must not pass an id a
-- running transaction may still commit. The horizon: phoneloop_event_checkpoint() answers the last id drawn and,
-- read after that, the transactions then running. Every id up to that last id was drawn by a
-- transaction that already had its transaction id (phoneloop_event_id takes it first), so by one of those running
-- ones or by one that had ended; once none of them is running any more (a later checkpoint's running set shares
-- none of them), every Event up to the last id is final: committed and visible, or gone for good. A reader
-- delivers in id order only up to such a resolved checkpoint (packages/state services/event-horizon.ts), so
-- resuming after the last id delivered loses and repeats nothing. A transaction left open holds back the Events
-- after its own until it ends (the core's transactions time out after 20 s).
-- CACHE 1: last_value is then the last id any session drew (a session-local cache would draw ids behind it).
DROP TRIGGER IF EXISTS "Event_id_at_commit" ON "Event";
DROP FUNCTION IF EXISTS "phoneloop_event_id_at_commit"();

CREATE SEQUENCE "Event_id_seq" CACHE 1;
SELECT setval('"Event_id_seq"', GREATEST(
  COALESCE((SELECT max("id") FROM "Event"), 0),
  (SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM "Event_commit_seq"),
  1));

CREATE FUNCTION "phoneloop_event_id"() RETURNS bigint AS $$
BEGIN
  PERFORM pg_current_xact_id();
  RETURN nextval('"Event_id_seq"');
END;
$$ LANGUAGE plpgsql VOLATILE;

ALTER TABLE "Event" ALTER COLUMN "id" SET DEFAULT "phoneloop_event_id"();
DROP FUNCTION IF EXISTS "phoneloop_pending_event_id"();
DROP SEQUENCE IF EXISTS "Event_pending_seq";
DROP SEQUENCE IF EXISTS "Event_commit_seq";

-- The last id drawn, then (read after it) the transactions of this database that have a transaction id and are
-- running: pg_stat_activity's backend_xid, which a backend shows from taking its id until its commit is visible
-- (a snapshot's xip list would not do: it leaves out transactions at or above its xmax). Read in a fresh
-- transaction (autocommit), so the activity read is not an earlier one kept for the transaction; other isolation
-- levels are refused. Prepared (two-phase) transactions are not seen: the core uses none.
CREATE FUNCTION "phoneloop_event_checkpoint"(OUT "lastId" bigint, OUT "running" text[]) AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'phoneloop_event_checkpoint() needs READ COMMITTED (call it outside a transaction)';
  END IF;
  SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END INTO "lastId" FROM "Event_id_seq";
  PERFORM pg_stat_clear_snapshot();
  SELECT coalesce(array_agg(backend_xid::text), '{}') INTO "running" FROM pg_stat_activity
    WHERE datid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND backend_xid IS NOT NULL;
END;
$$ LANGUAGE plpgsql VOLATILE;
