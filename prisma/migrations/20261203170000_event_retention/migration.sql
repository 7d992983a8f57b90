-- Event retention: the collector prunes Events older than EVENT_RETENTION_DAYS (the event stream's resume window),
-- never above the horizon or past the notifications outbox's cursor, and never the Events the core reads as state.
-- This row says how far it has pruned: a stream resumed after an id below prunedThrough may have missed pruned
-- Events, and is told to reload instead.
-- CreateTable
CREATE TABLE "EventRetention" (
    "name" TEXT NOT NULL,
    "prunedThrough" BIGINT NOT NULL,
    "prunedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EventRetention_pkey" PRIMARY KEY ("name")
);
