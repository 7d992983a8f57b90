-- Hand-written. Event ids in commit order: an id is (the writing transaction's id × 65536 + the row's number
-- within that transaction), so ordering by id orders by transaction, and a reader can tell which ids are final:
-- every transaction whose id is below its snapshot's xmin has ended, so every Event with
-- id < xmin × 65536 is committed (or gone for good) and no smaller id can appear later. The event stream delivers
-- only those, in id order, which makes "resume after the last id" lose and repeat nothing under concurrent writers.
-- (A plain sequence hands out ids at insert, and transactions commit in another order.)
-- Limits: 65,536 events per transaction; xid8 below 2^47 (at 10,000 write transactions a second, 400 years).
CREATE FUNCTION "phoneloop_next_event_id"() RETURNS bigint AS $$
DECLARE
  n integer := coalesce(nullif(current_setting('phoneloop.event_seq', true), ''), '0')::integer;
BEGIN
  IF n >= 65536 THEN
    RAISE EXCEPTION 'A transaction may append at most 65536 events; split the work into several transactions.';
  END IF;
  PERFORM set_config('phoneloop.event_seq', (n + 1)::text, true);
  RETURN (pg_current_xact_id()::text::bigint) * 65536 + n;
END;
$$ LANGUAGE plpgsql VOLATILE;

ALTER TABLE "Event" ALTER COLUMN "id" SET DEFAULT "phoneloop_next_event_id"();
DROP SEQUENCE IF EXISTS "Event_id_seq";

-- The smallest id a not-yet-ended transaction can still commit: every Event below it is final.
CREATE FUNCTION "phoneloop_event_horizon"() RETURNS bigint AS $$
  SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint) * 65536;
$$ LANGUAGE sql STABLE;
