-- Take over and hand back: a takeover is a gate of its own kind (the agent's typed ask, or a person taking over
-- unasked), taken by one member at a time; a step may be a person's (Step.memberId; null: the run's agent).
-- Gates opened before keep their kind; steps recorded before are the agent's.
ALTER TYPE "GateKind" ADD VALUE 'takeover';

ALTER TABLE "Gate" ADD COLUMN "takeoverReason" TEXT,
ADD COLUMN "takenBy" TEXT,
ADD COLUMN "takenAt" TIMESTAMPTZ(3);

ALTER TABLE "Step" ADD COLUMN "memberId" TEXT;
