-- A quota window of 30 days (2,592,000,000 ms) is past a 32-bit integer: the window is a bigint.
ALTER TABLE "QuotaPolicy" ALTER COLUMN "windowMs" SET DATA TYPE BIGINT;
