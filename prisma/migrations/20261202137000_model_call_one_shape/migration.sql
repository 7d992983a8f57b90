-- A model call's evidence has one shape whoever metered it (packages/state domain/evidence.ts ModelCallData): its
-- usage at the top of the row and `via` naming the meter — "api" (the model proxy) or "runtime" (a direct endpoint,
-- spent with its row). A direct endpoint's row kept its usage nested ("usage": {…}) and had no `via`: its usage moves
-- up and it is marked "runtime". A proxied row that said "usageMissing" says "estimated" (its tokens were not the
-- endpoint's). No Event and no spend: the facts are the same, only their shape changes.
UPDATE "Evidence"
SET "data" = ("data" - 'usage') || jsonb_build_object('via', 'runtime') ||
  CASE WHEN jsonb_typeof("data"->'usage') = 'object'
    THEN jsonb_strip_nulls(jsonb_build_object('inputTokens', "data"->'usage'->'inputTokens', 'outputTokens', "data"->'usage'->'outputTokens', 'microUsd', "data"->'usage'->'microUsd'))
    ELSE '{}'::jsonb END
WHERE "kind" = 'model_call' AND NOT ("data" ? 'via');

UPDATE "Evidence"
SET "data" = ("data" - 'usageMissing') || jsonb_build_object('estimated', true)
WHERE "kind" = 'model_call' AND "data" ? 'usageMissing';
