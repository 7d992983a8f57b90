-- Hand-written. Event ids in commit order, replacing event_commit_order's transaction-id ids (those ordered
-- transactions by when they began writing, so a transaction that waited on another's row lock could commit after
-- it yet carry a smaller id, and the stream would show the effect before its cause).
-- A row is inserted with a placeholder id (negative, never seen outside its transaction); at commit a deferred
-- trigger takes one lock and gives it the next id. The lock is held until the commit is visible, so an id is handed
-- out only after every smaller id is committed and visible: reading `id > last ORDER BY id` from any snapshot sees
-- a prefix of the final sequence, and no smaller id can appear later. The price: commits that append events
-- serialise from that trigger to the end of the commit (about one WAL flush each), as NOTIFY's own commit lock does.
DROP FUNCTION IF EXISTS "phoneloop_event_horizon"();

CREATE SEQUENCE "Event_pending_seq";
CREATE SEQUENCE "Event_commit_seq";
SELECT setval('"Event_commit_seq"', GREATEST((SELECT max("id") FROM "Event"), 0) + 1, false);

CREATE FUNCTION "phoneloop_pending_event_id"() RETURNS bigint AS $$
  SELECT -nextval('"Event_pending_seq"');
$$ LANGUAGE sql VOLATILE;

ALTER TABLE "Event" ALTER COLUMN "id" SET DEFAULT "phoneloop_pending_event_id"();
DROP FUNCTION IF EXISTS "phoneloop_next_event_id"();

CREATE FUNCTION "phoneloop_event_id_at_commit"() RETURNS trigger AS $$
DECLARE
  final_id bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('phoneloop.event_ids'));
  UPDATE "Event" SET "id" = nextval('"Event_commit_seq"') WHERE "id" = NEW."id" RETURNING "id" INTO final_id;
  PERFORM pg_notify('phoneloop_events', final_id::text);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER "Event_id_at_commit" AFTER INSERT ON "Event"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "phoneloop_event_id_at_commit"();

-- The announcement carries the final id, so it is made here, at commit, for every Event (the insert-time trigger
-- would announce the placeholder). The hot paths' after-commit announcements (notify_after_commit) still go out;
-- the event stream reads by id and ignores payloads, so a repeat costs one read. Since ids are handed out under a
-- commit-time lock, the reason for announcing after commit (not holding NOTIFY's commit lock) no longer saves
-- anything.
DROP TRIGGER IF EXISTS "Event_notify" ON "Event";
DROP FUNCTION IF EXISTS "phoneloop_notify_event"();
